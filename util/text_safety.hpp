// Stored text on its way out, and user text on its way in (issue 43): one UTF-8 validator for
// every text input, and one sanitiser for every output read on a terminal (text, Markdown).
// Names, tags, notes, annotations, host and GPU names come from files anyone can write (a Google
// Benchmark file's "\u001b" is valid JSON), so an escape sequence, a carriage return or a bidi
// override in them must not move the cursor, rewrite a line or reorder what people read.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace gpubench {

// Byte offset of the first byte that does not start or continue a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF included); nullopt when valid.
std::optional<std::size_t> invalid_utf8_offset(std::string_view text);

// Throws Error(bad_input) "<what> is not valid UTF-8 (byte 0xFF at offset N)" when `text` is not.
// `what` names the input ("--tag 'k=...'", "prices file 'p.csv' line 3").
void check_utf8(std::string_view text, const std::string& what);

// `text` with every ill-formed byte replaced by U+FFFD (old databases may hold such strings;
// JSON cannot carry them).
std::string utf8_with_replacements(std::string_view text);

// `text` as a terminal may show it: C0 controls but tab and newline (ESC, CR, BEL, ...), DEL and
// C1 controls (U+0080-U+009F) become "\x1b", "\r", "\x7f", "\u009b"; bidi embeddings,
// overrides, isolates and marks (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) become
// "\u202e"; a byte that is not UTF-8 becomes "\xff". Tabs and newlines stay: they are layout.
// Idempotent: what it writes contains nothing it would change.
std::string visible_text(std::string_view text);
// True when visible_text(text) != text.
bool has_hidden_text(std::string_view text);

// An ostream that writes visible_text() of everything put into it to `target`, line by line
// (a UTF-8 sequence is never split). flush() passes what is complete; the destructor the rest.
class VisibleTextStream : public std::ostream {
 public:
  explicit VisibleTextStream(std::ostream& target);
  ~VisibleTextStream() override;
  VisibleTextStream(const VisibleTextStream&) = delete;
  VisibleTextStream& operator=(const VisibleTextStream&) = delete;

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(std::ostream& target) : m_target(target) {}
    void drain(bool all);

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

   private:
    std::ostream& m_target;
    std::string m_pending;  // bytes since the last newline
  };
  Buffer m_buffer;
};

}  // namespace gpubench
