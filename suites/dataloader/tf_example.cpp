#include "suites/dataloader/tf_example.hpp"

#include <cstring>

namespace gpubench::dataloader {
namespace {

// Wire types (protobuf encoding): 0 varint, 1 64-bit, 2 length-delimited, 5 32-bit.
constexpr int k_varint = 0;
constexpr int k_fixed64 = 1;
constexpr int k_len = 2;
constexpr int k_fixed32 = 5;

void append_tag(std::string& out, int field, int wire_type) {
  append_varint(out,
                static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(wire_type));
}

std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// A cursor over [begin, end) of the payload; offsets in errors are from the payload's start.
class Reader {
 public:
  Reader(std::string_view all, std::size_t begin, std::size_t end)
      : m_all(all), m_pos(begin), m_end(end) {}
  bool done() const { return m_pos >= m_end; }
  std::size_t pos() const { return m_pos; }

  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (m_pos >= m_end) throw ProtoError("varint runs past the end of its message", m_pos);
      const auto b = static_cast<std::uint8_t>(m_all[m_pos++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw ProtoError("varint longer than 10 bytes", m_pos);
  }
  // A length-delimited field's bounds; the cursor moves past it.
  std::pair<std::size_t, std::size_t> length_delimited() {
    const std::size_t at = m_pos;
    const std::uint64_t n = varint();
    if (n > m_end - m_pos) {
      throw ProtoError("field length " + std::to_string(n) + " runs past the end of its message",
                       at);
    }
    const std::size_t b = m_pos;
    m_pos += static_cast<std::size_t>(n);
    return {b, m_pos};
  }
  void fixed(std::size_t n, void* dest) {
    if (n > m_end - m_pos) throw ProtoError("fixed-width value runs past the end", m_pos);
    std::memcpy(dest, m_all.data() + m_pos, n);
    m_pos += n;
  }
  void skip(int wire_type) {
    const std::size_t at = m_pos;
    std::uint64_t scratch = 0;
    switch (wire_type) {
      case k_varint:
        varint();
        return;
      case k_fixed64:
        fixed(8, &scratch);
        return;
      case k_len:
        length_delimited();
        return;
      case k_fixed32:
        fixed(4, &scratch);
        return;
      default:
        throw ProtoError("unsupported wire type " + std::to_string(wire_type), at);
    }
  }
  // Reads a tag; returns (field, wire type).
  std::pair<std::uint64_t, int> tag() {
    const std::size_t at = m_pos;
    const std::uint64_t t = varint();
    if ((t >> 3) == 0) throw ProtoError("field number 0", at);
    return {t >> 3, static_cast<int>(t & 7)};
  }
  std::string_view view(std::pair<std::size_t, std::size_t> r) const {
    return m_all.substr(r.first, r.second - r.first);
  }
  std::string_view all() const { return m_all; }

 private:
  std::string_view m_all;
  std::size_t m_pos;
  std::size_t m_end;
};

void parse_list(Reader& outer, std::pair<std::size_t, std::size_t> range, ExampleFeature& f) {
  Reader r(outer.all(), range.first, range.second);
  while (!r.done()) {
    const std::size_t at = r.pos();
    const auto [field, wt] = r.tag();
    if (field != 1) {
      r.skip(wt);
      continue;
    }
    switch (f.kind) {
      case ExampleFeature::Kind::bytes_list:
        if (wt != k_len) throw ProtoError("BytesList value is not length-delimited", at);
        f.bytes.push_back(r.view(r.length_delimited()));
        break;
      case ExampleFeature::Kind::int64_list:
        if (wt == k_varint) {
          f.int64s.push_back(static_cast<std::int64_t>(r.varint()));
        } else if (wt == k_len) {
          const auto packed = r.length_delimited();
          Reader p(r.all(), packed.first, packed.second);
          while (!p.done()) f.int64s.push_back(static_cast<std::int64_t>(p.varint()));
        } else {
          throw ProtoError("Int64List value has wire type " + std::to_string(wt), at);
        }
        break;
      case ExampleFeature::Kind::float_list:
        if (wt == k_fixed32) {
          float v = 0;
          r.fixed(4, &v);
          f.floats.push_back(v);
        } else if (wt == k_len) {
          const auto packed = r.length_delimited();
          if ((packed.second - packed.first) % 4 != 0) {
            throw ProtoError("packed FloatList is not a multiple of 4 bytes", packed.first);
          }
          Reader p(r.all(), packed.first, packed.second);
          while (!p.done()) {
            float v = 0;
            p.fixed(4, &v);
            f.floats.push_back(v);
          }
        } else {
          throw ProtoError("FloatList value has wire type " + std::to_string(wt), at);
        }
        break;
    }
  }
}

}  // namespace

void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void append_example(std::string& out, std::string_view bytes_key,
                    std::span<const std::uint8_t> bytes, std::string_view int64_key,
                    std::int64_t value) {
  // Sizes inside out: every length-delimited field is prefixed by its byte count.
  const std::size_t bytes_list = 1 + varint_size(bytes.size()) + bytes.size();  // BytesList
  const std::size_t bytes_feature = 1 + varint_size(bytes_list) + bytes_list;   // Feature
  const std::size_t bytes_entry = 1 + varint_size(bytes_key.size()) + bytes_key.size() + 1 +
                                  varint_size(bytes_feature) + bytes_feature;  // map entry
  const auto v =
      static_cast<std::uint64_t>(value);  // int64 varint: two's complement, 10 bytes if < 0
  const std::size_t packed = varint_size(v);
  const std::size_t int64_list = 1 + varint_size(packed) + packed;
  const std::size_t int64_feature = 1 + varint_size(int64_list) + int64_list;
  const std::size_t int64_entry = 1 + varint_size(int64_key.size()) + int64_key.size() + 1 +
                                  varint_size(int64_feature) + int64_feature;
  const std::size_t features =
      1 + varint_size(bytes_entry) + bytes_entry + 1 + varint_size(int64_entry) + int64_entry;
  out.reserve(out.size() + 1 + varint_size(features) + features);

  append_tag(out, 1, k_len);  // Example.features
  append_varint(out, features);
  append_tag(out, 1, k_len);  // Features.feature entry
  append_varint(out, bytes_entry);
  append_tag(out, 1, k_len);  // entry.key
  append_varint(out, bytes_key.size());
  out.append(bytes_key);
  append_tag(out, 2, k_len);  // entry.value: Feature
  append_varint(out, bytes_feature);
  append_tag(out, 1, k_len);  // Feature.bytes_list
  append_varint(out, bytes_list);
  append_tag(out, 1, k_len);  // BytesList.value
  append_varint(out, bytes.size());
  out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());

