// The consumer's training step: what the pipeline's consumer does with each batch between the
// sink's begin() and end() (issue 41 item 4, "GPU busy"). Variants:
//   EmulatedStep  sleeps S us per batch on the consumer thread: the only one without a GPU, and
//                 the case label then says `consumer=emulated (no GPU: <reason>)`
//   GEMM step     (training_step_cuda.cpp) bf16 cuBLAS GEMMs (fp32 accumulate) sized to S us,
//                 enqueued after the batch's H2D copy (the device waits on the copy's event, the
//                 host does not), at most k_max_steps_in_flight steps queued
// and the host rules around them, CUDA-free and unit-tested: the GEMM sizing rule, the GPU's idle
// fraction and the feed limit. The knee (the worker count from which the GPU stops waiting) is
// the report's: compare/dataloader/worker_sizing.hpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "suites/dataloader/device_staging.hpp"
#include "suites/dataloader/pipeline.hpp"

namespace gpubench::dataloader {

class TrainingStep {
 public:
  virtual ~TrainingStep() = default;
  // Consumer thread, after sink.begin(batch) and before sink.end(batch). A GPU step returns once
  // its work is queued, after waiting for the step k_max_steps_in_flight back to finish.
  virtual void run(const Batch& batch) = 0;
  // Waits for every step run() queued; the pipeline calls it before the epoch's clock stops, so
  // the wall time covers the last step.
  virtual void finish() {}
  // Steps run and the seconds they took, since construction: CUDA events around each step on the
  // GPU, the steady clock around each sleep when emulated. Valid after finish().
  virtual std::uint64_t steps() const = 0;
  virtual double step_seconds() const = 0;
  // What the case label says about the consumer, e.g. "consumer=gemm n=8192 x3 ...".
  virtual std::string label() const = 0;
};

// Sleeps `step` per batch (sleep, not spin: the consumer thread leaves the CPU to the workers).
class EmulatedStep final : public TrainingStep {
 public:
  explicit EmulatedStep(std::chrono::microseconds step, std::string no_gpu_reason = {});
  void run(const Batch& batch) override;
  std::uint64_t steps() const override { return m_steps; }
  double step_seconds() const override { return m_seconds; }
  // "consumer=emulated (no GPU: <reason>)", or "consumer=emulated" without a reason.
  std::string label() const override;

