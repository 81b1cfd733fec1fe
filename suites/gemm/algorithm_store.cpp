// The run's cuBLASLt choices, kept between its executions and runs (algorithm_store.hpp).
#include "suites/gemm/algorithm_store.hpp"

#include <cstdlib>

namespace gpubench::gemm {

AlgorithmStore::AlgorithmStore(std::filesystem::path dir)
    : m_path(dir.empty() ? std::filesystem::path() : dir / algorithm_file::k_file_name) {}

AlgorithmStore AlgorithmStore::from_environment() {
  const char* dir = std::getenv(k_run_scratch_env);
  return AlgorithmStore(dir && *dir ? std::filesystem::path(dir) : std::filesystem::path());
}

void AlgorithmStore::load() {
  m_loaded = true;
  if (enabled()) m_entries = algorithm_file::read_choices(m_path);
}

std::optional<StoredAlgorithm> AlgorithmStore::find(const std::string& key) {
  if (!m_loaded) load();
  const auto it = m_entries.find(key);
  if (it == m_entries.end()) return std::nullopt;
  return it->second;
}

bool AlgorithmStore::add(const std::string& key, const StoredAlgorithm& algorithm) {
  if (!enabled()) return false;
  if (!m_loaded) load();
  m_entries[key] = algorithm;
  return algorithm_file::append_choice(m_path, key, algorithm);
}

std::string reuse_note(const StoredAlgorithm& algorithm) {
  return algorithm.origin.empty() ? "reused=run" : "reused=" + algorithm.origin;
}

}  // namespace gpubench::gemm
