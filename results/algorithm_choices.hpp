// The cuBLASLt algorithms a run's GEMM cases used, stored with the run (table
// cublaslt_algorithms, schema v6; issue 36 "fixed algorithms"). `gpubench run` stores them after
// its last suite and, before its first, seeds its scratch file with the newest stored choice of
// each case made on the same GPU model, driver and cuBLAS version (harness/run/algorithm_seed.hpp),
// so the same kernel is timed run after run until one of the three changes or `--reselect-algos`
// searches again. Exported, imported and merged with their run (exchange/exchange_tables.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::results {

class Store;

struct AlgorithmChoiceRow {
  std::string benchmark;  // the case's full name ("gemm/bf16/.../device:0/manual_time")
  // What it was chosen with; "unknown" when the run could not tell (then it is never reused).
  std::string gpu_model;       // "NVIDIA H200"
  std::string driver_version;  // "560.35.03"
  std::string cublas_version;  // "13.0.2" (cuBLASLt ships with cuBLAS, at its version)
  std::string algorithm;       // cublasLtMatmulAlgo_t as 128 hex digits
  std::string description;     // "algo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0 ..."
  std::optional<double> median_call_ms;  // the search's median per call
  std::string origin_run_uuid;           // "": its run searched it; else the run that did
  // Read back only: the run that stored it.
  int64_t run_id = 0;
  std::string run_uuid;
  std::string run_started_at;
};

// Stores `rows` as run `run_id`'s (one transaction; a benchmark stored already for the run is
// replaced). Throws Error(bad_input) for an unknown run.
void add_algorithm_choices(Store& store, int64_t run_id,
                           const std::vector<AlgorithmChoiceRow>& rows);

// The choices stored with a run, by benchmark name; empty for runs without any (no gemm suite,
// stored before schema v6).
std::vector<AlgorithmChoiceRow> algorithm_choices_of_run(Store& store, int64_t run_id);

// The benchmarks of run `run_id` with an ok outcome in at least one of its suite runs: the cases
// whose algorithm the run really used (a case skipped or failed everywhere is not kept).
std::vector<std::string> benchmarks_ok_in_run(Store& store, int64_t run_id);

// Choices made with this driver and cuBLAS version by runs other than `except_run`, the newest
// run first (started_at, then id). Empty when either version is "unknown" or empty: an unknown
// fact never matches. The GPU model is matched by the caller, per case.
std::vector<AlgorithmChoiceRow> algorithm_choices_with(Store& store,
                                                       const std::string& driver_version,
                                                       const std::string& cublas_version,
                                                       int64_t except_run);

}  // namespace gpubench::results