 private:
  std::chrono::microseconds m_step;
  std::string m_reason;
  std::uint64_t m_steps = 0;
  double m_seconds = 0;
};

// ---- The GEMM step's sizing rule ----------------------------------------------------------------
// One step is `repeats` chained GEMMs of n x n x n (bf16 inputs, fp32 accumulate and output).
// Calibration times a shape on the device and rescales it: the work n^3 x repeats is scaled by
// target / measured; n is the cube root of that work (a multiple of k_gemm_n_multiple, at least
// k_gemm_min_n) while it fits k_gemm_max_n, and beyond that the fewest GEMMs of n <= k_gemm_max_n
// that hold the work (at most k_gemm_max_repeats), n again from the cube root of each GEMM's
// share (rounding n to a multiple of 64 moves the work by at most 3 x 32 / n: under 5% from
// n = 2000 up, 1.3% near 8192). Repeat until the measured step is within k_step_tolerance of the
// target, at most k_max_calibration_rounds times; otherwise the closest shape timed is used.
struct GemmShape {
  int n = 0;
  int repeats = 1;
};
inline constexpr int k_gemm_min_n = 256;
inline constexpr int k_gemm_max_n = 8192;  // 128 MiB per bf16 input, 256 MiB fp32 output
inline constexpr int k_gemm_n_multiple = 64;
// A bound on chained GEMMs, so a step timed absurdly short (a broken timer) cannot overflow the
// count: 1024 GEMMs of 8192 are seconds on any GPU this targets, above any target step.
inline constexpr int k_gemm_max_repeats = 1024;
inline constexpr double k_step_tolerance = 0.10;  // |measured / target - 1|
inline constexpr int k_max_calibration_rounds = 8;
inline constexpr int k_max_steps_in_flight = 2;  // the consumer blocks on the step two back

// The next shape to try after `current` took `measured_ms` for a target of `target_ms` (both > 0
// and finite, else Error(bad_input)). A measurement so short that the scaled work overflows
// gives the largest shape, n = k_gemm_max_n x k_gemm_max_repeats.
GemmShape next_gemm_shape(const GemmShape& current, double measured_ms, double target_ms);
bool within_step_tolerance(double measured_ms, double target_ms);

struct StepCalibration {
  GemmShape shape;         // the shape chosen
  double step_ms = 0;      // what it measured
  int rounds = 0;          // shapes timed
  bool converged = false;  // step_ms within k_step_tolerance of the target; else the closest one
};
// Runs the rule from `start` with `time_step_ms` timing one step of a shape (on the device, or a
// model in tests). Throws Error(infrastructure) when a timing is not a positive finite number (a
// broken timer: no shape can be sized from it).
StepCalibration calibrate_gemm_step(double target_ms, GemmShape start,
                                    const std::function<double(const GemmShape&)>& time_step_ms);

// The calibration whose target (microseconds, the map's key; keys > 0) is nearest `target_us` by
// ratio, the measure next_gemm_shape scales by: of the two calibrated neighbours of the target,
// the one with the smaller max(key, target) / min(key, target). end() when `done` is empty.
std::map<long long, StepCalibration>::const_iterator nearest_calibration(
    const std::map<long long, StepCalibration>& done, long long target_us);

// ---- What the cases report
// ------------------------------------------------------------------------ 1 - step_s / wall_s,
// clamped to [0, 1]: the share of the epoch's wall time the GPU (or the emulated step) was not
// stepping, i.e. waited for input. 0 when wall_s <= 0.
double gpu_idle_fraction(double step_s, double wall_s);
// batch / step time: the input rate at which the GPU is saturated; fed more slowly, it waits.
// 0 when step_s <= 0.
double feed_limit_samples_per_s(std::size_t batch, double step_s);

// Where the GPU starts waiting over worker counts (the knee) is the report's, from these
// metrics: compare/dataloader/worker_sizing.hpp.

// ---- The GPU step (training_step_cuda.cpp; training_step_stub.cpp without CUDA) ----------------
// Empty when the GEMM step can run here; else why not ("no CUDA device (...)", "libcublas.so.13
// not found (searched: ...)").
std::string gemm_step_unavailable_reason();
// For --gpubench_info: "GPU-busy train cases: GEMM step (cuBLAS: <path>)" or "GPU-busy train
// cases: emulated step: <why>".
std::string gemm_step_note();
// Records where cuBLAS was loaded from in the suite's context (gpubench.libraries), when a GPU is
// usable; nothing otherwise (no library is loaded for a case that cannot run). Loads cuBLAS and
// cuBLASLt: the suite's main calls it only when gemm_step_cases_run() says a GPU-step case runs.
void add_gemm_step_context();

// What a suite binary's arguments select, read as Google Benchmark 1.7.1 reads them before it runs
// anything: `--benchmark_list_tests[=BOOL]` (lists, runs nothing) and `--benchmark_filter=REGEX`
// (the last of each wins; without one, the environment's BENCHMARK_LIST_TESTS and
// BENCHMARK_FILTER, passed here so tests can set them).
struct BenchmarkSelection {
  bool list_only = false;
  std::string filter;  // empty or "all": every case; "-REGEX": those REGEX does not match
};
BenchmarkSelection benchmark_selection(const std::vector<std::string>& args, const char* env_filter,
                                       const char* env_list_tests);
// Whether the selection runs any of `run_names` (Google Benchmark run names, e.g.
// "dataloader/train/.../iterations:3/manual_time"): the filter is a POSIX extended regex searched
// in each name, as Google Benchmark does. An invalid regex counts as running them (the run then
// fails on it; the libraries' context is the lesser question).
bool gemm_step_cases_run(const BenchmarkSelection& selection,
                         const std::vector<std::string>& run_names);
// A GEMM step of about `target` per batch on the staging device, fed by `sink`: each run(batch)
// waits on the device for the batch's copy (H2DSink::copy_done_event). Calibrates (once per
// target per process) and validates a few output entries against a CPU dot product on the same
// bf16 inputs (once per shape per process) before it returns; throws Error(infrastructure) when
// the GPU result is wrong or the GPU is unavailable. The operands (512 MiB), stream and cuBLAS
// handle are made on the first call for a device and kept for the process, so a case's
// repetitions do not allocate or fill them again. `sink` must outlive the step.
std::unique_ptr<TrainingStep> make_gemm_step(H2DSink& sink, std::chrono::microseconds target);

}  // namespace gpubench::dataloader
