// Internal to compare/history/series_*.cpp: the change point steps that load_history
// (series_history.cpp) runs on the series it loaded, defined in series_changes.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "compare/history/series_history.hpp"
#include "results/change_points.hpp"

namespace gpubench::compare::series_history_detail {

// The member of a stored scan's parameters (change_point_scans.parameters) that holds how many
// change points the record stored for the series; the other members are scan_parameters_json.
// A scan without it (an earlier gpubench's) vouches for nothing: the series is detected in full.
inline constexpr const char* k_scan_change_points = "change_points";

// The stored state of one series that incremental recording starts from.
struct Prior {
  std::vector<std::pair<std::size_t, double>> kept;  // (point index, p value), oldest first
  std::size_t tail_from = 0;                         // detection runs on points [tail_from, n)
  bool reuse_all = false;                            // no new run: nothing to detect
};

// Where incremental recording starts for `s`, from its stored scan; none: detect in full.
std::optional<Prior> prior_of(const History& h, const SeriesHistory& s,
                              const results::ChangePointScan& scan,
                              const std::vector<std::pair<int64_t, double>>& stored);

// Detects the change points of `s` (from `prior` when given) and fills s.changes with their
// figures and the environment differences either side (`memo`: per pair of runs).
void find_changes(const History& h, SeriesHistory& s,
                  std::map<std::pair<std::size_t, std::size_t>, std::vector<EnvDifference>>& memo,
                  const Prior* prior);

// Ranks every change's environment differences, most likely cause first.
void rank_differences(History& h);

}  // namespace gpubench::compare::series_history_detail
