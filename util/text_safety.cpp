#include "util/text_safety.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "util/error.hpp"

namespace gpubench {
namespace {

// Length of the well-formed UTF-8 sequence at text[i] (1-4) and its code point; 0 when the byte
// there does not start one (Unicode 15, table 3-7: no overlong forms, no surrogates, no code
// point above U+10FFFF).
std::size_t utf8_sequence(std::string_view text, std::size_t i, uint32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (b(1) < lo || b(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (b(k) < 0x80 || b(k) > 0xbf) return 0;
  }
  cp = c & (0xff >> (n + 1));
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(k) & 0x3f);
  return n;
}

// True for the code points visible_text() writes as an escape.
bool hidden(uint32_t cp) {
  if (cp == '\t' || cp == '\n') return false;
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return true;
  return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e ||
         cp == 0x200f || cp == 0x061c;
}

void append_escape(std::string& out, uint32_t cp) {
  char buf[16];
  if (cp == '\r') {
    out += "\\r";
  } else if (cp < 0x80) {
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
    out += buf;
  } else {
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
    out += buf;
  }
}

}  // namespace

std::optional<std::size_t> invalid_utf8_offset(std::string_view text) {
  uint32_t cp = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i, cp);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

void check_utf8(std::string_view text, const std::string& what) {
  const std::optional<std::size_t> at = invalid_utf8_offset(text);
  if (!at) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X",
                static_cast<unsigned>(static_cast<unsigned char>(text[*at])));
  const std::size_t newlines = static_cast<std::size_t>(
      std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(*at), '\n'));
  const std::string line = text.find('\n') == std::string_view::npos
                               ? ""
                               : " (line " + std::to_string(newlines + 1) + ")";
  throw bad_input(what + " is not valid UTF-8",
                  std::string("byte ") + byte + " at offset " + std::to_string(*at) + line +
                      " does not belong to a UTF-8 character; gpubench stores and writes text "
                      "as UTF-8",
                  "convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8)");
}

std::string utf8_with_replacements(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  uint32_t cp = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i, cp);
    if (n == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string visible_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  uint32_t cp = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i, cp);
    if (n == 0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x",
                    static_cast<unsigned>(static_cast<unsigned char>(text[i])));
      out += buf;
      ++i;
      continue;
    }
    if (hidden(cp)) {
      append_escape(out, cp);
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

bool has_hidden_text(std::string_view text) {
  uint32_t cp = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i, cp);
    if (n == 0 || hidden(cp)) return true;
    i += n;
  }
  return false;
}

VisibleTextStream::VisibleTextStream(std::ostream& target)
    : std::ostream(nullptr), m_buffer(target) {
  rdbuf(&m_buffer);
}

VisibleTextStream::~VisibleTextStream() {
  m_buffer.drain(true);
  rdbuf(nullptr);
}

void VisibleTextStream::Buffer::drain(bool all) {
  // Whole lines only (unless told): a UTF-8 sequence never spans a newline.
  std::size_t n = m_pending.size();
  if (!all) {
    const std::size_t newline = m_pending.rfind('\n');
    if (newline == std::string::npos) return;
    n = newline + 1;
  }
  m_target << visible_text(std::string_view(m_pending).substr(0, n));
  m_pending.erase(0, n);
}

VisibleTextStream::Buffer::int_type VisibleTextStream::Buffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  m_pending += traits_type::to_char_type(c);
  if (c == '\n' && m_pending.size() >= (std::size_t{1} << 16)) drain(false);
  return c;
}

std::streamsize VisibleTextStream::Buffer::xsputn(const char* s, std::streamsize n) {
  m_pending.append(s, static_cast<std::size_t>(n));
  if (m_pending.size() >= (std::size_t{1} << 16)) drain(false);
  return n;
}

int VisibleTextStream::Buffer::sync() {
  drain(false);
  m_target.flush();
  return m_target ? 0 : -1;
}

}  // namespace gpubench
