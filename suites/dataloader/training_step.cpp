#include "suites/dataloader/training_step.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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
  if (!(measured_ms > 0) || !(target_ms > 0) || current.n < 1 || current.repeats < 1) {
    throw bad_input("cannot size a GEMM step from " + std::to_string(measured_ms) + " ms for " +
                        std::to_string(target_ms) + " ms",
                    "the measured and target step times and the shape must be positive");
  }
  // Work in units of n^3 (one GEMM's flops / 2), scaled by the ratio of times: a GEMM this large
  // is compute-bound, so time is proportional to work.
  const double n = current.n;
  const double work = n * n * n * current.repeats * (target_ms / measured_ms);
  const double max_n = k_gemm_max_n;
  const double max_work = max_n * max_n * max_n;
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

double gpu_idle_fraction(double step_s, double wall_s) {
  if (!(wall_s > 0)) return 0;
  return std::clamp(1.0 - step_s / wall_s, 0.0, 1.0);
}

double feed_limit_samples_per_s(std::size_t batch, double step_s) {
  return step_s > 0 ? static_cast<double>(batch) / step_s : 0;
}

}  // namespace gpubench::dataloader
