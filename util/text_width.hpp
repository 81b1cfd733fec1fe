// Text output that fits the terminal (issue 26): the width, tables fitted to it, long lines
// wrapped. The CLI sets the width once per invocation (set_output_width): COLUMNS, else the
// terminal's width, else 100 when stdout is not a terminal; --wide sets 0 (no limit). Library
// callers that never set it get no limit, as before.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

// Columns the text output may use; 0: no limit.
std::size_t output_width();
void set_output_width(std::size_t columns);
// The width the environment asks for: 0 when `wide`; else COLUMNS when it is a whole number > 0;
// else the terminal's width when stdout is one; else 100.
std::size_t width_from_environment(bool wide);

// Columns `text` takes on a terminal: UTF-8 code points, ANSI colour sequences not counted.
std::size_t display_width(std::string_view text);
// `text` cut to `width` columns with "…" in the middle ("memory/tri…s:64Mi"); as is when it fits.
std::string elide_middle(const std::string& text, std::size_t width);
// Words of `text` in lines of at most `width` columns (a word longer than that is cut).
std::vector<std::string> wrap_words(const std::string& text, std::size_t width);

// A table as lines of at most `width` columns (0: no limit), each starting with `indent`:
// columns padded to their widest cell, two spaces apart. When too wide, the last column (the
// long text: why, reason, note) wraps onto continuation lines under itself, keeping at least 24
// columns; if that is still too wide, the first column (the name) goes on a line of its own above
// the others (indented 4 more), and if they still do not fit, the widest are cut (elide_middle)
// down to 8 columns each (a cell of only '-', a rule under a header, is cut, not elided).
// `line_rows`, when given, receives for each line the row it belongs to.
// FirstColumn::keep_whole: the first column is never moved or cut (tables scripts read, such as
// `baseline list | grep "^nightly "`).
enum class FirstColumn { may_stack, keep_whole };
std::vector<std::string> fit_table(const std::vector<std::vector<std::string>>& rows,
                                   std::size_t width, const std::string& indent = "",
                                   std::vector<std::size_t>* line_rows = nullptr,
                                   FirstColumn first_column = FirstColumn::may_stack);

// Every line of `text` longer than `width` (0: no limit) wrapped at spaces, continuation lines
// indented 4 more than the line's own indent.
std::string wrap_lines(const std::string& text, std::size_t width);

// A table for people: left-aligned columns separated by two spaces; header underlined with dashes,
// fitted to output_width() by fit_table (the first column kept whole unless told).
void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows,
                 FirstColumn first_column = FirstColumn::keep_whole);

}  // namespace gpubench
