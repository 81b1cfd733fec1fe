// The nodes and ranks a multi-rank suite ran on (`gpubench run --launcher ...`): each rank's host,
// local rank, GPUs, NCCL/MPI versions and NCCL_* environment, gathered by the suite through rank 0
// into its Google Benchmark context ("gpubench.ranks", stored in suite_runs.context), plus the
// suite's end-of-run summary ("gpubench.allreduce.summary": peak busbw, knee, scaling efficiency,
// slow ranks). Read back here for `gpubench show`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/store.hpp"

namespace gpubench::harness {

struct RankRecord {
  int rank = 0;
  int local_rank = 0;
  std::string gpus;  // comma-separated UUIDs, "" for none
  std::string nccl;
  std::string mpi;
  std::map<std::string, std::string> env;
};

struct NodeRecord {
  std::string host;
  std::vector<RankRecord> ranks;  // by rank
};

struct SuiteNodes {
  std::string suite;
  std::vector<NodeRecord> nodes;  // in order of their first rank
  nlohmann::json summary;         // the suite's summary object, null when none
  // A run measures each suite in several executions (issue 35), each its own suite run with its
  // own context. read_suite_nodes merges them: `nodes` holds every rank of every execution once,
  // `summary` is the first execution's, and with several executions (those that recorded ranks
  // or a summary) `execution_summaries` holds each one's in order (null where one had none).
  std::size_t executions = 1;
  std::vector<nlohmann::json> execution_summaries;
};

// From one suite run's context object; empty nodes when it has no "gpubench.ranks" (a value that
// is not a JSON array of objects is ignored, not an error: the context is the suite's).
SuiteNodes nodes_from_context(const std::string& suite, const nlohmann::json& context);

// Every suite of `run_id` whose suite runs recorded ranks or a summary: one per suite, its
// executions merged.
std::vector<SuiteNodes> read_suite_nodes(results::Store& store, int64_t run_id);

// "nodes of allreduce: 2 ranks on 1 node (...)" then one line per node and the summary (each
// execution's, labelled, when there were several: "execution 2 of 3: ..."), a series' scaling_note
// after its figures.
void print_suite_nodes(std::ostream& out, const std::vector<SuiteNodes>& suites);
nlohmann::json suite_nodes_json(const std::vector<SuiteNodes>& suites);

}  // namespace gpubench::harness
