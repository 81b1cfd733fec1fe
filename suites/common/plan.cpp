#include "suites/common/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::suite {

const ModelRates& reference_rates() {
  static const ModelRates rates;
  return rates;
}

std::string rates_summary(const ModelRates& r) {
  char text[640];
  std::snprintf(text, sizeof text,
                "model assumptions, not measurements (H100/H200 class): PCIe pinned %.0f GB/s, "
                "pageable %.0f GB/s, NVLink pair %.0f GB/s, staged peer copy %.0f GB/s, HBM "
                "%.0f GB/s, host memory %.0f GB/s (%.0f GB/s per thread), BF16 %.0f TFLOP/s, FP8 "
                "%.0f, TF32 %.0f, FP32 %.0f, FP64 %.0f, allreduce busbw %.0f GB/s + %.0f us per "
                "call; fixed: process start %.1f s + %.1f s per GPU, %.0f ms per benchmark "
                "repetition",
                r.pcie_pinned_bytes_per_s / 1e9, r.pcie_pageable_bytes_per_s / 1e9,
                r.nvlink_pair_bytes_per_s / 1e9, r.staged_peer_bytes_per_s / 1e9,
                r.hbm_bytes_per_s / 1e9, r.host_memory_bytes_per_s / 1e9,
                r.host_thread_bytes_per_s / 1e9, r.bf16_flop_per_s / 1e12, r.fp8_flop_per_s / 1e12,
                r.tf32_flop_per_s / 1e12, r.fp32_flop_per_s / 1e12, r.fp64_flop_per_s / 1e12,
                r.allreduce_busbw_bytes_per_s / 1e9, r.collective_latency_s * 1e6,
                r.process_start_s, r.per_gpu_context_s, r.per_benchmark_s * 1e3);
  return text;
}

int repetitions_for(Profile profile) {
  switch (profile) {
    case Profile::quick:
      return 3;
    case Profile::standard:
      return 5;
    case Profile::full:
      return 10;
  }
  return 5;
}

int repetitions_of(const PlanRequest& request) {
  return request.repetitions > 0 ? request.repetitions : repetitions_for(request.profile);
}

double case_seconds(const CaseCost& cost, int repetitions, const ModelRates& rates) {
  const double reps = std::max(repetitions, 1);
  const double per_repetition =
      rates.per_benchmark_s + cost.setup_s + cost.warmup_s +
      cost.sample_s * static_cast<double>(std::max<std::int64_t>(cost.samples, 0)) +
      cost.validation_s;
  return cost.once_s + reps * per_repetition;
}

double skipped_case_seconds(int repetitions, const ModelRates& rates) {
  return std::max(repetitions, 1) * rates.per_benchmark_s;
}

double transfer_seconds(double bytes, double bytes_per_s) {
  return bytes_per_s > 0 ? bytes / bytes_per_s : 0.0;
}

double SuitePlan::estimated_s() const {
  double total = fixed_s;
  for (const auto& c : cases) total += c.estimated_s;
  return total;
}

double startup_seconds(int gpus, const ModelRates& rates) {
  return rates.process_start_s + std::max(gpus, 0) * rates.per_gpu_context_s;
}

std::string plan_json(const SuitePlan& plan) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : plan.cases) {
    cases.push_back({{"name", c.name}, {"estimated_s", c.estimated_s}});
  }
  const nlohmann::json out = {{"suite", plan.suite},
                              {"gpus", plan.gpus},
                              {"cases", cases},
                              {"estimated_s", plan.estimated_s()},
                              {"disk_bytes", plan.disk_bytes},
                              {"reused_s", plan.reused_s},
                              {"assumptions", plan.assumptions}};
  return out.dump();
}

std::optional<int> plan_count_from_args(int argc, char** argv, const std::string& name) {
  const std::string prefix = "--" + name + "=";
  std::optional<int> value;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(prefix, 0) != 0) continue;
    const auto n = parse_int(arg.substr(prefix.size()));
    if (!n || *n < 0 || *n > 1'000'000) {
      throw bad_input(prefix + "'" + arg.substr(prefix.size()) + "' is not a count",
                      "expected a non-negative integer", "pass e.g. " + prefix + "8");
    }
    value = static_cast<int>(*n);
  }
  return value;
}

std::vector<int> plan_devices(int gpus) {
  if (gpus <= 0) return {0};
  std::vector<int> out;
  for (int d = 0; d < gpus; ++d) out.push_back(d);
  return out;
}

}  // namespace gpubench::suite
