// Text output that fits the terminal (issue 26): the width, tables fitted to it, long lines
// wrapped; never by cutting a number, a sign, a date or a unit (issue 39). The CLI sets the width
// once per invocation (set_output_width): COLUMNS, else the terminal's width, else 100 when stdout
// is not a terminal; --wide sets 0 (no limit). Library callers that never set it get no limit, as
// before.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
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
// For names only: text that holds a digit (a number, a date, an interval) is never cut (issue 39).
std::string elide_middle(const std::string& text, std::size_t width);
// Whether `token` holds a digit: a number, a date, an interval, a size. Such a token is never
// cut or split by the functions here (issue 39); a line holding one longer than the width is
// left longer.
bool holds_digit(std::string_view token);
// Words of `text` in lines of at most `width` columns. A word is never split: one longer than
// `width` is kept whole when it holds a digit, else (a name, a path) elided in the middle.
std::vector<std::string> wrap_words(const std::string& text, std::size_t width);

// How fit_table may make a table narrower, beyond wrapping cells at spaces.
// FirstColumn::keep_whole: the first column is never moved or cut (tables scripts read, such as
// `baseline list | grep "^nightly "`); may_stack: it may go on a line of its own above the row.
enum class FirstColumn { may_stack, keep_whole };
struct TableFit {
  std::string indent;  // starts every line
  FirstColumn first_column = FirstColumn::may_stack;
  // Rows at the top that are headings (a header, the rule under it): they name columns in the
  // "left out" line and take no part in the common prefix.
  std::size_t header_rows = 0;
  // Columns that may be left out when the table is too wide, the first listed first; a line
  // under the table names them and says that --wide shows them.
  std::vector<std::size_t> may_drop;
  // A column of names ("gemm/bf16/m:8192/..."): when too wide, their common prefix up to a '/'
  // is printed once above the table ("every benchmark below starts with gemm/") and left out of
  // the cells.
  std::optional<std::size_t> names;
};

// A table as lines of at most `width` columns (0: no limit): columns padded to their widest
// cell, two spaces apart. Never cuts a number, a sign, a date or a unit (issue 39). When too
// wide, in this order until it fits: the names column loses its common prefix; the last column
// (the long text: why, reason, note) wraps at spaces onto continuation lines, keeping at least
// 16 columns; the may_drop columns are left out; the first column goes on a line of its own
// (may_stack, 3 or more columns; the others indented 4 more); the widest columns wrap at spaces
// down to their longest word; words without a digit (names) are elided in the middle down to
// 10 columns. A table whose words with digits do not fit stays wider than `width`.
// A cell of only '-' (a rule under a header) is shortened, not wrapped.
// `line_rows`, when given, receives for each line the row it belongs to (lines above or below
// the table: the first or the last row).
std::vector<std::string> fit_table(const std::vector<std::vector<std::string>>& rows,
                                   std::size_t width, const TableFit& fit,
                                   std::vector<std::size_t>* line_rows = nullptr);
// The same with only an indent and the first column's rule (no columns dropped, no prefix).
std::vector<std::string> fit_table(const std::vector<std::vector<std::string>>& rows,
                                   std::size_t width, const std::string& indent = "",
                                   std::vector<std::size_t>* line_rows = nullptr,
                                   FirstColumn first_column = FirstColumn::may_stack);

// Every line of `text` longer than `width` (0: no limit) wrapped at spaces, continuation lines
// indented 4 more than the line's own indent.
std::string wrap_lines(const std::string& text, std::size_t width);

// `prefix` then `text` wrapped at spaces (wrap_words) to `width` columns (0: no limit), each
// continuation line under the text's first column ("  FAIL  gpu clocks  value wraps here"); when
// that leaves under 20 columns, 4 more than the prefix's own indent. Lines end in '\n'.
std::string hang(const std::string& prefix, const std::string& text, std::size_t width);

// A table for people: left-aligned columns separated by two spaces; header underlined with dashes,
// fitted to output_width() by fit_table (the first column kept whole unless told).
void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows,
                 FirstColumn first_column = FirstColumn::keep_whole);
// The same with columns that may be dropped or shortened (`fit.header_rows` is set here).
void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows, TableFit fit);

}  // namespace gpubench
