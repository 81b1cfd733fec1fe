#include "suites/calibration/calibration_work.hpp"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <string>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::suites::calibration {

double parse_calibration_scale(const char* text) {
  if (text == nullptr) return 1.0;
  const std::string_view trimmed = gpubench::trim(text);
  if (trimmed.empty()) return 1.0;
  const auto value = gpubench::parse_double(trimmed);
  const std::string what =
      std::string(k_scale_variable) + "='" + std::string(text) + "' is not a valid scale";
  const std::string fix =
      "set it to a positive number such as 1.0 (the default) or 1.1 (10% "
      "more work), or unset it";
  if (!value) throw gpubench::bad_input(what, "it is not a decimal number", fix);
  if (!std::isfinite(*value) || *value <= 0.0 || *value > k_max_scale) {
    throw gpubench::bad_input(
        what,
        "it must be greater than 0 and at most " + gpubench::format_significant(k_max_scale, 4),
        fix);
  }
  return *value;
}

double calibration_scale_from_env() {
  return parse_calibration_scale(std::getenv(k_scale_variable));
}

std::uint64_t scaled_work_units(std::uint64_t base_units, double scale) {
  const double units = std::nearbyint(static_cast<double>(base_units) * scale);
  if (!(units >= 1.0)) return 1;
  return static_cast<std::uint64_t>(units);
}

const char* to_string(Workload workload) {
  switch (workload) {
    case Workload::hash_chain:
      return "hash_chain";
    case Workload::mul_add_chain:
      return "mul_add_chain";
  }
  return "hash_chain";
}

std::uint64_t run_work(Workload workload, std::uint64_t units, std::uint64_t seed) {
  if (workload == Workload::hash_chain) {
    std::uint64_t x = seed | 1u;
    for (std::uint64_t i = 0; i < units; ++i) {
      // SplitMix64's finaliser steps: a bijection with no shortcut to the n-th iterate.
      x ^= x >> 31;
      x *= 0xBF58476D1CE4E5B9ull;
      x ^= x >> 29;
    }
    return x;
  }
  // y decays from 2..8 towards the fixed point b / (1 - a) = 1 by a factor (1 - 1e-7) per step,
  // so after millions of steps it is still moving (every unit changes the result) and stays a
  // normal number (no denormal slow path ever changes the speed).
  const double a = 1.0 - 1e-7;
  const double b = 1e-7;
  double y = 2.0 + static_cast<double>(seed % 7);
  for (std::uint64_t i = 0; i < units; ++i) y = y * a + b;
  return std::bit_cast<std::uint64_t>(y);
}

}  // namespace gpubench::suites::calibration
