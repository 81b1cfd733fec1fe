#include "compare/allowance.hpp"

#include <cmath>

#include "compare/run_noise.hpp"

namespace gpubench::compare {
namespace {

// compare/README.md "Run-to-run allowance" gives the reason for each number. Keep the two in step.
constexpr RunToRunAllowance k_allowances[] = {
    {"allreduce", 0.20, 0.05},
    {"calibration", 0.08, 0.08},
    {"dataloader", 0.15, 0.05},
    {"fusion", 0.10, 0.08},
    {"gemm", 0.10, 0.08},
    {"launch", 0.10, 0.10},
    {"memory", 0.10, 0.05},
    {"transfer", 0.10, 0.08},
};

// "10%", "7.5%": the table's numbers as written there.
std::string percent_text(double fraction) {
  const double tenths = std::round(fraction * 1000.0);
  const long whole = static_cast<long>(tenths / 10.0);
  if (std::fmod(tenths, 10.0) == 0.0) return std::to_string(whole) + "%";
  return std::to_string(whole) + "." + std::to_string(static_cast<long>(tenths) % 10) + "%";
}

}  // namespace

std::span<const RunToRunAllowance> run_to_run_allowances() {
  return k_allowances;
}

std::optional<double> run_to_run_allowance(std::string_view suite, std::string_view device) {
  for (const RunToRunAllowance& a : k_allowances) {
    if (a.suite == suite) return device == "host" ? a.host_fraction : a.gpu_fraction;
  }
  return std::nullopt;
}

bool lacks_run_to_run_noise(const Entry& e) {
  const std::size_t history_runs = e.history ? e.history->runs : 0;
  if (history_runs >= k_min_history_runs) return false;
  return !(e.base.per_run && e.candidate.per_run);
}

std::string allowance_clause(const Entry& e) {
  if (!e.held_by_allowance) return "";
  const std::size_t history_runs = e.history ? e.history->runs : 0;
  return "within " + e.key.suite + "'s run-to-run allowance of " +
         percent_text(*e.held_by_allowance) + " (fewer than " +
         std::to_string(k_min_history_runs) + " runs of history: " +
         std::to_string(history_runs) +
         "); more runs of this series build the history that decides it";
}

namespace detail {

bool hold_within_run_to_run_allowance(Entry& e, const std::string& figures) {
  if (!lacks_run_to_run_noise(e)) return false;
  const auto allowance = run_to_run_allowance(e.key.suite, e.key.device);
  if (!allowance || !(*allowance > 0)) return false;
  if (!(std::fabs(e.ratio - 1.0) <= *allowance)) return false;
  e.verdict = Verdict::inconclusive;
  e.held_by_allowance = *allowance;
  e.reason = figures + " is beyond the within-run interval but " + allowance_clause(e);
  return true;
}

}  // namespace detail
}  // namespace gpubench::compare
