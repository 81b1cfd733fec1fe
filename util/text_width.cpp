#include "util/text_width.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <ostream>

#include "util/strings.hpp"

namespace gpubench {

namespace {

std::atomic<std::size_t> g_width{0};

// Names (words without a digit) are elided down to this many columns, not further (issue 39):
// below it a name no longer reads as itself.
constexpr std::size_t k_name_floor = 10;

bool continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Byte offset of the first `columns` columns of `text` (whole code points).
std::size_t prefix_bytes(std::string_view text, std::size_t columns) {
  std::size_t i = 0, cols = 0;
  while (i < text.size()) {
    std::size_t next = i + 1;
    while (next < text.size() && continuation_byte(text[next])) ++next;
    if (cols + 1 > columns) break;
    ++cols;
    i = next;
  }
  return i;
}

std::string pad(const std::string& cell, std::size_t width) {
  const std::size_t w = display_width(cell);
  return w >= width ? cell : cell + std::string(width - w, ' ');
}

void rtrim(std::string& s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
}

}  // namespace

std::size_t output_width() {
  return g_width.load();
}

void set_output_width(std::size_t columns) {
  g_width.store(columns);
}

std::size_t width_from_environment(bool wide) {
  if (wide) return 0;
  if (const char* c = std::getenv("COLUMNS"); c != nullptr) {
    if (const auto n = parse_int(c); n && *n > 0) return static_cast<std::size_t>(*n);
  }
  winsize ws{};
  if (isatty(STDOUT_FILENO) == 1 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return ws.ws_col;
  }
  return 100;
}

std::size_t display_width(std::string_view text) {
  std::size_t cols = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\033') {  // CSI ... letter
      while (i < text.size() && !(text[i] >= '@' && text[i] <= '~' && text[i] != '[')) ++i;
      continue;
    }
    if (!continuation_byte(text[i])) ++cols;
  }
  return cols;
}

std::string elide_middle(const std::string& text, std::size_t width) {
  const std::size_t w = display_width(text);
  if (w <= width || holds_digit(text)) return text;  // a number is never cut (issue 39)
  if (width <= 1) return std::string("…").substr(0, width == 0 ? 0 : 3);
  const std::size_t head = (width - 1) / 2;
  const std::size_t tail = width - 1 - head;
  const std::size_t tail_start = prefix_bytes(text, w - tail);
  return text.substr(0, prefix_bytes(text, head)) + "…" + text.substr(tail_start);
}

