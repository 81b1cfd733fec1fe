#include "util/json_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <ostream>

namespace gpubench {

namespace {
constexpr std::size_t k_flush_bytes = std::size_t{1} << 20;

// True when nlohmann would write the text unchanged: printable ASCII without '"' or '\'.
bool plain_ascii(std::string_view text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') return false;
  }
  return true;
}
}  // namespace

std::string json_text(const nlohmann::json& v, int indent) {
  return v.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

JsonWriter::JsonWriter(std::ostream& out, int indent)
    : m_out(out),
      m_indent(static_cast<unsigned>(indent < 0 ? 0 : indent)),
      m_serializer(std::make_unique<nlohmann::detail::serializer<nlohmann::json>>(
          nlohmann::detail::output_adapter<char, std::string>(m_buf), ' ',
          nlohmann::json::error_handler_t::replace)) {
  m_buf.reserve(k_flush_bytes + (k_flush_bytes >> 2));
}

JsonWriter::~JsonWriter() = default;

void JsonWriter::indent_to(std::size_t depth) {
  m_buf.append(depth * m_indent, ' ');
}

void JsonWriter::before_value() {
  if (m_after_key) {  // an object member: key() wrote the separator
    m_after_key = false;
    return;
  }
  if (m_stack.empty()) return;  // the document itself
  Frame& f = m_stack.back();
  m_buf += f.empty ? "\n" : ",\n";
  f.empty = false;
  indent_to(m_stack.size());
}

void JsonWriter::maybe_flush() {
  if (m_buf.size() < k_flush_bytes) return;
  m_out.write(m_buf.data(), static_cast<std::streamsize>(m_buf.size()));
  m_buf.clear();
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  m_buf += '{';
  m_stack.push_back({false, true});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  m_buf += '[';
  m_stack.push_back({true, true});
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  const bool empty = m_stack.back().empty;
  m_stack.pop_back();
  if (!empty) {
    m_buf += '\n';
    indent_to(m_stack.size());
  }
  m_buf += '}';
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  const bool empty = m_stack.back().empty;
  m_stack.pop_back();
  if (!empty) {
    m_buf += '\n';
    indent_to(m_stack.size());
  }
  m_buf += ']';
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  Frame& f = m_stack.back();
  m_buf += f.empty ? "\n" : ",\n";
  f.empty = false;
  indent_to(m_stack.size());
  write_string(name);
  m_buf += ": ";
  m_after_key = true;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
  before_value();
  write_string(text);
  return *this;
}

void JsonWriter::write_string(std::string_view text) {
  if (plain_ascii(text)) {
    m_buf += '"';
    m_buf.append(text);
    m_buf += '"';
  } else {
    m_serializer->dump(nlohmann::json(std::string(text)), true, false, m_indent, 0);
  }
}

JsonWriter& JsonWriter::number(double v) {
  before_value();
  if (!std::isfinite(v)) {
    m_buf += "null";
    return *this;
  }
  std::array<char, 64> buf{};
  char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
  m_buf.append(buf.data(), end);
  return *this;
}

JsonWriter& JsonWriter::integer(int64_t v) {
  before_value();
  std::array<char, 24> buf{};
  auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  m_buf.append(buf.data(), r.ptr);
  return *this;
}

JsonWriter& JsonWriter::unsigned_integer(uint64_t v) {
  before_value();
  std::array<char, 24> buf{};
  auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  m_buf.append(buf.data(), r.ptr);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool v) {
  before_value();
  m_buf += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  m_buf += "null";
  return *this;
}

JsonWriter& JsonWriter::value(const nlohmann::json& v) {
  before_value();
  m_serializer->dump(v, true, false, m_indent, static_cast<unsigned>(m_stack.size()) * m_indent);
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::number_array(const std::vector<double>& values) {
  begin_array();
  for (double v : values) number(v);
  return end_array();
}

JsonWriter& JsonWriter::integer_array(const std::vector<int>& values) {
  begin_array();
  for (int v : values) integer(v);
  return end_array();
}

void JsonWriter::finish() {
  m_out.write(m_buf.data(), static_cast<std::streamsize>(m_buf.size()));
  m_buf.clear();
  m_out.flush();
}

}  // namespace gpubench
