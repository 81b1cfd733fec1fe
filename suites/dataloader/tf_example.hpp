// A minimal hand-written protobuf encoder/decoder for `tf.train.Example`, the payload of a
// TFRecord (no protobuf dependency). The messages, from tensorflow/core/example/*.proto:
//   Example   { Features features = 1; }
//   Features  { map<string, Feature> feature = 1; }   // entry: { string key = 1; Feature value =
//   2; } Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
//                            Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }
//   FloatList { repeated float value = 1 [packed = true]; }
//   Int64List { repeated int64 value = 1 [packed = true]; }
// The encoder writes what TensorFlow's serializer writes for these (packed numeric lists, map
// entries in the order given); the decoder also accepts unpacked numeric lists and skips unknown
// fields, as protobuf parsers must. Byte views returned by the decoder point into its input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::dataloader {

struct ExampleFeature {
  enum class Kind { bytes_list, float_list, int64_list };
  std::string_view key;
  Kind kind = Kind::bytes_list;
  std::vector<std::string_view> bytes;  // bytes_list values (views into the payload)
  std::vector<float> floats;
  std::vector<std::int64_t> int64s;
};

// Thrown by parse_example for malformed input; offset is bytes from the payload's start.
class ProtoError : public std::runtime_error {
 public:
  ProtoError(const std::string& message, std::size_t offset)
      : std::runtime_error(message), m_offset(offset) {}
  std::size_t offset() const noexcept { return m_offset; }

 private:
  std::size_t m_offset;
};

// Serialised Example with one bytes_list feature `bytes_key` = {bytes} and one int64_list
// feature `int64_key` = {value}, in that order. Appends to `out`.
void append_example(std::string& out, std::string_view bytes_key,
                    std::span<const std::uint8_t> bytes, std::string_view int64_key,
                    std::int64_t value);

// Every feature of a serialised Example, in wire order. Throws ProtoError.
std::vector<ExampleFeature> parse_example(std::string_view payload);

// Base-128 varint helpers (exposed for tests).
void append_varint(std::string& out, std::uint64_t value);

}  // namespace gpubench::dataloader
