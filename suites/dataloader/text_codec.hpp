// CSV and JSON-lines encoding of a sample, and the hand-written parsers that decode them.
//
// CSV record:   "<label>,<v0>,<v1>,...,<vN-1>\n"           (CRLF accepted; last line may lack \n)
// JSONL record: {"label":<L>,"pixels":[<v0>,...,<vN-1>]}\n  (any JSON whitespace between tokens,
//               keys in either order, each exactly once; other keys are refused)
// Values are decimal integers without sign: label 0..4294967295, pixels 0..255 (at most 3 digits).
// The parsers are strict about what the generator writes and say where they stopped: a
// ParseError carries the byte offset inside the parsed range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace gpubench::dataloader {

class ParseError : public std::runtime_error {
 public:
  ParseError(const std::string& message, std::size_t offset)
      : std::runtime_error(message), m_offset(offset) {}
  std::size_t offset() const noexcept { return m_offset; }  // bytes from the start of the range

 private:
  std::size_t m_offset;
};

void append_csv_record(std::string& out, std::uint32_t label, std::span<const std::uint8_t> pixels);
void append_jsonl_record(std::string& out, std::uint32_t label,
                         std::span<const std::uint8_t> pixels);

// Parse one record starting at `begin` (not past `end`) into `label` and `pixels` (whose size is
// the expected value count). Returns the bytes consumed, including the line ending.
std::size_t parse_csv_record(const char* begin, const char* end, std::uint32_t& label,
                             std::span<std::uint8_t> pixels);
std::size_t parse_jsonl_record(const char* begin, const char* end, std::uint32_t& label,
                               std::span<std::uint8_t> pixels);

}  // namespace gpubench::dataloader
