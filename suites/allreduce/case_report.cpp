#include <cstdio>
#include <map>

#include "suites/allreduce/cases.hpp"
#include "suites/allreduce/world.hpp"

namespace gpubench::allreduce {

SuiteState& suite_state() {
  static auto* s = new SuiteState();  // never destroyed: reached from benchmark bodies
  return *s;
}

namespace {

// Every participating rank's own median time, on rank 0 (empty elsewhere).
std::vector<RankTime> gather_rank_times(const std::vector<std::pair<int, double>>& own_times) {
  World& world = World::get();
  std::map<int, double> times;
  if (world.size() == 1) {
    for (const auto& [rank, t] : own_times) times[rank] = t;
  } else {
    // One rank per process under MPI: at most one own time each; -1 marks a rank that sat out.
    const double mine = own_times.empty() ? -1.0 : own_times.front().second;
    const std::vector<double> all = world.gather(mine);
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (all[r] >= 0) times[static_cast<int>(r)] = all[r];
    }
  }
  std::vector<RankTime> out;
  const auto& ids = suite_state().ranks;
  for (const auto& [rank, t] : times) {
    RankTime rt;
    rt.rank = rank;
    rt.time_s = t;
    const auto& uuids = suite_state().device_uuids;
    if (World::get().size() == 1) {  // one process, one "rank" per device it drives
      rt.local_rank = rank;
      rt.host = World::get().host();
      rt.gpu_uuid = static_cast<std::size_t>(rank) < uuids.size()
                        ? uuids[static_cast<std::size_t>(rank)]
                        : std::string("unknown");
    } else if (rank >= 0 && static_cast<std::size_t>(rank) < ids.size()) {
      rt.local_rank = ids[static_cast<std::size_t>(rank)].local_rank;
      rt.host = ids[static_cast<std::size_t>(rank)].host;
      rt.gpu_uuid = ids[static_cast<std::size_t>(rank)].gpu_uuid;
    } else {
      rt.local_rank = rank;
      rt.host = World::get().host();
      rt.gpu_uuid = "unknown";
    }
    out.push_back(std::move(rt));
  }
  return out;
}

}  // namespace

void report_outcome(benchmark::State& state, const std::string& case_name,
                    const CaseOutcome& outcome) {
  if (outcome.status == CaseStatus::skipped) {
    suite::skip(state, outcome.reason);
  } else if (outcome.status == CaseStatus::failed) {
    const World& w = World::get();
    std::fprintf(stderr, "gpubench-allreduce: rank %d of %d: %s: failed: %s\n", w.rank(), w.size(),
                 case_name.c_str(), outcome.reason.c_str());
    std::fflush(stderr);
    suite::fail(state, outcome.reason);
  }
}

void report_repetition(benchmark::State& state, const SeriesKey& key, std::size_t nominal_bytes,
                       std::size_t bytes, const std::string& name,
                       const std::vector<double>& max_times_s,
                       const std::vector<std::pair<int, double>>& own_times,
                       const suite::SampleStateRecorder* gpu_states) {
  const double t = median(max_times_s);
  state.SetIterationTime(t);
  const Bandwidth bw = bandwidth(key.collective, bytes, key.ranks, t);
  state.counters["algbw_GB_per_s"] = bw.algbw_GB_per_s;
  SweepRecorder& recorder = suite_state().recorder;
  if (key.ranks > 1) {
    state.counters["busbw_GB_per_s"] = bw.busbw_GB_per_s;
    recorder.add(key, nominal_bytes, bytes, bw.busbw_GB_per_s);
    if (const auto eff = recorder.efficiency_vs_two(key, nominal_bytes)) {
      state.counters["scaling_efficiency"] = *eff;
    }
  }
  const std::vector<RankTime> ranks = gather_rank_times(own_times);
  if (World::get().rank() == 0) {
    if (gpu_states) gpu_states->write(state);
    if (key.ranks > 1) {
      if (const auto mean_s = mean_rank_time_s(ranks)) {
        state.counters["busbw_mean_GB_per_s"] =
            bandwidth(key.collective, bytes, key.ranks, *mean_s).busbw_GB_per_s;
      }
    }
    if (const auto slow = find_slow_rank(ranks)) {
      recorder.add_slow_rank(name, *slow);
      state.SetLabel("slow " + describe(*slow));
    }
  }
}

}  // namespace gpubench::allreduce
