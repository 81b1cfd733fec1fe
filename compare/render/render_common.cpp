// Escaping and number formatting shared by every renderer, plus the format dispatcher.
#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "compare/render/render.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {

std::optional<Format> format_from_string(std::string_view text) {
  if (text == "text") return Format::text;
  if (text == "md" || text == "markdown") return Format::md;
  if (text == "html") return Format::html;
  if (text == "json") return Format::json;
  if (text == "junit") return Format::junit;
  if (text == "csv") return Format::csv;
  return std::nullopt;
}

const char* to_string(Format format) {
  switch (format) {
    case Format::text:
      return "text";
    case Format::md:
      return "md";
    case Format::html:
      return "html";
    case Format::json:
      return "json";
    case Format::junit:
      return "junit";
    case Format::csv:
      return "csv";
  }
  return "text";
}

void render_comparison(const Comparison& cmp, Format format, std::ostream& out, bool colour,
                       const std::string& unchanged_csv, Detail detail) {
  switch (format) {
    case Format::text:
      render_text(cmp, out, colour, detail);
      break;
    case Format::md:
      render_markdown(cmp, out, unchanged_csv, detail);
      break;
    case Format::html:
      render_html(cmp, out, unchanged_csv);
      break;
    case Format::json:
      render_json(cmp, out);
      break;
    case Format::junit:
      render_junit(cmp, out);
      break;
    case Format::csv:
      render_csv(cmp, out);
      break;
  }
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters are not allowed in XML 1.0; show them as '?'.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string markdown_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '|':
      case '*':
      case '_':
      case '`':
      case '[':
      case ']':
      case '\\':
      case '#':
      case '~':
        out += '\\';
        out += c;
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string csv_field(std::string_view text) {
  bool quote = text.find_first_of(",\"\n\r") != std::string_view::npos;
  // A leading =, +, -, @ would be a formula in spreadsheets; quote and prefix it.
  bool formula = !text.empty() && (text[0] == '=' || text[0] == '+' || text[0] == '@');
  if (!quote && !formula) return std::string(text);
  std::string out = "\"";
  if (formula) out += '\'';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

const char* direction_text(results::Direction direction) {
  switch (direction) {
    case results::Direction::higher:
      return "higher";
    case results::Direction::lower:
      return "lower";
    case results::Direction::unknown:
      return "unknown";
  }
  return "unknown";
}

std::string change_pct(double ratio) {
  if (!std::isfinite(ratio)) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", (ratio - 1.0) * 100.0);
  return buf;
}

std::string format_ratio(double ratio) {
  if (!std::isfinite(ratio)) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ratio);
  return buf;
}

void write_output(const std::string& path, const std::string& text, std::ostream& out) {
  if (path.empty() || path == "-") {
    out << text;
    out.flush();
    return;
  }
  write_file_atomic(path, text);
}

void check_output_path(const std::string& path) {
  if (path.empty() || path == "-") return;
  std::filesystem::path p(path);
  std::filesystem::path dir =
      p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  std::error_code ec;
  if (std::filesystem::is_directory(p, ec)) {
    throw bad_input("cannot write output '" + path + "'", "it is a directory",
                    "give a file name with -o");
  }
  // A device, pipe or link is written in place (util/fs.hpp): its directory need not be ours.
  if (std::filesystem::is_symlink(p, ec) ||
      (std::filesystem::exists(p, ec) && !std::filesystem::is_regular_file(p, ec))) {
    return;
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    throw bad_input("cannot write output '" + path + "'",
                    "directory '" + dir.string() + "' does not exist",
                    "create it or choose another path");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw bad_input("cannot write output '" + path + "'",
                    "directory '" + dir.string() + "' is not writable", "choose another path");
  }
}

}  // namespace gpubench::compare
