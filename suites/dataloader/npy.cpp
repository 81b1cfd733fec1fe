#include "suites/dataloader/npy.hpp"

#include <cstring>

#include "util/error.hpp"

namespace gpubench::dataloader {

std::string make_npy_header(const std::string& descr, const std::vector<std::uint64_t>& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    dict += std::to_string(shape[i]);
    if (shape.size() == 1 || i + 1 < shape.size()) dict += ",";
    if (i + 1 < shape.size()) dict += " ";
  }
  dict += "), }";
  // magic(6) + version(2) + length(2) + dict + padding + '\n' is a multiple of 64.
  std::size_t total = 10 + dict.size() + 1;
  std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  auto len = static_cast<std::uint16_t>(dict.size());
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>(len >> 8);
  out += dict;
  return out;
}

namespace {
[[noreturn]] void bad(const std::string& file, const std::string& why) {
  throw bad_input("cannot read .npy file '" + file + "'", why,
                  "delete the dataset directory so it is regenerated");
}

std::string field(std::string_view dict, std::string_view key, const std::string& file) {
  std::string pattern = "'" + std::string(key) + "':";
  auto pos = dict.find(pattern);
  if (pos == std::string_view::npos) bad(file, "header has no '" + std::string(key) + "'");
  pos += pattern.size();
  while (pos < dict.size() && dict[pos] == ' ') ++pos;
  return std::string(dict.substr(pos));
}
}  // namespace

NpyHeader parse_npy_header(std::string_view bytes, const std::string& file) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
    bad(file, "missing the \\x93NUMPY magic");
  }
  const auto major = static_cast<unsigned char>(bytes[6]);
  std::uint64_t header_len = 0;
  std::uint64_t prefix = 10;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad(file, "truncated header");
    for (int i = 0; i < 4; ++i)
      header_len |= std::uint64_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
    prefix = 12;
  } else {
    bad(file, "unsupported format version " + std::to_string(major));
  }
  if (bytes.size() < prefix + header_len) bad(file, "truncated header");
  std::string_view dict = bytes.substr(prefix, header_len);
  NpyHeader h;
  h.data_offset = prefix + header_len;
  std::string descr = field(dict, "descr", file);
  if (descr.size() < 2 || descr[0] != '\'') bad(file, "malformed 'descr'");
  h.descr = descr.substr(1, descr.find('\'', 1) - 1);
  h.fortran_order = field(dict, "fortran_order", file).rfind("True", 0) == 0;
  std::string shape = field(dict, "shape", file);
  if (shape.empty() || shape[0] != '(') bad(file, "malformed 'shape'");
  std::size_t i = 1;
  while (i < shape.size() && shape[i] != ')') {
    if (shape[i] >= '0' && shape[i] <= '9') {
      std::uint64_t v = 0;
      while (i < shape.size() && shape[i] >= '0' && shape[i] <= '9')
        v = v * 10 + static_cast<std::uint64_t>(shape[i++] - '0');
      h.shape.push_back(v);
    } else {
      ++i;
    }
  }
  if (i >= shape.size()) bad(file, "unterminated 'shape'");
  return h;
}

}  // namespace gpubench::dataloader
