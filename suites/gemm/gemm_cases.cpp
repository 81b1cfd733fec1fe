#include "suites/gemm/gemm_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "suites/common/validation.hpp"
#include "util/median.hpp"

namespace gpubench::gemm {

const char* to_string(Api api) {
  return api == Api::cublaslt ? "cublaslt" : "cublas";
}
const char* to_string(Layout layout) {
  return layout == Layout::tn ? "tn" : "nn";
}
const char* to_string(Cache cache) {
  return cache == Cache::cold ? "cold" : "hot";
}

const char* to_string(Accum accum) {
  switch (accum) {
    case Accum::fast:
      return "fast";
    case Accum::precise:
      return "precise";
    case Accum::none:
      break;
  }
  return "none";
}

std::string benchmark_name(const GemmCase& c) {
  std::string name = std::string("gemm/") + to_string(c.api) + "/dtype:" + to_string(c.dtype) +
                     "/m:" + std::to_string(c.m) + "/n:" + std::to_string(c.n) +
                     "/k:" + std::to_string(c.k) + "/layout:" + to_string(c.layout) +
                     "/cache:" + to_string(c.cache);
  if (c.accum != Accum::none) name += std::string("/accum:") + to_string(c.accum);
  return name + "/device:" + std::to_string(c.device);
}

std::string compute_label(const GemmCase& c) {
  std::string out = "compute=";
  switch (c.dtype) {
    case DType::fp64:
      out += "64F(native,no_emulation)";
      break;
    case DType::fp32:
      out += "32F_PEDANTIC(no_tensor_cores)";
      break;
    case DType::tf32:
      out += "32F_FAST_TF32";
      break;
    case DType::int8:
      out += "32I";
      break;
    default:
      out += "32F";
      break;
  }
  if (c.accum != Accum::none) out += std::string(" accum=") + to_string(c.accum);
  return out;
}

double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

ElementKind input_kind(DType dtype) {
  switch (dtype) {
    case DType::fp64:
      return ElementKind::f64;
    case DType::fp32:
    case DType::tf32:
      return ElementKind::f32;
    case DType::fp16:
      return ElementKind::f16;
    case DType::bf16:
      return ElementKind::bf16;
    case DType::fp8_e4m3:
      return ElementKind::fp8_e4m3;
    case DType::int8:
      return ElementKind::i8;
  }
  return ElementKind::f32;
}

ElementKind output_kind(DType dtype) {
  switch (dtype) {
    case DType::fp8_e4m3:
      return ElementKind::bf16;  // what FP8 training/inference GEMMs typically write
    case DType::int8:
      return ElementKind::i32;
    default:
      return input_kind(dtype);
  }
}

std::size_t operand_bytes(const GemmCase& c) {
  const auto m = static_cast<std::size_t>(c.m);
  const auto n = static_cast<std::size_t>(c.n);
  const auto k = static_cast<std::size_t>(c.k);
  const std::size_t in = suite::element_bytes(input_kind(c.dtype));
  const std::size_t out = suite::element_bytes(output_kind(c.dtype));
  return (m * k + k * n) * in + m * n * out;
}

std::size_t workspace_bytes(int cc_major) {
  return (cc_major >= 9 ? std::size_t{32} : std::size_t{4}) << 20;
}

bool case_supported(Api api, DType dtype, Layout layout) {
  const bool tn_only = dtype == DType::fp8_e4m3 || dtype == DType::int8;
  if (tn_only && layout != Layout::tn) return false;
  if (api == Api::cublas && tn_only) return false;
  return true;
}

namespace {

struct Shape {
  std::int64_t m, n, k;
};

void add(std::vector<GemmCase>& out, Api api, DType dtype, Shape s, Layout layout, Cache cache,
         const std::vector<int>& devices) {
  if (!case_supported(api, dtype, layout)) return;
  for (int d : devices) {
    if (dtype == DType::fp8_e4m3) {
      for (Accum a : {Accum::fast, Accum::precise}) {
        out.push_back({api, dtype, s.m, s.n, s.k, layout, cache, d, a});
      }
    } else {
      out.push_back({api, dtype, s.m, s.n, s.k, layout, cache, d, Accum::none});
    }
  }
}

// A transformer MLP at `hidden` with `tokens` = batch x sequence: up projection (k = hidden,
// m = 4 hidden) and down projection (k = 4 hidden, m = hidden), as a linear layer issues them (TN).
std::vector<Shape> mlp_shapes(std::int64_t tokens, std::int64_t hidden) {
  return {{4 * hidden, tokens, hidden}, {hidden, tokens, 4 * hidden}};
}

}  // namespace

std::vector<GemmCase> gemm_cases(suite::Profile profile, const std::vector<int>& devices) {
  std::vector<GemmCase> out;
  std::vector<std::int64_t> squares;
  std::vector<std::pair<std::int64_t, std::int64_t>> transformer;  // (tokens, hidden)
  switch (profile) {
    case suite::Profile::quick:
      squares = {1024, 4096};
      transformer = {{4096, 4096}};
      break;
    case suite::Profile::standard:
      squares = {1024, 2048, 4096, 8192, 16384};
      transformer = {{4096, 4096}, {8192, 4096}, {4096, 8192}, {8192, 8192}};
      break;
    case suite::Profile::full:
      squares = {256, 512, 1024, 2048, 4096, 6144, 8192, 12288, 16384};
      transformer = {{4096, 4096}, {8192, 4096}, {4096, 8192}, {8192, 8192}, {16384, 8192}};
      break;
  }
  const bool every_layout = profile == suite::Profile::full;
  for (DType dtype : suite::k_all_dtypes) {
    for (std::int64_t s : squares) {
      add(out, Api::cublaslt, dtype, {s, s, s}, Layout::tn, Cache::hot, devices);
      // NN matters for the 16-bit types (weights stored untransposed); elsewhere only in full.
      const bool nn = every_layout || dtype == DType::bf16 || dtype == DType::fp16;
      if (nn) add(out, Api::cublaslt, dtype, {s, s, s}, Layout::nn, Cache::hot, devices);
    }
  }
  // Transformer shapes: the types LLMs run in.
  for (auto [tokens, hidden] : transformer) {
    for (Shape s : mlp_shapes(tokens, hidden)) {
      for (DType dtype : {DType::bf16, DType::fp16, DType::fp8_e4m3}) {
        if (profile == suite::Profile::quick && dtype == DType::fp16) continue;
        add(out, Api::cublaslt, dtype, s, Layout::tn, Cache::hot, devices);
      }
    }
  }
  // The plain cuBLAS path, against which the cuBLASLt algorithm search is judged.
  const std::vector<std::int64_t> gemmex_sizes = profile == suite::Profile::quick
                                                     ? std::vector<std::int64_t>{4096}
                                                     : std::vector<std::int64_t>{4096, 8192};
  for (DType dtype : {DType::fp64, DType::fp32, DType::tf32, DType::fp16, DType::bf16}) {
    for (std::int64_t s : gemmex_sizes)
      add(out, Api::cublas, dtype, {s, s, s}, Layout::tn, Cache::hot, devices);
  }
  // Cold L2: small GEMMs, where a warm L2 flatters the result.
  const std::vector<std::int64_t> cold_sizes = profile == suite::Profile::quick
                                                   ? std::vector<std::int64_t>{1024}
                                                   : std::vector<std::int64_t>{1024, 2048};
  for (std::int64_t s : cold_sizes) {
    add(out, Api::cublaslt, DType::bf16, {s, s, s}, Layout::tn, Cache::cold, devices);
    if (profile != suite::Profile::quick) {
      add(out, Api::cublaslt, DType::fp32, {s, s, s}, Layout::tn, Cache::cold, devices);
    }
  }
  return out;
}

int min_timed_samples(const GemmCase& c, suite::Profile profile) {
  return c.cache == Cache::cold ? cold_pairs_per_repetition(profile)
                                : suite::sampling_policy(profile).min_samples;
}

double estimated_case_seconds(const GemmCase& c, suite::Profile profile, double peak_tflops) {
  if (!(peak_tflops > 0.0)) return 0.0;
  const double call_s = gemm_flops(c.m, c.n, c.k) / (peak_tflops * 1e12);
  const double search_batch_s = std::max(call_s, k_search_batch_ms * 1e-3);
  double seconds = 0.0;
  if (c.api == Api::cublaslt) {
    // Per candidate: a warm-up call and the timed batches; one probe call for the first.
    seconds += k_search_candidates * (call_s + search_samples(call_s * 1e3) * search_batch_s);
    seconds += call_s;
  } else {
    seconds += 2 * call_s;  // warm-up call and the one timed call that sizes the batches
  }
  const int samples = min_timed_samples(c, profile);
  if (c.cache == Cache::cold) {
    // One warm-up batch of pairs, then the pairs: the calls alone (flushes are not counted).
    return seconds + (k_cold_max_pairs_per_batch + samples) * call_s;
  }
  // A batch of calls of about the target (at most k_hot_max_calls calls, whatever the queue).
  const double batch_s = hot_calls_per_batch(call_s, suite::sampling_policy(profile).batch_target_s,
                                             1, k_hot_max_calls) *
                         call_s;
  return seconds + (1 + samples) * batch_s;
}

std::optional<std::string> too_slow_reason(const GemmCase& c, suite::Profile profile,
                                           std::optional<double> peak_tflops) {
  if (!peak_tflops) return std::nullopt;
  const double seconds = estimated_case_seconds(c, profile, *peak_tflops);
  if (seconds <= k_max_case_seconds) return std::nullopt;
  char text[256];
  std::snprintf(text, sizeof text,
                "m=%lld n=%lld k=%lld %s would take at least %.0f s on this GPU (%.3g s a call at "
                "its dense peak of %.3g TFLOP/s, %s), over the %.0f s allowed for one case",
                static_cast<long long>(c.m), static_cast<long long>(c.n),
                static_cast<long long>(c.k), suite::to_string(c.dtype), seconds,
                gemm_flops(c.m, c.n, c.k) / (*peak_tflops * 1e12), *peak_tflops,
                c.api == Api::cublaslt ? "algorithm search included" : "warm-up included",
                k_max_case_seconds);
  return std::string(text);
}

std::optional<std::string> fp64_emulation_reason(const char* value) {
  if (value == nullptr || std::string_view(value).empty() || std::string_view(value) == "0")
    return std::nullopt;
  return std::string("CUBLAS_EMULATE_DOUBLE_PRECISION=") + value +
         " lets cuBLAS emulate FP64 on integer Tensor Cores; this suite measures native FP64 "
         "(unset the variable, or set it to 0)";
}

double validation_tolerance(const GemmCase& c) {
  if (c.dtype == DType::fp8_e4m3 && c.accum == Accum::fast)
    return suite::fp8_fast_accum_tolerance(c.k);
  return suite::gemm_tolerance(c.dtype);
}

int calls_per_batch(double call_ms, double target_ms, int max_calls) {
  if (!(call_ms > 0.0)) return 1;
  const double calls = std::ceil(target_ms / call_ms);
  return static_cast<int>(std::clamp(calls, 1.0, static_cast<double>(std::max(max_calls, 1))));
}

int hot_calls_per_batch(double call_s, double batch_target_s, int kernels_per_call,
                        int max_queued_kernels) {
  const int max_calls =
      std::min(k_hot_max_calls, std::max(1, max_queued_kernels / std::max(kernels_per_call, 1)));
  return suite::calls_for_target(call_s, batch_target_s, max_calls);
}

suite::SamplingPolicy hot_policy(suite::Profile profile, double batch_s) {
  suite::SamplingPolicy p = suite::sampling_policy(profile);
  // SampleSeries stops once the budget is spent: let min_samples batches fit in it.
  if (batch_s > 0) p.time_budget_s = std::max(p.time_budget_s, p.min_samples * batch_s);
  return p;
}

namespace {
// Batches of `batch_s` until `budget_s` is spent, at most `cap`: summed as SampleSeries and
// ClockSettle sum their GPU time, so the plan and the loops agree to the last batch.
int batches_within(double budget_s, double batch_s, int cap) {
  if (!(batch_s > 0)) return std::max(cap, 1);
  double spent = 0;
  int batches = 0;
  do {
    spent += batch_s;
    ++batches;
  } while (spent < budget_s && batches < cap);
  return batches;
}
}  // namespace

PlannedBatches planned_batches(const suite::SamplingPolicy& policy, double batch_s) {
  PlannedBatches out;
  out.warmup = std::max(std::max(policy.min_warmup_batches, 1),
                        batches_within(policy.warmup_budget_s, batch_s, policy.steady_readings));
  out.samples = batches_within(policy.time_budget_s, batch_s, policy.max_samples);
  return out;
}

std::size_t choose_candidate(const std::vector<CandidateTimes>& candidates, double tie_fraction,
                             std::size_t* tied) {
  std::vector<double> medians;
  double fastest = 0.0;
  for (const CandidateTimes& c : candidates) {
    std::vector<double> v = c.per_call_ms;
    const double m = v.empty() ? 0.0 : median_in_place(v.data(), v.data() + v.size());
    medians.push_back(m);
    if (m > 0.0 && (fastest == 0.0 || m < fastest)) fastest = m;
  }
  std::size_t chosen = 0;
  std::size_t ties = 0;
  bool any = false;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!(medians[i] > 0.0) || medians[i] > fastest * (1.0 + tie_fraction)) continue;
    ++ties;
    if (!any || candidates[i].rank < candidates[chosen].rank) chosen = i;
    any = true;
  }
  if (tied != nullptr) *tied = ties;
  return chosen;
}

}  // namespace gpubench::gemm
