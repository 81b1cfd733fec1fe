// What the parts of the allreduce suite share: the run-wide state (profile, recorder, who every
// rank is), the registration entry points of the host reference (MPI) and the NCCL cases, and how
// one timed repetition becomes Google Benchmark data.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "suites/allreduce/case_outcome.hpp"
#include "suites/allreduce/collectives.hpp"
#include "suites/allreduce/sample_devices.hpp"
#include "suites/allreduce/sweep.hpp"
#include "suites/common/sample_state_counters.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::allreduce {

// Where a rank runs (gathered from every rank at start; complete on rank 0 only).
struct RankIdentity {
  int rank = 0;
  int local_rank = 0;
  std::string host;
  std::string gpu_uuid = "none";
};

struct SuiteState {
  suite::Profile profile = suite::Profile::standard;
  SweepRecorder recorder;
  std::vector<RankIdentity> ranks;  // by world rank (rank 0), or just this rank elsewhere
  // Alone (one process driving several GPUs): the UUID of each device index, for naming a slow one.
  std::vector<std::string> device_uuids;
  // Every case name registered, in order (the ranks compare a hash of it before running).
  std::vector<std::string> case_names;
  // The NCCL series registered to run (scope, rank count), and every rank's GPU by slot (rank 0):
  // the record of which GPUs each sample ran on (sample_devices.hpp).
  std::vector<std::pair<Scope, int>> series;
  std::vector<SlotGpu> slot_gpus;
};
SuiteState& suite_state();

// MPI host reference: MPI_Allreduce (sum, fp32) on host buffers, `device:host` in the names.
// Without MPI the cases are registered and skipped with the reason.
void register_host_reference();
std::string host_reference_note();  // for --gpubench_info
// Frees the host reference's MPI communicators (before MPI_Finalize).
void release_host_reference();

// NCCL cases (collectives x dtypes x placements x GPU counts x sizes). Without NCCL in the build,
// or without a usable GPU, a reduced set is registered and skipped with the reason.
void register_nccl_cases();
std::string nccl_note();          // for --gpubench_info
std::string nccl_library_text();  // "NCCL 2.28.9" / "not built"
// Destroys the NCCL communicators and buffers (before MPI_Finalize: a communicator's teardown may
// still talk to its peers).
void release_nccl();
// The UUID of every GPU this process drives (MPI: the one of its rank; alone: all), "" if none.
std::string local_gpu_uuids();
// Their PCI bus ids, in the same order ("0000:19:00.0,..."), "" if none.
std::string local_gpu_pci_bus_ids();

// An agreed outcome that is not ok, as Google Benchmark data: skipped -> suite::skip, failed ->
// suite::fail (every rank calls it with the same outcome, so every rank leaves the case). A
// failure is also printed on stderr by every rank ("gpubench-allreduce: rank R of N: <case>:
// failed: <reason>"): the other ranks' stdout is silenced, and the launcher's log should show
// that each rank left the case.
void report_outcome(benchmark::State& state, const std::string& case_name,
                    const CaseOutcome& outcome);

// One timed repetition, reported: `max_times_s` holds the timed calls' times (host reference: one
// per call; NCCL: one, the batch time per call), already the maximum across ranks (every rank
// passes the same values); `own_times` this process's per-rank medians (rank, seconds) of the ranks
// that took part (empty when none). `nominal_bytes` is the sweep's size before rounding, `bytes`
// the case's. Sets the iteration time to the median of max_times_s, the counters busbw/algbw
// (busbw only for ranks > 1), busbw_mean (from the mean over ranks of their own times, nccl-tests'
// default averaging; rank 0) and scaling_efficiency, records the repetition, and on rank 0 names a
// slow rank.
// `gpu_states` (NCCL cases; rank 0's): the repetition's window and the lowest SM clock over its
// GPUs, written as the sample-state counters (the store ties them to the series' GPUs through
// "gpubench.sample_devices"); null for the host reference.
void report_repetition(benchmark::State& state, const SeriesKey& key, std::size_t nominal_bytes,
                       std::size_t bytes, const std::string& name,
                       const std::vector<double>& max_times_s,
                       const std::vector<std::pair<int, double>>& own_times,
                       const suite::SampleStateRecorder* gpu_states = nullptr);

}  // namespace gpubench::allreduce
