// A run's cuBLASLt algorithm choices as a file in the run's scratch directory
// (GPUBENCH_RUN_SCRATCH): the one definition of that file for the gemm suite, which reads it and
// appends what it searches (suites/gemm/algorithm_store.hpp), and for the harness, which seeds it
// with the stored choices that match this machine before the run's first suite and keeps what the
// run used in the results store after its last one (harness/run/algorithm_seed.hpp; issue 36
// "fixed algorithms"). Header-only and free of CUDA and of project dependencies, as
// util/sample_state.hpp, so suites and harness both include it.
//
// One line per choice, tab-separated: the case's benchmark name, the opaque cublasLtMatmulAlgo_t
// (its uint64_t data[8]) as 8 words of 16 hex digits, the median ms per call the search measured,
// the search's description ("algo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0 tied=2
// timed=8/8"), and where the choice came from: empty when an execution of this run searched it,
// "history:<run uuid>" when the harness seeded it from the stored run that searched it. A later
// line replaces an earlier one of the same name (a seeded choice that fails
// cublasLtMatmulAlgoCheck is searched again and appended); a line that does not parse is ignored
// (the torn last line of a killed execution). A line without the origin field, as written before
// it existed, reads as searched by this run.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpubench::algorithm_file {

// Environment variable naming the run's scratch directory (shared by its executions).
inline constexpr const char* k_scratch_env = "GPUBENCH_RUN_SCRATCH";
// The file's name in that directory.
inline constexpr const char* k_file_name = "gemm-algorithms.tsv";
// Origin of a choice seeded from the store: this prefix and the run's UUID.
inline constexpr std::string_view k_history_prefix = "history:";

using AlgorithmBytes = std::array<std::uint64_t, 8>;

struct Choice {
  AlgorithmBytes bytes{};
  std::string description;  // as the search described it
  double median_call_ms = 0;
  std::string origin;  // "" searched by this run; "history:<run uuid>" seeded from that run
};

// "history:<uuid>" for a choice the stored run `uuid` searched.
inline std::string history_origin(const std::string& uuid) {
  return std::string(k_history_prefix) + uuid;
}
// The run UUID of a "history:<uuid>" origin; nullopt for a choice of this run.
inline std::optional<std::string> history_run(const std::string& origin) {
  if (origin.size() <= k_history_prefix.size() ||
      origin.compare(0, k_history_prefix.size(), k_history_prefix) != 0) {
    return std::nullopt;
  }
  return origin.substr(k_history_prefix.size());
}

// The 8 words as 128 hex digits (how the results store keeps them), and back; nullopt unless the
// text is exactly 128 hex digits.
inline std::string bytes_hex(const AlgorithmBytes& bytes) {
  std::string out;
  for (std::uint64_t word : bytes) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016" PRIx64, word);
    out += hex;
  }
  return out;
}
inline std::optional<std::uint64_t> parse_word(std::string_view hex) {
  if (hex.size() != 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : hex) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) return std::nullopt;
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  return v;
}
inline std::optional<AlgorithmBytes> parse_bytes_hex(std::string_view hex) {
  if (hex.size() != 128) return std::nullopt;
  AlgorithmBytes out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto word = parse_word(hex.substr(i * 16, 16));
    if (!word) return std::nullopt;
    out[i] = *word;
  }
  return out;
}

// Tabs and newlines would split the line: written as spaces.
inline std::string one_field(const std::string& text) {
  std::string out = text;
  for (char& c : out) c = (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

// One line of the file, newline included.
inline std::string format_line(const std::string& key, const Choice& choice) {
  std::string line = one_field(key);
  for (std::uint64_t word : choice.bytes) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "\t%016" PRIx64, word);
    line += hex;
  }
  char ms[40];
  std::snprintf(ms, sizeof ms, "\t%.17g\t", choice.median_call_ms);
  line += ms;
  line += one_field(choice.description);
  line += '\t';
  line += one_field(choice.origin);
  return line + "\n";
}

// A line without its newline; nullopt when it is not one.
inline std::optional<std::pair<std::string, Choice>> parse_line(const std::string& line) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', start);
    parts.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  if ((parts.size() != 11 && parts.size() != 12) || parts[0].empty()) return std::nullopt;
  Choice c;
  for (std::size_t i = 0; i < 8; ++i) {
    const auto word = parse_word(parts[i + 1]);
    if (!word) return std::nullopt;
    c.bytes[i] = *word;
  }
  char* end = nullptr;
  errno = 0;
  c.median_call_ms = std::strtod(parts[9].c_str(), &end);
  if (errno != 0 || end == parts[9].c_str() || *end != '\0') return std::nullopt;
  c.description = parts[10];
  if (parts.size() == 12) {
    c.origin = parts[11];
    if (!c.origin.empty() && !history_run(c.origin)) return std::nullopt;
  }
  return std::make_pair(parts[0], c);
}

// Every choice of the file at `path`, the last line of a name winning; empty when it is missing.
inline std::map<std::string, Choice> read_choices(const std::filesystem::path& path) {
  std::map<std::string, Choice> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (auto parsed = parse_line(line)) out[parsed->first] = std::move(parsed->second);
  }
  return out;
}

// Appends one line in one write (O_APPEND): executions of a run never run at once, and a killed
// one leaves at most a torn last line. False when it cannot be written.
inline bool append_choice(const std::filesystem::path& path, const std::string& key,
                          const Choice& choice) {
  const std::string line = format_line(key, choice);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const ssize_t written = ::write(fd, line.data(), line.size());
  ::close(fd);
  return written == static_cast<ssize_t>(line.size());
}

}  // namespace gpubench::algorithm_file
