// cuBLASLt algorithms read from labels (algorithms.hpp).
#include "compare/algorithms.hpp"

#include <algorithm>
#include <array>

#include "util/strings.hpp"

namespace gpubench::compare {

namespace {

// The fields that name the kernel configuration, in the order the gemm suite writes them.
constexpr std::array<std::string_view, 5> k_fields = {"algo", "tile", "stages", "splitk",
                                                      "swizzle"};

// Sorted, without empty strings and repeats.
std::vector<std::string> distinct(std::vector<std::string> v) {
  v.erase(std::remove(v.begin(), v.end(), std::string()), v.end());
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

std::string cublaslt_algorithm(std::string_view label) {
  if (label.find("algo=") == std::string_view::npos) return {};
  std::array<std::string, k_fields.size()> values;
  std::size_t start = 0;
  while (start < label.size()) {
    std::size_t end = label.find(' ', start);
    if (end == std::string_view::npos) end = label.size();
    const std::string_view token = label.substr(start, end - start);
    start = end + 1;
    const std::size_t eq = token.find('=');
    if (eq == std::string_view::npos || eq + 1 == token.size()) continue;
    for (std::size_t i = 0; i < k_fields.size(); ++i) {
      if (token.substr(0, eq) == k_fields[i] && values[i].empty()) {
        values[i] = std::string(token.substr(eq + 1));
      }
    }
  }
  if (values[0].empty()) return {};
  std::string out;
  for (std::size_t i = 0; i < k_fields.size(); ++i) {
    if (values[i].empty()) continue;
    if (!out.empty()) out += ' ';
    out += std::string(k_fields[i]) + "=" + values[i];
  }
  return out;
}

std::string algorithm_difference(std::vector<std::string> base,
                                 std::vector<std::string> candidate) {
  base = distinct(std::move(base));
  candidate = distinct(std::move(candidate));
  if (base.empty() || candidate.empty() || base == candidate) return {};
  return "different cuBLASLt algorithm: " + join(base, " / ") + " vs " + join(candidate, " / ");
}

}  // namespace gpubench::compare
