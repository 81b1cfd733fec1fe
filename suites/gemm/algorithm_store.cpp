// The run's cuBLASLt choices, kept between its executions (algorithm_store.hpp).
#include "suites/gemm/algorithm_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace gpubench::gemm {

namespace {
constexpr const char* k_file_name = "gemm-algorithms.tsv";

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return out;
}
}  // namespace

std::string algorithm_line(const std::string& key, const StoredAlgorithm& algorithm) {
  std::string line = key;
  for (std::uint64_t word : algorithm.bytes) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "\t%016" PRIx64, word);
    line += hex;
  }
  char ms[40];
  std::snprintf(ms, sizeof ms, "\t%.17g\t", algorithm.median_call_ms);
  line += ms;
  for (char c : algorithm.description) line += (c == '\t' || c == '\n') ? ' ' : c;
  return line + "\n";
}

std::optional<std::pair<std::string, StoredAlgorithm>> parse_algorithm_line(
    const std::string& line) {
  const std::vector<std::string> parts = split_tabs(line);
  if (parts.size() != 11 || parts[0].empty()) return std::nullopt;
  StoredAlgorithm a;
  for (std::size_t i = 0; i < 8; ++i) {
    const std::string& word = parts[i + 1];
    if (word.size() != 16) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(word.c_str(), &end, 16);
    if (errno != 0 || end != word.c_str() + word.size()) return std::nullopt;
    a.bytes[i] = static_cast<std::uint64_t>(v);
  }
  char* end = nullptr;
  a.median_call_ms = std::strtod(parts[9].c_str(), &end);
  if (end == parts[9].c_str() || *end != '\0') return std::nullopt;
  a.description = parts[10];
  return std::make_pair(parts[0], a);
}

AlgorithmStore::AlgorithmStore(std::filesystem::path dir)
    : m_path(dir.empty() ? std::filesystem::path() : dir / k_file_name) {}

AlgorithmStore AlgorithmStore::from_environment() {
  const char* dir = std::getenv(k_run_scratch_env);
  return AlgorithmStore(dir && *dir ? std::filesystem::path(dir) : std::filesystem::path());
}

void AlgorithmStore::load() {
  m_loaded = true;
  if (!enabled()) return;
  std::ifstream in(m_path);
  std::string line;
  while (std::getline(in, line)) {
    // Only whole lines: the last one of a killed execution may be torn (no newline at EOF is
    // fine for getline, a torn one fails to parse).
    if (auto parsed = parse_algorithm_line(line)) m_entries[parsed->first] = parsed->second;
  }
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
  const std::string line = algorithm_line(key, algorithm);
  const int fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const ssize_t written = ::write(fd, line.data(), line.size());
  ::close(fd);
  return written == static_cast<ssize_t>(line.size());
}

}  // namespace gpubench::gemm
