// JSON written as it is produced, byte for byte what nlohmann::json::dump(indent) writes for the
// same document, without building the document first (issue 16: a 200,000-benchmark run is
// gigabytes as a DOM). Numbers use nlohmann's own shortest round-trip formatting, strings its
// escaping; a string that is not UTF-8 is written with U+FFFD in place of its bad bytes (as
// json_text below; issue 43: a stored string from before inputs were checked). Objects are written
// in the order keys are given: write them sorted (std::less on the key) to match a nlohmann::json
// object, whose keys are sorted.
//
// Output is buffered and handed to the stream in blocks of about 1 MiB; call finish() at the end
// (the destructor does not write: a stream error must be seen by the caller). Not thread-safe.
//
//   JsonWriter w(out);
//   w.begin_object().key("a").number(1.5).key("b").begin_array().string("x").end_array();
//   w.end_object().finish();  // {"a": 1.5, "b": ["x"]} pretty-printed with indent 2
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

// `v` as JSON text (nlohmann's dump with `indent`), a string that is not UTF-8 written with
// U+FFFD in place of its bad bytes: a database written before inputs were checked (issue 43)
// may hold one, and an output must not die on it.
std::string json_text(const nlohmann::json& v, int indent = -1);

class JsonWriter {
 public:
  // indent: spaces per level, as nlohmann::json::dump(indent) (>= 0; 0 still breaks lines).
  explicit JsonWriter(std::ostream& out, int indent = 2);
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // The next member's key (inside an object only).
  JsonWriter& key(std::string_view name);

  JsonWriter& string(std::string_view text);
  JsonWriter& number(double value);  // NaN and infinities are written as null, as nlohmann does
  JsonWriter& integer(int64_t value);
  JsonWriter& unsigned_integer(uint64_t value);
  JsonWriter& boolean(bool value);
  JsonWriter& null();
  // A whole value given as a (small) nlohmann document.
  JsonWriter& value(const nlohmann::json& value);

  template <typename T>
  JsonWriter& optional_integer(const std::optional<T>& v) {
    return v ? integer(static_cast<int64_t>(*v)) : null();
  }
  JsonWriter& number_array(const std::vector<double>& values);
  JsonWriter& integer_array(const std::vector<int>& values);

  // Writes what is buffered to the stream and flushes it. Call once the document is complete.
  void finish();

 private:
  struct Frame {
    bool array = false;
    bool empty = true;
  };
  void before_value();  // separator and indentation of the next array element
  void indent_to(std::size_t depth);
  void write_string(std::string_view text);  // quoted and escaped, no separator
  void maybe_flush();

  std::ostream& m_out;
  unsigned m_indent;
  std::string m_buf;
  std::vector<Frame> m_stack;
  bool m_after_key = false;
  std::unique_ptr<nlohmann::detail::serializer<nlohmann::json>> m_serializer;
};

}  // namespace gpubench