  append_tag(out, 1, k_len);
  append_varint(out, int64_entry);
  append_tag(out, 1, k_len);
  append_varint(out, int64_key.size());
  out.append(int64_key);
  append_tag(out, 2, k_len);
  append_varint(out, int64_feature);
  append_tag(out, 3, k_len);  // Feature.int64_list
  append_varint(out, int64_list);
  append_tag(out, 1, k_len);  // Int64List.value, packed
  append_varint(out, packed);
  append_varint(out, v);
}

std::vector<ExampleFeature> parse_example(std::string_view payload) {
  std::vector<ExampleFeature> out;
  Reader example(payload, 0, payload.size());
  while (!example.done()) {
    const std::size_t at = example.pos();
    const auto [field, wt] = example.tag();
    if (field != 1) {
      example.skip(wt);
      continue;
    }
    if (wt != k_len) throw ProtoError("Example.features is not length-delimited", at);
    const auto fr = example.length_delimited();
    Reader features(payload, fr.first, fr.second);
    while (!features.done()) {
      const std::size_t eat = features.pos();
      const auto [ffield, fwt] = features.tag();
      if (ffield != 1) {
        features.skip(fwt);
        continue;
      }
      if (fwt != k_len) throw ProtoError("Features.feature is not length-delimited", eat);
      const auto er = features.length_delimited();
      Reader entry(payload, er.first, er.second);
      ExampleFeature f;
      bool have_value = false;
      while (!entry.done()) {
        const std::size_t vat = entry.pos();
        const auto [efield, ewt] = entry.tag();
        if (efield == 1 && ewt == k_len) {
          f.key = entry.view(entry.length_delimited());
        } else if (efield == 2 && ewt == k_len) {
          const auto vr = entry.length_delimited();
          Reader feature(payload, vr.first, vr.second);
          while (!feature.done()) {
            const std::size_t kat = feature.pos();
            const auto [kind, kwt] = feature.tag();
            if (kind < 1 || kind > 3) {
              feature.skip(kwt);
              continue;
            }
            if (kwt != k_len) throw ProtoError("Feature kind is not length-delimited", kat);
            f.kind = kind == 1   ? ExampleFeature::Kind::bytes_list
                     : kind == 2 ? ExampleFeature::Kind::float_list
                                 : ExampleFeature::Kind::int64_list;
            have_value = true;
            parse_list(feature, feature.length_delimited(), f);
          }
        } else if (efield <= 2) {
          throw ProtoError("feature map entry field " + std::to_string(efield) + " has wire type " +
                               std::to_string(ewt),
                           vat);
        } else {
          entry.skip(ewt);
        }
      }
      if (!have_value)
        throw ProtoError("feature '" + std::string(f.key) + "' has no value", er.first);
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace gpubench::dataloader
