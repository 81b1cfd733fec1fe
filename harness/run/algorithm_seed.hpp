// gemm's cuBLASLt algorithm choices across runs (issue 36 "fixed algorithms"). Before a run's
// first suite, `gpubench run` seeds the run's scratch file (util/algorithm_file.hpp) with the
// newest stored choice of every case made on this machine's GPU model, driver and cuBLAS(Lt)
// version; after its last suite it stores the choices the run used with the run
// (results/algorithm_choices.hpp). The gemm suite checks a seeded choice with
// cublasLtMatmulAlgoCheck before using it, searches again when it fails, and its label says
// "reused=history:<run uuid>" (the stored run that searched it) or "reused=run". `gpubench run
// --reselect-algos` skips the seeding: every case is searched, and its choices become the newest.
//
// One choice per case name: the name holds device:N, so on a multi-GPU server each GPU's case has
// its own, as within a run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "results/model.hpp"

namespace gpubench::results {
class Store;
}

namespace gpubench::harness {

// The GPU model the case `benchmark` ran on, from the run's GPUs and its recorded environment:
// the model of every GPU when they are all one model (the usual server); on a server of mixed
// models, the device:N of the name taken as the N-th GPU in PCI bus order (suites run with
// CUDA_DEVICE_ORDER=PCI_BUS_ID), unless CUDA_VISIBLE_DEVICES renumbers the GPUs; "unknown"
// otherwise (such a choice is stored but never reused).
std::string case_gpu_model(const std::string& benchmark, const std::vector<results::GpuInfo>& gpus,
                           const std::map<std::string, std::string>& env);

// Writes into `scratch` the newest stored choice of each case whose GPU model (case_gpu_model),
// driver and cuBLAS version match those recorded for run `run_id` (the environment probe's), made
// by any other run. Returns the number of cases seeded (0 when a fact is unknown: nothing matches).
std::size_t seed_algorithms(results::Store& store, int64_t run_id,
                            const std::filesystem::path& scratch);

// Stores with run `run_id` the choices in `scratch` of the cases it ran with an ok outcome (a
// stored name matches its case once Google Benchmark's "/iterations:N/manual_time" is taken off),
// with its GPU model, driver and cuBLAS version and where each came from. Returns how many.
std::size_t keep_algorithms(results::Store& store, int64_t run_id,
                            const std::filesystem::path& scratch);

}  // namespace gpubench::harness
