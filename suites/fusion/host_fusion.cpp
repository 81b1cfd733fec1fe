#include "suites/fusion/host_fusion.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/bias_gelu/bias_gelu_reference.hpp"
#include "kernels/layernorm/layernorm_reference.hpp"
#include "kernels/softmax/softmax_reference.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/fusion/fusion_validation.hpp"
#include "suites/fusion/speedup.hpp"
#include "suites/memory/thread_pool.hpp"

namespace gpubench::fusion {
namespace {

using suites::memory::Chunk;
using suites::memory::chunk_of;
using suites::memory::ThreadPool;

// Seeded N(0, 1) values: splitmix64 of (seed, i) gives two uniforms, Box-Muller one normal (the
// same recipe as the device generator in kernels/common/random_normal.cu).
std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void fill_normal(std::vector<float>& v, std::uint64_t seed) {
  const std::uint64_t base = splitmix64(seed);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint64_t h = splitmix64(base ^ static_cast<std::uint64_t>(i));
    const double u1 = (static_cast<double>(h >> 40) + 0.5) / 16777216.0;  // (0, 1)
    const double u2 = static_cast<double>(h & 0xffffffu) / 16777216.0;    // [0, 1)
    v[i] = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
}

// Inputs and outputs of one family and shape, shared by its variants and thread counts (the
// benchmarks of one shape run one after another, so only one set is alive at a time).
struct HostData {
  Family family;
  std::uint64_t rows, cols;
  std::vector<float> x, res, bias, gamma, beta;  // inputs (unused ones stay empty)
  std::vector<float> y, s, row_max, row_sum;     // outputs and v1's row statistics
};

HostData& data_for(const FusionCase& c) {
  static std::unique_ptr<HostData> data;
  if (data && data->family == c.family && data->rows == c.tokens && data->cols == c.hidden)
    return *data;
  data.reset();
  auto d = std::make_unique<HostData>();
  d->family = c.family;
  d->rows = c.tokens;
  d->cols = c.hidden;
  const std::size_t n = c.tokens * c.hidden;
  d->x.resize(n);
  fill_normal(d->x, 1);
  d->y.assign(n, 0.0f);
  switch (c.family) {
    case Family::bias_gelu:
      d->bias.resize(c.hidden);
      fill_normal(d->bias, 2);
      break;
    case Family::layernorm:
      d->res.resize(n);
      fill_normal(d->res, 2);
      d->gamma.resize(c.hidden);
      fill_normal(d->gamma, 3);
      d->beta.resize(c.hidden);
      fill_normal(d->beta, 4);
      d->s.assign(n, 0.0f);
      break;
    case Family::softmax:
      d->row_max.assign(c.tokens, 0.0f);
      d->row_sum.assign(c.tokens, 0.0f);
      break;
    case Family::gemm_bias_gelu:
      break;
  }
  data = std::move(d);
  return *data;
}

ThreadPool& pool_for(int threads) {
  static std::unique_ptr<ThreadPool> pool;
  if (!pool || pool->size() != threads) {
    pool.reset();
    pool = std::make_unique<ThreadPool>(threads);
  }
  return *pool;
}

// One call of the variant: v1 = one pool.run per unfused pass (the barrier between passes is the
// host's "kernel boundary"), v2 = one pool.run of the fused pass. Workers take contiguous row
// chunks.
void host_call(const FusionCase& c, HostData& d, ThreadPool& pool) {
  namespace kb = kernels::bias_gelu;
  namespace kl = kernels::layernorm;
  namespace ks = kernels::softmax;
  const int workers = pool.size();
  const std::uint64_t cols = d.cols;
  const auto rows_of = [&](int w) { return chunk_of(d.rows, workers, w, 1); };
  const bool fused = c.variant == Variant::v2;
  switch (c.family) {
    case Family::bias_gelu:
      if (fused) {
        pool.run([&](int w) {
          const Chunk r = rows_of(w);
          kb::fused_pass(d.x.data(), d.bias.data(), d.y.data(), r.begin, r.end, cols);
        });
      } else {
        pool.run([&](int w) {
          const Chunk r = rows_of(w);
          kb::bias_pass(d.x.data(), d.bias.data(), d.y.data(), r.begin, r.end, cols);
        });
        pool.run([&](int w) {
          const Chunk r = rows_of(w);
          kb::gelu_pass(d.y.data(), r.begin, r.end, cols);
        });
      }
      return;
    case Family::layernorm:
      if (fused) {
        pool.run([&](int w) {
          const Chunk r = rows_of(w);
          kl::fused_pass(d.x.data(), d.res.data(), d.gamma.data(), d.beta.data(), d.s.data(),
                         d.y.data(), r.begin, r.end, cols);
        });
      } else {
        pool.run([&](int w) {
          const Chunk r = rows_of(w);
          kl::add_pass(d.x.data(), d.res.data(), d.s.data(), r.begin, r.end, cols);
        });
        pool.run([&](int w) {
          const Chunk r = rows_of(w);
          kl::layernorm_pass(d.s.data(), d.gamma.data(), d.beta.data(), d.y.data(), r.begin, r.end,
                             cols);
        });
      }
      return;
    case Family::softmax:
      if (fused) {
        pool.run([&](int w) {
          const Chunk r = rows_of(w);
          ks::fused_pass(d.x.data(), d.y.data(), r.begin, r.end, cols);
        });
      } else {
        pool.run([&](int w) {
          const Chunk r = rows_of(w);
          ks::max_pass(d.x.data(), d.row_max.data(), r.begin, r.end, cols);
        });
        pool.run([&](int w) {
          const Chunk r = rows_of(w);
          ks::sum_pass(d.x.data(), d.row_max.data(), d.row_sum.data(), r.begin, r.end, cols);
        });
        pool.run([&](int w) {
          const Chunk r = rows_of(w);
          ks::normalise_pass(d.x.data(), d.row_max.data(), d.row_sum.data(), d.y.data(), r.begin,
                             r.end, cols);
        });
      }
      return;
    case Family::gemm_bias_gelu:
      return;
  }
}

// Poisons the outputs, runs one call and compares sampled rows with the double reference.
RowCheck validate(const FusionCase& c, HostData& d, ThreadPool& pool) {
  std::fill(d.y.begin(), d.y.end(), std::nanf(""));
  std::fill(d.s.begin(), d.s.end(), std::nanf(""));
  host_call(c, d, pool);
  RowCheck check(family_tolerance(c.family, Precision::fp32));
  const std::uint64_t cols = d.cols;
  const auto widen = [cols](const std::vector<float>& v, std::uint64_t row) {
    if (v.empty()) return std::vector<double>();
    return std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(row * cols),
                               v.begin() + static_cast<std::ptrdiff_t>((row + 1) * cols));
  };
  const std::vector<double> bias(d.bias.begin(), d.bias.end());
  const std::vector<double> gamma(d.gamma.begin(), d.gamma.end());
  const std::vector<double> beta(d.beta.begin(), d.beta.end());
  for (std::uint64_t r : validation_rows(d.rows)) {
    const auto x = widen(d.x, r);
    const auto res = widen(d.res, r);
    const auto y = widen(d.y, r);
    const auto s = widen(d.s, r);
    RowInputs in{x.data(), res.data(), bias.data(), gamma.data(), beta.data()};
    RowOutputs out{y.data(), s.data()};
    check_row(c.family, r, cols, in, out, check);
  }
  return check;
}

// Per-call times (ms) of `calls` calls timed outside Google Benchmark: the probe that sizes the
// timed iterations, and the baseline when v1 did not run in this process.
std::vector<double> time_calls(const FusionCase& c, HostData& d, ThreadPool& pool, int calls) {
  std::vector<double> out;
  for (int i = 0; i < calls; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    host_call(c, d, pool);
    const auto t1 = std::chrono::steady_clock::now();
    out.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return out;
}

// Calls of at least k_host_min_repetition_s in all, at the probed time per call (ms).
int calls_for_min_time(double call_ms) {
  return host_calls_per_iteration(call_ms * 1e-3, 1);
}

}  // namespace

void run_host_case(benchmark::State& state, const FusionCase& c) {
  if (const auto reason = unsupported_reason(c)) {
    suite::skip(state, *reason);
    return;
  }
  HostData& d = data_for(c);
  ThreadPool& pool = pool_for(c.threads);
  // Validate before timing: a wrong answer is a failure, not a fast result. The validated call is
  // also the warm-up: it touches every input and output the timed calls use.
  const RowCheck check = validate(c, d, pool);
  if (!check.passed()) {
    suite::fail(state, "validation failed: " + check.summary());
    return;
  }

  // Each iteration times enough calls that the repetition lasts k_host_min_repetition_s; the
  // probe's median of 3 calls sizes them (the fastest shapes would otherwise be timed in ~3 ms).
  const double probe_ms = median(time_calls(c, d, pool, 3));
  const int calls =
      host_calls_per_iteration(probe_ms * 1e-3, static_cast<int>(state.max_iterations));
  std::vector<double> per_call_ms;
  per_call_ms.reserve(static_cast<std::size_t>(calls) *
                      static_cast<std::size_t>(state.max_iterations));
  for (auto _ : state) {
    double iteration_s = 0;
    for (int i = 0; i < calls; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      host_call(c, d, pool);
      const auto t1 = std::chrono::steady_clock::now();
      const double s = std::chrono::duration<double>(t1 - t0).count();
      iteration_s += s;
      per_call_ms.push_back(s * 1e3);
    }
    state.SetIterationTime(iteration_s / calls);  // Google Benchmark's time: the mean per call
  }
  const double call_ms = median(per_call_ms);  // the counters: the median per call
  const std::optional<double> speedup = speedup_over_v1(c, call_ms, [&](const FusionCase& v1) {
    const double v1_probe_ms = median(time_calls(v1, d, pool, 3));
    return median(time_calls(v1, d, pool, calls_for_min_time(v1_probe_ms)));
  });
  const double bytes = static_cast<double>(fused_bytes(c));
  state.counters["time_per_call_us"] = call_ms * 1e3;
  state.counters["GB_per_s"] = call_ms > 0 ? bytes / (call_ms * 1e-3) / 1e9 : 0.0;
  if (speedup) state.counters["speedup_over_v1"] = *speedup;
  state.counters["passes_per_call"] = passes_per_call(c);
  state.SetLabel("fp32 on " + std::to_string(c.threads) + " thread(s), median of " +
                 std::to_string(per_call_ms.size()) + " calls; perfect-fusion bytes " +
                 std::to_string(fused_bytes(c)) + ", this variant moves " +
                 std::to_string(variant_bytes(c)) + "; validated: " + check.summary());
}

void register_host_benchmarks(suite::Profile profile) {
  for (const FusionCase& c : host_cases(profile, suites::memory::usable_cpu_count())) {
    suite::register_timed(benchmark_name(c), host_iterations(c.tokens, c.hidden),
                          [c](benchmark::State& st) { run_host_case(st, c); });
  }
}

}  // namespace gpubench::fusion
