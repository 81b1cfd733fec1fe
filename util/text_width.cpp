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
  if (w <= width) return text;
  if (width <= 1) return std::string("…").substr(0, width == 0 ? 0 : 3);
  const std::size_t head = (width - 1) / 2;
  const std::size_t tail = width - 1 - head;
  const std::size_t tail_start = prefix_bytes(text, w - tail);
  return text.substr(0, prefix_bytes(text, head)) + "…" + text.substr(tail_start);
}

std::vector<std::string> wrap_words(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  if (width == 0) return {text};
  std::string line;
  for (std::string word : split(text, ' ')) {
    if (word.empty()) continue;
    while (display_width(word) > width) {  // a word longer than a line: cut it
      if (!line.empty()) {
        lines.push_back(line);
        line.clear();
      }
      const std::size_t cut = prefix_bytes(word, width);
      lines.push_back(word.substr(0, cut));
      word = word.substr(cut);
    }
    if (word.empty()) continue;
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

std::vector<std::string> fit_table(const std::vector<std::vector<std::string>>& rows,
                                   std::size_t width, const std::string& indent,
                                   std::vector<std::size_t>* line_rows, FirstColumn first_column) {
  std::vector<std::string> out;
  if (rows.empty()) return out;
  std::size_t columns = 0;
  for (const auto& r : rows) columns = std::max(columns, r.size());
  std::vector<std::size_t> natural(columns, 0);
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      natural[i] = std::max(natural[i], display_width(r[i]));
    }
  }
  const std::size_t last = columns - 1;
  const std::size_t keep_last = std::min<std::size_t>(natural[last], 16);
  auto sum = [&](const std::vector<std::size_t>& w, std::size_t from, std::size_t lead) {
    std::size_t t = lead + 2 * (columns - 1 - from);
    for (std::size_t i = from; i < columns; ++i) t += w[i];
    return t;
  };
  // Too wide even with the last column wrapped: the first column (the name) goes on a line of its
  // own above the others, which are indented 4 more ("stacked").
  const bool stacked = width > 0 && columns > 2 && first_column == FirstColumn::may_stack &&
                       sum(natural, 0, display_width(indent)) - natural[last] + keep_last > width;
  const std::size_t first = stacked ? 1 : 0;
  const std::string lead = stacked ? indent + "    " : indent;
  std::vector<std::size_t> w = natural;
  if (width > 0 && sum(w, first, display_width(lead)) > width) {
    const std::size_t others = sum(w, first, display_width(lead)) - w[last];
    w[last] = others + keep_last <= width ? width - others : keep_last;
    // Still too wide: cut the widest other columns, one column at a time, down to 8.
    while (sum(w, first, display_width(lead)) > width) {
      std::size_t widest = columns;
      const std::size_t from = first_column == FirstColumn::keep_whole ? 1 : first;
      for (std::size_t i = from; i + 1 < columns; ++i) {
        if (w[i] > 8 && (widest == columns || w[i] > w[widest])) widest = i;
      }
      if (widest == columns) break;
      --w[widest];
    }
  }
  const std::size_t name_width = width > display_width(indent) ? width - display_width(indent) : 0;
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const auto& r = rows[ri];
    if (stacked) {
      const std::string name = r.empty() ? std::string() : r[0];
      const bool rule = !name.empty() && name.find_first_not_of('-') == std::string::npos;
      out.push_back(indent + (rule ? name.substr(0, std::min(name.size(), name_width))
                                   : elide_middle(name, name_width)));
    }
    std::string line = lead;
    std::vector<std::string> tail;
    for (std::size_t i = first; i < columns; ++i) {
      std::string cell = i < r.size() ? r[i] : "";
      if (i == last) {
        const bool rule = !cell.empty() && cell.find_first_not_of('-') == std::string::npos;
        if (rule && width > 0) {
          cell = cell.substr(0, w[i]);
        } else if (width > 0 && display_width(cell) > w[i]) {
          tail = wrap_words(cell, w[i]);
          cell = tail.front();
          tail.erase(tail.begin());
        }
        line += cell;
      } else {
        const bool rule = !cell.empty() && cell.find_first_not_of('-') == std::string::npos;
        if (width > 0) cell = rule ? cell.substr(0, w[i]) : elide_middle(cell, w[i]);
        line += pad(cell, w[i]) + "  ";
      }
    }
    rtrim(line);
    if (!stacked || line.size() > lead.size()) out.push_back(line);
    const std::string under(sum(w, first, display_width(lead)) - w[last], ' ');
    for (const std::string& t : tail) out.push_back(under + t);
    if (line_rows) line_rows->resize(out.size(), ri);
  }
  return out;
}

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
      const std::size_t lead = line.find_first_not_of(' ');
      const std::string indent(lead == std::string::npos ? 0 : lead, ' ');
      const std::string more = indent + "    ";
      // The first line keeps its indent; later ones get 4 more.
      std::vector<std::string> parts = wrap_words(
          line.substr(indent.size()), width > more.size() + 20 ? width - more.size() : 20);
      for (std::size_t i = 0; i < parts.size(); ++i) {
        out += (i == 0 ? indent : "\n" + more) + parts[i];
      }
    }
    if (newline) out += '\n';
    start = end + 1;
  }
  return out;
}

void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows, FirstColumn first_column) {
  // Fitted to the output width (issue 26): the last column wraps, the widest others are cut.
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
  // By default the first column (a name, a run id) stays whole and first: scripts grep tables.
  for (const std::string& line : fit_table(all, output_width(), "", nullptr, first_column)) {
    out << line << '\n';
  }
}

}  // namespace gpubench
