#include "suites/common/l2_placement.hpp"

#include <cstdio>

namespace gpubench::suite {

L2Placement l2_placement(std::uint64_t working_set_bytes, std::uint64_t l2_bytes) {
  const double w = static_cast<double>(working_set_bytes);
  if (l2_bytes == 0) {
    return w >= 4.0 * static_cast<double>(k_largest_known_l2_bytes) ? L2Placement::dram
                                                                    : L2Placement::straddles;
  }
  const double l2 = static_cast<double>(l2_bytes);
  if (w <= 0.5 * l2) return L2Placement::resident;
  if (w < 4.0 * l2) return L2Placement::straddles;
  return L2Placement::dram;
}

const char* to_string(L2Placement placement) {
  switch (placement) {
    case L2Placement::resident:
      return "l2_resident";
    case L2Placement::straddles:
      return "l2_straddles";
    case L2Placement::dram:
      return "dram";
  }
  return "dram";
}

CacheMode cache_mode(L2Placement placement, std::uint64_t l2_bytes) {
  return placement == L2Placement::straddles && l2_bytes > 0 ? CacheMode::cold : CacheMode::hot;
}

const char* to_string(CacheMode mode) {
  return mode == CacheMode::cold ? "cache:cold" : "cache:hot";
}

std::string describe_l2_placement(std::uint64_t working_set_bytes, std::uint64_t l2_bytes) {
  constexpr double k_mib = 1024.0 * 1024.0;
  char text[128];
  if (l2_bytes == 0) {
    std::snprintf(text, sizeof text, "%s (working set %.1f MiB, L2 unknown)",
                  to_string(l2_placement(working_set_bytes, l2_bytes)),
                  static_cast<double>(working_set_bytes) / k_mib);
  } else {
    std::snprintf(text, sizeof text, "%s (working set %.1f MiB, L2 %.1f MiB)",
                  to_string(l2_placement(working_set_bytes, l2_bytes)),
                  static_cast<double>(working_set_bytes) / k_mib,
                  static_cast<double>(l2_bytes) / k_mib);
  }
  return text;
}

}  // namespace gpubench::suite
