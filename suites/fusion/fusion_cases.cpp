#include "suites/fusion/fusion_cases.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/bias_gelu/bias_gelu.hpp"
#include "kernels/layernorm/layernorm.hpp"
#include "kernels/softmax/softmax.hpp"
#include "suites/common/plan.hpp"
#include "suites/common/sampling.hpp"

namespace gpubench::fusion {

using suite::Profile;

namespace {

namespace kb = kernels::bias_gelu;
namespace kl = kernels::layernorm;
namespace ks = kernels::softmax;

std::optional<kb::Version> bias_gelu_version(Variant v) {
  switch (v) {
    case Variant::v1:
    case Variant::graph:
      return kb::Version::v1;
    case Variant::v2:
      return kb::Version::v2;
    case Variant::v3:
      return kb::Version::v3;
    case Variant::epilogue:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<kl::Version> layernorm_version(Variant v) {
  switch (v) {
    case Variant::v1:
    case Variant::graph:
      return kl::Version::v1;
    case Variant::v2:
      return kl::Version::v2;
    case Variant::v3:
      return kl::Version::v3;
    case Variant::epilogue:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<ks::Version> softmax_version(Variant v) {
  switch (v) {
    case Variant::v1:
    case Variant::graph:
      return ks::Version::v1;
    case Variant::v2:
      return ks::Version::v2;
    case Variant::v3:
    case Variant::epilogue:
      return std::nullopt;
  }
  return std::nullopt;
}

// The variants each family has, v1 first (the speed-up baseline must run before the others).
std::vector<Variant> device_variants(Family f) {
  switch (f) {
    case Family::bias_gelu:
    case Family::layernorm:
      return {Variant::v1, Variant::v2, Variant::v3, Variant::graph};
    case Family::softmax:
      return {Variant::v1, Variant::v2, Variant::graph};
    case Family::gemm_bias_gelu:
      return {Variant::v1, Variant::epilogue, Variant::graph};
  }
  return {};
}

constexpr Family k_elementwise_families[] = {Family::bias_gelu, Family::layernorm, Family::softmax};

// 1 thread and up to the usable CPUs but one. The CPU left over is gpubench's, its telemetry's
// and the system's: with every CPU in the pool, any other thread that wakes stops one of the
// pool's, and the pass (a barrier at its end) waits for it. On an idle 2-core VM two identical
// quick runs of `threads:2` cases differed by 31-78% while `threads:1` stayed within 10%
// (tests/perf/aa_quick.py, 10 pairs; issue 23 item 21).
std::vector<int> thread_counts(Profile profile, int cpus) {
  const int top = std::max(cpus - 1, 1);
  std::vector<int> out{1};
  if (profile == Profile::quick) {
    if (top > 1) out.push_back(top);
    return out;
  }
  for (int t = 2; t < top; t *= 2) out.push_back(t);
  if (top > 1) out.push_back(top);
  return out;
}

}  // namespace

const char* to_string(Family f) {
  switch (f) {
    case Family::bias_gelu:
      return "bias_gelu";
    case Family::layernorm:
      return "layernorm";
    case Family::softmax:
      return "softmax";
    case Family::gemm_bias_gelu:
      return "gemm_bias_gelu";
  }
  return "bias_gelu";
}

const char* to_string(Variant v) {
  switch (v) {
    case Variant::v1:
      return "v1";
    case Variant::v2:
      return "v2";
    case Variant::v3:
      return "v3";
    case Variant::graph:
      return "graph";
    case Variant::epilogue:
      return "epilogue";
  }
  return "v1";
}

namespace {
std::string name_with_variant(const FusionCase& c, const char* variant) {
  std::string name = "fusion/";
  name += to_string(c.family);
  name += "/variant:";
  name += variant;
  name += "/dtype:";
  name += kernels::to_string(c.dtype);
  name += "/tokens:" + std::to_string(c.tokens);
  if (c.family == Family::gemm_bias_gelu) {
    name += "/in:" + std::to_string(c.in_features) + "/out:" + std::to_string(c.hidden);
  } else {
    name += "/hidden:" + std::to_string(c.hidden);
  }
  if (c.on_host()) {
    name += "/threads:" + std::to_string(c.threads) + "/device:host";
  } else {
    name += "/device:" + std::to_string(c.device);
  }
  return name;
}
}  // namespace

std::string benchmark_name(const FusionCase& c) {
  return name_with_variant(c, to_string(c.variant));
}

std::string baseline_key(const FusionCase& c) {
  return name_with_variant(c, "v1");
}

std::uint64_t fused_bytes(const FusionCase& c) {
  const std::size_t e = kernels::element_bytes(c.dtype);
  switch (c.family) {
    case Family::bias_gelu:
      return kb::fused_bytes(c.tokens, c.hidden, e);
    case Family::layernorm:
      return kl::fused_bytes(c.tokens, c.hidden, e);
    case Family::softmax:
      return ks::fused_bytes(c.tokens, c.hidden, e);
    case Family::gemm_bias_gelu:
      // A (M x K), B (K x N), D (M x N) and the bias (M), once each.
      return (c.hidden * c.in_features + c.in_features * c.tokens + c.hidden * c.tokens +
              c.hidden) *
             e;
  }
  return 0;
}

std::uint64_t variant_bytes(const FusionCase& c) {
  const std::size_t e = kernels::element_bytes(c.dtype);
  switch (c.family) {
    case Family::bias_gelu:
      if (auto v = bias_gelu_version(c.variant))
        return kb::version_bytes(*v, c.tokens, c.hidden, e);
      return 0;
    case Family::layernorm:
      if (auto v = layernorm_version(c.variant))
        return kl::version_bytes(*v, c.tokens, c.hidden, e);
      return 0;
    case Family::softmax:
      if (auto v = softmax_version(c.variant)) return ks::version_bytes(*v, c.tokens, c.hidden, e);
      return 0;
    case Family::gemm_bias_gelu:
      // v1 and graph: the GEMM writes D, the bias+GELU kernel reads it back and writes it again.
      return fused_bytes(c) + (c.variant == Variant::epilogue ? 0 : 2 * c.hidden * c.tokens * e);
  }
  return 0;
}

int kernels_per_call(const FusionCase& c) {
  switch (c.family) {
    case Family::bias_gelu:
      if (auto v = bias_gelu_version(c.variant)) return kb::launches_per_call(*v);
      return 0;
    case Family::layernorm:
      if (auto v = layernorm_version(c.variant)) return kl::launches_per_call(*v);
      return 0;
    case Family::softmax:
      if (auto v = softmax_version(c.variant)) return ks::launches_per_call(*v);
      return 0;
    case Family::gemm_bias_gelu:
      return c.variant == Variant::epilogue ? 1 : 2;  // cublasLtMatmul [+ the v2 kernel]
  }
  return 0;
}

int launches_per_call(const FusionCase& c) {
  return c.variant == Variant::graph ? 1 : kernels_per_call(c);
}

int passes_per_call(const FusionCase& c) {
  if (c.variant != Variant::v1) return 1;
  switch (c.family) {
    case Family::bias_gelu:
    case Family::layernorm:
      return 2;
    case Family::softmax:
      return 3;
    case Family::gemm_bias_gelu:
      return 2;
  }
  return 1;
}

bool reports_dram_pct_of_peak(const FusionCase& c) {
  return c.family != Family::gemm_bias_gelu;
}

double gemm_flops(const FusionCase& c) {
  return 2.0 * static_cast<double>(c.hidden) * static_cast<double>(c.tokens) *
         static_cast<double>(c.in_features);
}

std::optional<std::string> unsupported_reason(const FusionCase& c) {
  const std::string what =
      std::string(to_string(c.family)) + " has no variant " + to_string(c.variant);
  if (c.on_host()) {
    if (c.family == Family::gemm_bias_gelu) return "gemm_bias_gelu has no host variant";
    if (c.variant != Variant::v1 && c.variant != Variant::v2)
      return "host variants are v1 (separate passes) and v2 (fused pass)";
    if (c.dtype != Precision::fp32) return "host variants compute in fp32 only";
    return std::nullopt;
  }
  switch (c.family) {
    case Family::bias_gelu: {
      const auto v = bias_gelu_version(c.variant);
      if (!v) return what;
      if (!kb::version_supports(*v, c.dtype, c.hidden) && *v == kb::Version::v3)
        return "bias_gelu " + std::string(to_string(c.variant)) +
               " needs hidden to be a multiple of " +
               std::to_string(kernels::elements_per_128_bits(c.dtype)) + " (128-bit vectors)";
      if (!kb::version_supports(*v, c.dtype, c.hidden))
        return "bias_gelu " + std::string(to_string(c.variant)) +
               " needs hidden <= " + std::to_string(kernels::device::k_max_cols_2d) +
               " (32-bit column index)";
      return std::nullopt;
    }
    case Family::layernorm: {
      const auto v = layernorm_version(c.variant);
      if (!v) return what;
      if (!kl::version_supports(*v, c.dtype, c.hidden))
        return "layernorm " + std::string(to_string(c.variant)) +
               " needs 0 < hidden <= " + std::to_string(kl::k_max_cols) +
               " and, for v3, a multiple of " +
               std::to_string(kernels::elements_per_128_bits(c.dtype));
      return std::nullopt;
    }
    case Family::softmax: {
      const auto v = softmax_version(c.variant);
      if (!v) return what;
      if (!ks::version_supports(*v, c.dtype, c.hidden))
        return "softmax " + std::string(to_string(c.variant)) +
               " needs 0 < hidden <= " + std::to_string(kernels::device::k_max_cols_2d) +
               " (32-bit column index)";
      return std::nullopt;
    }
    case Family::gemm_bias_gelu:
      if (c.variant != Variant::v1 && c.variant != Variant::epilogue && c.variant != Variant::graph)
        return what;
      if (c.dtype == Precision::fp32) return "gemm_bias_gelu runs fp16 and bf16 (Tensor Cores)";
      return std::nullopt;
  }
  return what;
}

std::vector<Shape> device_shapes(Family f, Profile profile) {
  if (f == Family::gemm_bias_gelu) {
    // {tokens, out, in}: a small launch-bound layer, then transformer MLP up-projections.
    switch (profile) {
      case Profile::quick:
        return {{512, 4096, 1024}, {4096, 16384, 4096}};
      case Profile::standard:
        return {{512, 4096, 1024}, {2048, 16384, 4096}, {4096, 16384, 4096}};
      case Profile::full:
        return {{128, 4096, 1024},
                {512, 4096, 1024},
                {2048, 16384, 4096},
                {4096, 16384, 4096},
                {8192, 32768, 8192}};
    }
  }
  // tokens x hidden: 64 x 1024 (256 KiB of fp32, launch-bound) to 16384 x 8192 (512 MiB).
  switch (profile) {
    case Profile::quick:
      return {{64, 1024, 0}, {1024, 4096, 0}, {8192, 8192, 0}};
    case Profile::standard:
      return {{64, 1024, 0}, {512, 2048, 0}, {1024, 4096, 0}, {4096, 8192, 0}, {16384, 8192, 0}};
    case Profile::full:
      return {{8, 768, 0},     {64, 1024, 0},   {512, 2048, 0},  {1024, 4096, 0},
              {4096, 4096, 0}, {4096, 8192, 0}, {8192, 8192, 0}, {16384, 8192, 0}};
  }
  return {};
}

std::vector<Shape> host_shapes(Profile profile) {
  // 256 KiB per fp32 matrix (in a CPU core's L2), 4 MiB (beyond L2), 16 and 64 MiB (beyond a
  // typical L3). quick keeps the host part to a few seconds.
  switch (profile) {
    case Profile::quick:
      return {{64, 1024, 0}, {256, 4096, 0}};
    case Profile::standard:
      return {{64, 1024, 0}, {1024, 4096, 0}, {4096, 4096, 0}};
    case Profile::full:
      return {{64, 1024, 0}, {512, 2048, 0}, {1024, 4096, 0}, {4096, 4096, 0}, {8192, 8192, 0}};
  }
  return {};
}

std::vector<Precision> device_dtypes(Family f, Profile profile) {
  if (f == Family::gemm_bias_gelu) {
    return profile == Profile::quick ? std::vector<Precision>{Precision::bf16}
                                     : std::vector<Precision>{Precision::bf16, Precision::fp16};
  }
  return profile == Profile::quick
             ? std::vector<Precision>{Precision::bf16}
             : std::vector<Precision>{Precision::fp32, Precision::fp16, Precision::bf16};
}

std::vector<FusionCase> device_cases(Profile profile, const std::vector<int>& devices) {
  std::vector<FusionCase> out;
  for (int device : devices) {
    for (Family f :
         {Family::bias_gelu, Family::layernorm, Family::softmax, Family::gemm_bias_gelu}) {
      for (Precision p : device_dtypes(f, profile)) {
        for (const Shape& s : device_shapes(f, profile)) {
          for (Variant v : device_variants(f)) {
            FusionCase c;
            c.family = f;
            c.variant = v;
            c.dtype = p;
            c.tokens = s.tokens;
            c.hidden = s.hidden;
            c.in_features = s.in_features;
            c.device = device;
            if (!unsupported_reason(c)) out.push_back(c);
          }
        }
      }
    }
  }
  return out;
}

std::vector<FusionCase> host_cases(Profile profile, int usable_cpus) {
  std::vector<FusionCase> out;
  for (Family f : k_elementwise_families) {
    for (const Shape& s : host_shapes(profile)) {
      for (int threads : thread_counts(profile, usable_cpus)) {
        for (Variant v : {Variant::v1, Variant::v2}) {
          FusionCase c;
          c.family = f;
          c.variant = v;
          c.dtype = Precision::fp32;
          c.tokens = s.tokens;
          c.hidden = s.hidden;
          c.threads = threads;
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

int host_iterations(std::uint64_t tokens, std::uint64_t hidden) {
  const std::uint64_t elements = std::max<std::uint64_t>(tokens * hidden, 1);
  const std::uint64_t calls = (std::uint64_t{1} << 21) / elements;
  return static_cast<int>(std::clamp<std::uint64_t>(calls, 2, 32));
}

int host_calls_per_iteration(double call_s, int iterations, double min_repetition_s) {
  constexpr double k_max_calls = 1e6;
  if (!(call_s > 0.0) || !(min_repetition_s > 0.0)) return 1;
  const double per_iteration_s = min_repetition_s / std::max(iterations, 1);
  const double calls = std::ceil(per_iteration_s / call_s);
  return static_cast<int>(std::clamp(calls, 1.0, k_max_calls));
}

int device_calls_per_batch(double call_ms, double target_ms, int launches, int max_launches) {
  const int by_launches = std::max(1, max_launches / std::max(launches, 1));
  return suite::calls_for_target(call_ms * 1e-3, target_ms * 1e-3, by_launches);
}

std::uint64_t working_set_bytes(const FusionCase& c) {
  const bool row_statistics =
      c.family == Family::softmax && (c.variant == Variant::v1 || c.variant == Variant::graph);
  // softmax v1: a max and a sum per row, FP32 (kernels/softmax/softmax.hpp).
  return fused_bytes(c) + (row_statistics ? 2 * c.tokens * sizeof(float) : 0);
}

suite::CacheMode device_cache_mode(const FusionCase& c, std::uint64_t l2_bytes) {
  FusionCase v1 = c;
  v1.variant = Variant::v1;
  const std::uint64_t shape_bytes = std::max(working_set_bytes(c), working_set_bytes(v1));
  return suite::cache_mode(suite::l2_placement(shape_bytes, l2_bytes), l2_bytes);
}

bool needs_cublaslt(const FusionCase& c) {
  return c.family == Family::gemm_bias_gelu && !c.on_host();
}

double modelled_call_s(const FusionCase& c) {
  const suite::ModelRates& r = suite::reference_rates();
  double s = suite::transfer_seconds(static_cast<double>(fused_bytes(c)), r.hbm_bytes_per_s);
  if (c.family == Family::gemm_bias_gelu) s += gemm_flops(c) / r.bf16_flop_per_s;
  return s;
}

bool launch_bound(const FusionCase& c) {
  return !c.on_host() && modelled_call_s(c) < k_launch_bound_call_s;
}

}  // namespace gpubench::fusion
