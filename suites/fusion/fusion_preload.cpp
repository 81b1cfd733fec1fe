#include "suites/fusion/fusion_preload.hpp"

#include <algorithm>

namespace gpubench::fusion {

Variant kernels_of(Variant v) {
  return v == Variant::graph ? Variant::v1 : v;
}

std::vector<Variant> preload_variants(const FusionCase& c) {
  std::vector<Variant> out = {kernels_of(c.variant)};
  if (out.front() != Variant::v1) out.push_back(Variant::v1);
  return out;
}

std::vector<Variant> gated_variants(const FusionCase& c, bool baseline_missing) {
  std::vector<Variant> out = {kernels_of(c.variant)};
  if (baseline_missing && out.front() != Variant::v1) out.push_back(Variant::v1);
  return out;
}

std::vector<Variant> captured_variants(const FusionCase& c) {
  if (c.variant == Variant::graph) return {Variant::v1};
  return {};
}

int enqueued_kernels_per_call(const FusionCase& c, std::size_t captured_nodes) {
  const int listed = std::max(1, kernels_per_call(c));
  return std::max(listed, static_cast<int>(std::min<std::size_t>(captured_nodes, 1u << 20)));
}

}  // namespace gpubench::fusion