bool holds_digit(std::string_view token) {
  return std::any_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> wrap_words(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  if (width == 0) return {text};
  std::string line;
  for (std::string word : split(text, ' ')) {
    if (word.empty()) continue;
    // A word longer than a line is never split (a run id, a date, an interval): a name is
    // elided in the middle, a word with a digit stays whole on a line of its own.
    word = elide_middle(word, std::max(width, k_name_floor));
    if (line.empty()) {
      line = word;
    } else if (display_width(line) + 1 + display_width(word) <= width) {
      line += " " + word;
    } else {
      lines.push_back(line);
      line = word;
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

namespace {

std::size_t continuation_indent(std::size_t want, const std::string& text, std::size_t width);

bool is_rule(const std::string& cell) {
  return !cell.empty() && cell.find_first_not_of('-') == std::string::npos;
}

// `cell` in lines of at most `width` columns: whole when it fits, a rule shortened, else wrapped
// at spaces (wrap_words: no word split).
std::vector<std::string> cell_lines(const std::string& cell, std::size_t width) {
  if (is_rule(cell)) return {cell.substr(0, std::min(cell.size(), width))};
  if (display_width(cell) <= width) return {cell};
  return wrap_words(cell, width);
}

// The widest word of a cell, and the widest word holding a digit (0 when none).
struct WordWidths {
  std::size_t any = 0;
  std::size_t digit = 0;
};
WordWidths word_widths(const std::string& cell) {
  WordWidths w;
  for (const std::string& word : split(cell, ' ')) {
    const std::size_t n = display_width(word);
    w.any = std::max(w.any, n);
    if (holds_digit(word)) w.digit = std::max(w.digit, n);
  }
  return w;
}

// The common prefix of `names` up to and including a '/', such that every name keeps something
// after it; "" when there is none.
std::string common_prefix(const std::vector<const std::string*>& names) {
  if (names.size() < 2) return "";
  std::string prefix = *names.front();
  for (const std::string* n : names) {
    std::size_t i = 0;
    while (i < prefix.size() && i < n->size() && prefix[i] == (*n)[i]) ++i;
    prefix.resize(i);
  }
  for (const std::string* n : names) {
    if (n->size() == prefix.size()) prefix.pop_back();  // every name keeps a part of its own
  }
  const std::size_t slash = prefix.rfind('/');
  return slash == std::string::npos ? "" : prefix.substr(0, slash + 1);
}

}  // namespace

std::vector<std::string> fit_table(const std::vector<std::vector<std::string>>& rows,
                                   std::size_t width, const std::string& indent,
                                   std::vector<std::size_t>* line_rows, FirstColumn first_column) {
  TableFit fit;
  fit.indent = indent;
  fit.first_column = first_column;
  return fit_table(rows, width, fit, line_rows);
}

std::vector<std::string> fit_table(const std::vector<std::vector<std::string>>& rows,
                                   std::size_t width, const TableFit& fit,
                                   std::vector<std::size_t>* line_rows) {
  std::vector<std::string> out;
  if (rows.empty()) return out;
  std::size_t columns = 0;
  for (const auto& r : rows) columns = std::max(columns, r.size());
  if (columns == 0) return out;
  std::vector<std::vector<std::string>> cells = rows;
  for (auto& r : cells) r.resize(columns);
  auto header = [&](std::size_t i) {
    return fit.header_rows > 0 && !cells[0][i].empty() ? cells[0][i]
                                                      : "column " + std::to_string(i + 1);
  };
  auto natural_widths = [&] {
    std::vector<std::size_t> n(columns, 0);
    for (const auto& r : cells) {
      for (std::size_t i = 0; i < columns; ++i) {
        if (!is_rule(r[i])) n[i] = std::max(n[i], display_width(r[i]));
      }
    }
    return n;
  };
  std::vector<std::size_t> natural = natural_widths();
  std::vector<bool> present(columns, true);
  std::size_t first = 0;
  std::string lead = fit.indent;
  auto last_present = [&] {
    std::size_t last = columns - 1;
    while (last > first && !present[last]) --last;
    return last;
  };
  auto total = [&](const std::vector<std::size_t>& w) {
    std::size_t t = display_width(lead), shown = 0;
    for (std::size_t i = first; i < columns; ++i) {
      if (!present[i]) continue;
      t += w[i];
      ++shown;
    }
    return t + (shown > 0 ? 2 * (shown - 1) : 0);
  };
  std::vector<std::string> above, below;
  std::vector<std::size_t> w = natural;
  if (width > 0 && total(w) > width) {
    // 1. Names lose their common prefix, printed once above the table.
    if (fit.names && *fit.names < columns) {
      std::vector<const std::string*> names;
      for (std::size_t r = fit.header_rows; r < cells.size(); ++r) {
        const std::string& n = cells[r][*fit.names];
        if (!n.empty() && !is_rule(n)) names.push_back(&n);
      }
      if (const std::string prefix = common_prefix(names); !prefix.empty()) {
        for (std::size_t r = fit.header_rows; r < cells.size(); ++r) {
          std::string& n = cells[r][*fit.names];
          if (n.rfind(prefix, 0) == 0) n = n.substr(prefix.size());
        }
        above.push_back(fit.indent + "every " + header(*fit.names) + " below starts with " +
                        prefix);
        natural = natural_widths();
        w = natural;
      }
    }
    std::vector<WordWidths> floor(columns);
    for (const auto& r : cells) {
      for (std::size_t i = 0; i < columns; ++i) {
        if (is_rule(r[i])) continue;
        const WordWidths ww = word_widths(r[i]);
        floor[i].any = std::max(floor[i].any, ww.any);
        floor[i].digit = std::max(floor[i].digit, ww.digit);
      }
    }
    // The narrowest a column gets: its widest word with a digit, names elided to k_name_floor.
    auto name_floor = [&](std::size_t i) {
      return std::max(floor[i].digit, std::min(floor[i].any, k_name_floor));
    };
    // 2. The last column (the long text) wraps under itself, keeping at least 16 columns.
    auto wrap_last = [&] {
      const std::size_t last = last_present();
      w[last] = natural[last];
      const std::size_t keep = std::min(natural[last], std::max<std::size_t>(16, name_floor(last)));
      const std::size_t others = total(w) - w[last];
      w[last] = std::max(keep, width > others ? width - others : 0);
      w[last] = std::min(w[last], natural[last]);
    };
    wrap_last();
    // 3. Columns the caller marked as optional are left out, named under the table.
    std::vector<std::string> dropped;
    for (std::size_t i : fit.may_drop) {
      if (total(w) <= width) break;
      if (i >= columns || !present[i] || (i == 0 && fit.first_column == FirstColumn::keep_whole))
        continue;
      present[i] = false;
      dropped.push_back(header(i));
      wrap_last();
    }
    if (!dropped.empty()) {
      below.push_back(fit.indent + "left out to fit the width: " + join(dropped, ", ") +
                      " (--wide shows them)");
    }
    // 4. The first column goes on a line of its own.
    std::size_t shown = 0;
    for (bool p : present) shown += p ? 1 : 0;
    if (total(w) > width && fit.first_column == FirstColumn::may_stack && shown > 2) {
      first = 1;
      lead = fit.indent + "    ";
      wrap_last();
    }
    // 5. The widest columns wrap at spaces, down to their longest word; 6. then names are
    // elided. Numbers are never cut: a column keeps its widest word holding a digit.
    const std::size_t from =
        fit.first_column == FirstColumn::keep_whole ? std::max<std::size_t>(first, 1) : first;
    for (int pass = 0; pass < 2; ++pass) {
      while (total(w) > width) {
        std::size_t widest = columns;
        for (std::size_t i = from; i < columns; ++i) {
          const std::size_t floor_i = pass == 0 ? floor[i].any : name_floor(i);
          if (present[i] && w[i] > floor_i && (widest == columns || w[i] > w[widest])) widest = i;
        }
        if (widest == columns) break;
        --w[widest];
      }
    }
  }
  const std::size_t last = last_present();
  const std::size_t lead_width = display_width(lead);
  for (const std::string& a : above) {
    for (const std::string& l : wrap_words(a, width)) out.push_back(l);
  }
  if (line_rows) line_rows->resize(out.size(), 0);
  for (std::size_t ri = 0; ri < cells.size(); ++ri) {
    const auto& r = cells[ri];
    if (first == 1) {
      const std::size_t room = width > lead_width ? width - lead_width + 4 : 0;
      out.push_back(fit.indent + (is_rule(r[0]) ? r[0].substr(0, std::min(r[0].size(), room))
                                                : elide_middle(r[0], room)));
    }
    std::vector<std::vector<std::string>> parts(columns);
    std::size_t height = 1;
    for (std::size_t i = first; i <= last; ++i) {
      if (!present[i]) continue;
      parts[i] = cell_lines(r[i], width > 0 ? w[i] : std::string::npos);
      height = std::max(height, parts[i].size());
    }
    for (std::size_t h = 0; h < height; ++h) {
      std::string line = lead;
      for (std::size_t i = first; i <= last; ++i) {
        if (!present[i]) continue;
        const std::string cell = h < parts[i].size() ? parts[i][h] : "";
        line += i == last ? cell : pad(cell, w[i]) + "  ";
      }
      rtrim(line);
      // A continuation holding only a long word of the last column (a path with a digit) moves
      // left rather than past the edge.
      if (h > 0 && width > 0 && display_width(line) > width && h < parts[last].size() &&
          line.find_first_not_of(' ') == line.size() - parts[last][h].size()) {
        line = std::string(continuation_indent(lead_width, parts[last][h], width), ' ') +
               parts[last][h];
      }
      if (h > 0 || first == 0 || line.size() > lead.size()) out.push_back(line);
    }
    if (line_rows) line_rows->resize(out.size(), ri);
  }
  for (const std::string& b : below) {
    for (const std::string& l : wrap_words(b, width)) out.push_back(l);
  }
  if (line_rows) line_rows->resize(out.size(), cells.size() - 1);
  return out;
}

namespace {

// The indent of a continuation line holding `text`: `want`, less when `text` would not fit in
// `width` after it (a long word with a digit moves left rather than past the edge).
std::size_t continuation_indent(std::size_t want, const std::string& text, std::size_t width) {
  const std::size_t w = display_width(text);
  return want + w <= width ? want : (width > w ? width - w : 0);
}

// One line longer than `width` in lines of at most `width` columns as far as its words allow.
// Words stay whole (names elided as wrap_words does); the spaces between two words that stay on
// one line are kept as they were, so a table row keeps its columns aligned as far as it goes.
std::vector<std::string> wrap_one(const std::string& line, std::size_t width) {
  const std::size_t lead = line.find_first_not_of(' ');
  if (lead == std::string::npos) return {line};
  const std::size_t more = lead + 4;  // continuation lines: 4 more than the line's own indent
  std::vector<std::string> out;
  std::string current(lead, ' ');
  bool empty = true;
  std::size_t i = lead;
  while (i < line.size()) {
    const std::size_t spaces_from = i;
    while (i < line.size() && line[i] == ' ') ++i;
    const std::size_t spaces = i - spaces_from;
    std::size_t end = line.find(' ', i);
    if (end == std::string::npos) end = line.size();
    if (end == i) break;
    const std::string word = elide_middle(line.substr(i, end - i),
                                          std::max(width > more ? width - more : 0, k_name_floor));
    i = end;
    if (!empty && display_width(current) + spaces + display_width(word) > width) {
      out.push_back(current);
      current = std::string(continuation_indent(more, word, width), ' ') + word;
    } else {
      current += (empty ? "" : std::string(spaces, ' ')) + word;
    }
    empty = false;
  }
  out.push_back(current);
  return out;
}

}  // namespace

std::string wrap_lines(const std::string& text, std::size_t width) {
  if (width == 0) return text;
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool newline = end != std::string::npos;
    if (!newline) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (display_width(line) <= width) {
      out += line;
    } else {
      const std::vector<std::string> parts = wrap_one(line, width);
      for (std::size_t p = 0; p < parts.size(); ++p) out += (p == 0 ? "" : "\n") + parts[p];
    }
    if (newline) out += '\n';
    start = end + 1;
  }
  return out;
}

std::string hang(const std::string& prefix, const std::string& text, std::size_t width) {
  const std::size_t at = display_width(prefix);
  if (width == 0 || at + display_width(text) <= width) return prefix + text + "\n";
  const std::size_t own = prefix.find_first_not_of(' ') == std::string::npos
                              ? prefix.size()
                              : prefix.find_first_not_of(' ');
  // Under the text when 20 columns are left it; else 4 in from the prefix's own indent, the prefix
  // then on a line of its own (a prefix no wider than that indent stays where it is).
  const std::size_t under = at + 20 <= width || own + 4 >= at ? at : own + 4;
  std::string out;
  if (under < at) {  // the prefix leaves too little: it takes a line of its own
    out = prefix;
    rtrim(out);
    out += "\n";
  }
  const std::vector<std::string> lines = wrap_words(text, width > under ? width - under : 1);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += (i == 0 && under == at ? prefix
                                  : std::string(continuation_indent(under, lines[i], width), ' ')) +
           lines[i] + "\n";
  }
  return out;
}

void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows, FirstColumn first_column) {
  TableFit fit;
  fit.first_column = first_column;
  print_table(out, header, rows, fit);
}

void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows, TableFit fit) {
  // Fitted to the output width (issue 26, 39): cells wrap at spaces, numbers stay whole.
  std::vector<std::vector<std::string>> all = {header, {}};
  for (const std::string& h : header) {
    std::size_t w = display_width(h);
    for (const auto& row : rows) {
      const std::size_t i = all[1].size();
      if (i < row.size()) w = std::max(w, display_width(row[i]));
    }
    all[1].emplace_back(w, '-');
  }
  all.insert(all.end(), rows.begin(), rows.end());
  fit.header_rows = 2;
  // By default the first column (a name, a run id) stays whole and first: scripts grep tables.
  for (const std::string& line : fit_table(all, output_width(), fit)) out << line << '\n';
}

}  // namespace gpubench
