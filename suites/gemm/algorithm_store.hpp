// The cuBLASLt algorithms one run chose, kept for its later executions (issue 35; issue 36
// "algorithms fixed"). A run measures every suite in several processes; the algorithm search
// (16 candidates timed per case) is most of a gemm execution's time on large shapes, and a second
// search could choose differently and turn noise into a change of algorithm. So the first
// execution of a run writes each case's choice to the run's scratch directory
// (GPUBENCH_RUN_SCRATCH, set by `gpubench run`), and the later ones read it, check it with
// cublasLtMatmulAlgoCheck, and reuse it (a choice that fails the check is searched again).
// CUDA-free: the algorithm is its 64 opaque bytes (cublasLtMatmulAlgo_t is uint64_t data[8]).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace gpubench::gemm {

using AlgorithmBytes = std::array<std::uint64_t, 8>;

struct StoredAlgorithm {
  AlgorithmBytes bytes{};
  std::string description;  // as the search described it ("algo=23 tile=20 ... timed=8/8")
  double median_call_ms = 0;
};

// Environment variable naming the run's scratch directory (shared by its executions).
inline constexpr const char* k_run_scratch_env = "GPUBENCH_RUN_SCRATCH";

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

// One line of the file: key, 16 hex digits x 8, median ms, description, tab-separated. Exposed
// for tests.
std::string algorithm_line(const std::string& key, const StoredAlgorithm& algorithm);
std::optional<std::pair<std::string, StoredAlgorithm>> parse_algorithm_line(const std::string& line);

}  // namespace gpubench::gemm
