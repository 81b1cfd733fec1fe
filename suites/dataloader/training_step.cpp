#include "suites/dataloader/training_step.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <regex>
#include <string_view>
#include <thread>

#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

EmulatedStep::EmulatedStep(std::chrono::microseconds step, std::string no_gpu_reason)
    : m_step(step), m_reason(std::move(no_gpu_reason)) {}

void EmulatedStep::run(const Batch& /*batch*/) {
  const auto t0 = Clock::now();
  std::this_thread::sleep_until(t0 + m_step);
  m_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  m_steps += 1;
}

std::string EmulatedStep::label() const {
  return m_reason.empty() ? "consumer=emulated" : "consumer=emulated (no GPU: " + m_reason + ")";
}

bool within_step_tolerance(double measured_ms, double target_ms) {
  return target_ms > 0 && std::abs(measured_ms / target_ms - 1.0) <= k_step_tolerance;
}

GemmShape next_gemm_shape(const GemmShape& current, double measured_ms, double target_ms) {
  if (!(measured_ms > 0) || !(target_ms > 0) || !std::isfinite(measured_ms) ||
      !std::isfinite(target_ms) || current.n < 1 || current.repeats < 1) {
    throw bad_input("cannot size a GEMM step from " + std::to_string(measured_ms) + " ms for " +
                        std::to_string(target_ms) + " ms",
                    "the measured and target step times must be positive and finite, and the "
                    "shape positive");
  }
  // Work in units of n^3 (one GEMM's flops / 2), scaled by the ratio of times: a GEMM this large
  // is compute-bound, so time is proportional to work. Capped at the largest step, so a tiny
  // measurement (the ratio overflowing to inf) cannot reach lround(inf) below.
  const double n = current.n;
  const double max_n = k_gemm_max_n;
  const double max_work = max_n * max_n * max_n;
  const double work = std::min(n * n * n * current.repeats * (target_ms / measured_ms),
                               max_work * k_gemm_max_repeats);
  GemmShape next;
  next.repeats =
      work <= max_work
          ? 1
          : static_cast<int>(std::min<double>(std::ceil(work / max_work), k_gemm_max_repeats));
  const double each = std::cbrt(work / next.repeats);
  const int rounded = static_cast<int>(std::lround(each / k_gemm_n_multiple)) * k_gemm_n_multiple;
  next.n = std::clamp(rounded, k_gemm_min_n, k_gemm_max_n);
  return next;
}

StepCalibration calibrate_gemm_step(double target_ms, GemmShape start,
                                    const std::function<double(const GemmShape&)>& time_step_ms) {
  StepCalibration best;
  double best_error = std::numeric_limits<double>::infinity();
  GemmShape shape = start;
  for (int round = 1; round <= k_max_calibration_rounds; ++round) {
    const double ms = time_step_ms(shape);
    if (!(ms > 0) || !std::isfinite(ms)) {
      throw infrastructure("timing a GEMM step of n=" + std::to_string(shape.n) + " x" +
                               std::to_string(shape.repeats) + " gave " + std::to_string(ms) +
                               " ms",
                           "a step's time must be a positive finite number",
                           "check the GPU and its driver (the gemm suite times the same GEMM)");
    }
    const double error = std::abs(ms / target_ms - 1.0);
    if (error < best_error) {
      best_error = error;
      best.shape = shape;
      best.step_ms = ms;
      best.converged = within_step_tolerance(ms, target_ms);
    }
    best.rounds = round;
    if (best.converged) break;
    const GemmShape next = next_gemm_shape(shape, ms, target_ms);
    // At a bound of n (or already the rule's answer): another round would time the same shape.
    if (next.n == shape.n && next.repeats == shape.repeats) break;
    shape = next;
  }
  return best;
}

std::map<long long, StepCalibration>::const_iterator nearest_calibration(
    const std::map<long long, StepCalibration>& done, long long target_us) {
  auto above = done.lower_bound(target_us);  // first key >= target
  if (above == done.begin()) return above;   // end() when empty
  auto below = std::prev(above);
  if (above == done.end()) return below;
  // Ratios, not differences: above / target < target / below, without dividing.
  const double t = static_cast<double>(target_us);
  return static_cast<double>(above->first) * static_cast<double>(below->first) < t * t ? above
                                                                                       : below;
}

namespace {

// Google Benchmark's IsTruthyFlagValue: "", "1", "true", "yes", ... are true; "0", "f", "n",
// "false", "no", "off" (any case) are false.
bool truthy(std::string value) {
  if (value.size() == 1) {
    const char v = value[0];
    return std::isalnum(static_cast<unsigned char>(v)) && v != '0' && v != 'f' && v != 'F' &&
           v != 'n' && v != 'N';
  }
  for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return value != "false" && value != "no" && value != "off";
}

}  // namespace

BenchmarkSelection benchmark_selection(const std::vector<std::string>& args, const char* env_filter,
                                       const char* env_list_tests) {
  BenchmarkSelection out;
  if (env_filter != nullptr) out.filter = env_filter;
  if (env_list_tests != nullptr) out.list_only = truthy(env_list_tests);
  constexpr std::string_view list_flag = "--benchmark_list_tests";
  constexpr std::string_view filter_flag = "--benchmark_filter=";
  for (const std::string& arg : args) {
    const std::string_view a = arg;
    if (a == list_flag) {
      out.list_only = true;
    } else if (a.substr(0, list_flag.size()) == list_flag && a.size() > list_flag.size() &&
               a[list_flag.size()] == '=') {
      out.list_only = truthy(arg.substr(list_flag.size() + 1));
    } else if (a.substr(0, filter_flag.size()) == filter_flag) {
      out.filter = arg.substr(filter_flag.size());
    }
  }
  return out;
}

bool gemm_step_cases_run(const BenchmarkSelection& selection,
                         const std::vector<std::string>& run_names) {
  if (selection.list_only || run_names.empty()) return false;
  std::string spec = selection.filter;
  if (spec.empty() || spec == "all") return true;
  const bool negative = spec[0] == '-';
  if (negative) spec.erase(0, 1);
  try {
    const std::regex re(spec, std::regex_constants::extended);
    for (const std::string& name : run_names) {
      if (std::regex_search(name, re) != negative) return true;
    }
    return false;
  } catch (const std::regex_error&) {
    return true;
  }
}

double gpu_idle_fraction(double step_s, double wall_s) {
  if (!(wall_s > 0)) return 0;
  return std::clamp(1.0 - step_s / wall_s, 0.0, 1.0);
}

double feed_limit_samples_per_s(std::size_t batch, double step_s) {
  return step_s > 0 ? static_cast<double>(batch) / step_s : 0;
}

}  // namespace gpubench::dataloader
