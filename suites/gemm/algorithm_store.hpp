// The cuBLASLt algorithms a run uses, kept for its later executions and, through the results
// store, for later runs (issue 35; issue 36 "fixed algorithms"). A run measures every suite in
// several processes; the algorithm search (16 candidates timed per case) is most of a gemm
// execution's time on large shapes, and a second search could choose differently and turn noise
// into a change of algorithm. So a case's choice lives in the run's scratch directory
// (GPUBENCH_RUN_SCRATCH, set by `gpubench run`; the file is util/algorithm_file.hpp's): before the
// run the harness seeds it with the newest stored choices made on this GPU model, driver and
// cuBLASLt version (harness/run/algorithm_seed.hpp), the first execution that finds no choice
// searches and appends one, and every execution checks what it finds with
// cublasLtMatmulAlgoCheck before using it (a choice that fails the check is searched again).
// CUDA-free: the algorithm is its 64 opaque bytes (cublasLtMatmulAlgo_t is uint64_t data[8]).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "util/algorithm_file.hpp"

namespace gpubench::gemm {

using AlgorithmBytes = algorithm_file::AlgorithmBytes;
using StoredAlgorithm = algorithm_file::Choice;

// Environment variable naming the run's scratch directory (shared by its executions).
inline constexpr const char* k_run_scratch_env = algorithm_file::k_scratch_env;

class AlgorithmStore {
 public:
  // The store file in `dir` ("gemm-algorithms.tsv"); an empty path: no store (nothing kept).
  explicit AlgorithmStore(std::filesystem::path dir);
  // From GPUBENCH_RUN_SCRATCH; no store when it is unset or empty.
  static AlgorithmStore from_environment();

  bool enabled() const { return !m_path.empty(); }
  const std::filesystem::path& path() const { return m_path; }

  // The choice stored for `key` (the case's benchmark name), read from the file the first time.
  // Lines that do not parse are ignored (a torn last line of a killed execution).
  std::optional<StoredAlgorithm> find(const std::string& key);
  // Appends one line (one write, O_APPEND). Returns false when it cannot be written; the run
  // then searches again in its next execution, which costs time, not correctness.
  bool add(const std::string& key, const StoredAlgorithm& algorithm);

 private:
  void load();
  std::filesystem::path m_path;
  bool m_loaded = false;
  std::map<std::string, StoredAlgorithm> m_entries;
};

// Where a reused choice came from, as the case's label says it after the search's description:
// "reused=run" (an earlier execution of this run searched it) or "reused=history:<run uuid>"
// (the stored run that searched it; the harness seeded it).
std::string reuse_note(const StoredAlgorithm& algorithm);

// One line of the file (util/algorithm_file.hpp). Exposed for tests.
inline std::string algorithm_line(const std::string& key, const StoredAlgorithm& algorithm) {
  return algorithm_file::format_line(key, algorithm);
}
inline std::optional<std::pair<std::string, StoredAlgorithm>> parse_algorithm_line(
    const std::string& line) {
  return algorithm_file::parse_line(line);
}

}  // namespace gpubench::gemm
