// The calibration suite's workload: a steady, deterministic, single-threaded CPU loop whose amount
// of work is scaled by GPUBENCH_CALIBRATION_SCALE, so a known effect (1.1 = 10% more work per
// call) can be put on real measurements to test compare's verdicts.
//
// Work is counted in units; a unit is one step of a dependent chain that lives in registers:
//   hash_chain     x ^= x >> 31; x *= odd constant; x ^= x >> 29   (64-bit integer, ~5 cycles)
//   mul_add_chain  y = y * a + b                                   (double, ~8 cycles, no FMA)
// Each step needs the previous result, so the loop can neither be vectorised nor overlapped,
// touches no memory, and runs at a rate set by instruction latency alone: steady on a busy
// machine, and exactly proportional to the unit count.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpubench::suites::calibration {

inline constexpr const char* k_scale_variable = "GPUBENCH_CALIBRATION_SCALE";
// Scales outside (0, k_max_scale] are refused: they are typos, not experiments.
inline constexpr double k_max_scale = 1000.0;

// The scale from the variable's text: empty or null -> 1.0. Anything that is not a finite
// decimal number in (0, k_max_scale] throws gpubench::Error (bad_input) naming the value and the
// fix.
double parse_calibration_scale(const char* text);
// parse_calibration_scale(getenv(k_scale_variable)).
double calibration_scale_from_env();

// Units one call runs: base_units x scale, rounded to nearest, at least 1.
std::uint64_t scaled_work_units(std::uint64_t base_units, double scale);

enum class Workload { hash_chain, mul_add_chain };
const char* to_string(Workload workload);

// Runs `units` steps of the chain from `seed` and returns the final state (feed it to
// benchmark::DoNotOptimize so the work stays).
std::uint64_t run_work(Workload workload, std::uint64_t units, std::uint64_t seed);

// One case of the suite: a workload and its units per call at scale 1.
struct CalibrationCase {
  Workload workload;
  std::uint64_t base_units;  // units per call at scale 1.0
};

// ~0.4 to 3.5 ms per call on a 3 GHz core; calls per repetition chosen so one repetition is ~7 ms.
inline constexpr CalibrationCase k_cases[] = {
    {Workload::hash_chain, 250'000},      {Workload::hash_chain, 500'000},
    {Workload::hash_chain, 1'000'000},    {Workload::hash_chain, 2'000'000},
    {Workload::mul_add_chain, 1'000'000},
};
// Units per repetition: calls per repetition = this / base_units (at least 1).
inline constexpr std::uint64_t k_units_per_repetition = 4'000'000;

}  // namespace gpubench::suites::calibration
