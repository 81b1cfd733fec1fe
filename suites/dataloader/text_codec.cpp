#include "suites/dataloader/text_codec.hpp"

#include <array>
#include <cstring>

namespace gpubench::dataloader {
namespace {

// "0".."255" with their lengths, so encoding a value is one table load and a short copy.
struct ByteText {
  std::array<std::array<char, 4>, 256> text{};
  std::array<std::uint8_t, 256> length{};
  ByteText() {
    for (unsigned v = 0; v < 256; ++v) {
      char buf[4];
      int n = 0;
      if (v >= 100) buf[n++] = static_cast<char>('0' + v / 100);
      if (v >= 10) buf[n++] = static_cast<char>('0' + (v / 10) % 10);
      buf[n++] = static_cast<char>('0' + v % 10);
      std::memcpy(text[v].data(), buf, 4);
      length[v] = static_cast<std::uint8_t>(n);
    }
  }
};
const ByteText& byte_text() {
  static const ByteText t;
  return t;
}

// Appends "v0,v1,...,vN-1" to out.
void append_values(std::string& out, std::span<const std::uint8_t> pixels) {
  const auto& t = byte_text();
  const std::size_t old = out.size();
  out.resize(old + pixels.size() * 4);  // at most 3 digits + separator each
  char* p = out.data() + old;
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    std::memcpy(p, t.text[pixels[i]].data(), 4);  // copies 4, advances by the true length
    p += t.length[pixels[i]];
    *p++ = ',';
  }
  if (!pixels.empty()) --p;  // drop the last separator
  out.resize(static_cast<std::size_t>(p - out.data()));
}

[[noreturn]] void fail_at(const char* what, const char* begin, const char* p) {
  throw ParseError(what, static_cast<std::size_t>(p - begin));
}

inline bool is_digit(char c) {
  return static_cast<unsigned>(c - '0') <= 9u;
}

// Unsigned decimal of 1..10 digits that fits uint32.
std::uint32_t parse_label(const char*& p, const char* end, const char* begin) {
  if (p >= end || !is_digit(*p)) fail_at("expected a label (unsigned integer)", begin, p);
  std::uint64_t v = 0;
  int digits = 0;
  while (p < end && is_digit(*p)) {
    v = v * 10 + static_cast<unsigned>(*p - '0');
    ++p;
    if (++digits > 10 || v > 0xffffffffull)
      fail_at("label out of range (max 4294967295)", begin, p);
  }
  return static_cast<std::uint32_t>(v);
}

// Unsigned decimal 0..255, 1..3 digits. The hot loop of both parsers.
inline std::uint8_t parse_byte(const char*& p, const char* end, const char* begin) {
  if (p >= end || !is_digit(*p)) fail_at("expected a pixel value (0..255)", begin, p);
  const char* start = p;
  unsigned v = static_cast<unsigned>(*p++ - '0');
  if (p < end && is_digit(*p)) {
    v = v * 10 + static_cast<unsigned>(*p++ - '0');
    if (p < end && is_digit(*p)) {
      v = v * 10 + static_cast<unsigned>(*p++ - '0');
      if (p < end && is_digit(*p)) fail_at("pixel value has more than 3 digits", begin, p);
    }
  }
  if (v > 255) fail_at("pixel value out of range (max 255)", begin, start);
  return static_cast<std::uint8_t>(v);
}

// Accepts "\n", "\r\n" or the end of the range.
std::size_t finish_line(const char* p, const char* end, const char* begin) {
  if (p == end) return static_cast<std::size_t>(p - begin);
  if (*p == '\r') ++p;
  if (p < end && *p == '\n') return static_cast<std::size_t>(p + 1 - begin);
  fail_at("expected the end of the line", begin, p);
}

inline void skip_ws(const char*& p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
}

inline void expect(const char*& p, const char* end, char c, const char* what, const char* begin) {
  skip_ws(p, end);
  if (p >= end || *p != c) fail_at(what, begin, p);
  ++p;
}

}  // namespace

void append_csv_record(std::string& out, std::uint32_t label,
                       std::span<const std::uint8_t> pixels) {
  out += std::to_string(label);
  out += ',';
  append_values(out, pixels);
  out += '\n';
}

void append_jsonl_record(std::string& out, std::uint32_t label,
                         std::span<const std::uint8_t> pixels) {
  out += "{\"label\":";
  out += std::to_string(label);
  out += ",\"pixels\":[";
  append_values(out, pixels);
  out += "]}\n";
}

std::size_t parse_csv_record(const char* begin, const char* end, std::uint32_t& label,
                             std::span<std::uint8_t> pixels) {
  const char* p = begin;
  label = parse_label(p, end, begin);
  std::uint8_t* out = pixels.data();
  const std::size_t n = pixels.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (p >= end || *p != ',') {
      fail_at(i == 0 ? "expected ',' after the label" : "too few values in the record", begin, p);
    }
    ++p;
    out[i] = parse_byte(p, end, begin);
  }
  if (p < end && *p == ',') fail_at("too many values in the record", begin, p);
  return finish_line(p, end, begin);
}

std::size_t parse_jsonl_record(const char* begin, const char* end, std::uint32_t& label,
                               std::span<std::uint8_t> pixels) {
  const char* p = begin;
  bool have_label = false;
  bool have_pixels = false;
  expect(p, end, '{', "expected '{'", begin);
  for (int key = 0; key < 2; ++key) {
    if (key == 1)
      expect(p, end, ',', "expected ',' between keys (both \"label\" and \"pixels\" are required)",
             begin);
    expect(p, end, '"', "expected a key", begin);
    const char* k = p;
    while (p < end && *p != '"' && *p != '\\') ++p;
    if (p >= end || *p != '"') fail_at("unterminated or escaped key", begin, p);
    const std::string_view name(k, static_cast<std::size_t>(p - k));
    ++p;
    expect(p, end, ':', "expected ':' after the key", begin);
    skip_ws(p, end);
    if (name == "label") {
      if (have_label) fail_at("duplicate key \"label\"", begin, k);
      label = parse_label(p, end, begin);
      have_label = true;
    } else if (name == "pixels") {
      if (have_pixels) fail_at("duplicate key \"pixels\"", begin, k);
      if (p >= end || *p != '[') fail_at("expected '[' to open \"pixels\"", begin, p);
      ++p;
      std::uint8_t* out = pixels.data();
      const std::size_t n = pixels.size();
      for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) {
          if (p < end && *p == ',') {
            ++p;  // fast path: the generator writes no whitespace
          } else {
            skip_ws(p, end);
            if (p < end && *p == ']') fail_at("too few values in \"pixels\"", begin, p);
            if (p >= end || *p != ',') fail_at("expected ',' or ']' in \"pixels\"", begin, p);
            ++p;
          }
        }
        if (p < end && !is_digit(*p)) skip_ws(p, end);
        out[i] = parse_byte(p, end, begin);
      }
      skip_ws(p, end);
      if (p < end && *p == ',') fail_at("too many values in \"pixels\"", begin, p);
      if (p >= end || *p != ']') fail_at("expected ']' to close \"pixels\"", begin, p);
      ++p;
      have_pixels = true;
    } else {
      fail_at("unknown key (expected \"label\" or \"pixels\")", begin, k);
    }
  }
  expect(p, end, '}', "expected '}' after the two keys", begin);
  skip_ws(p, end);
  return finish_line(p, end, begin);
}

}  // namespace gpubench::dataloader
