// A seeded mutation loop over the ingest fuzz target, for compilers without libFuzzer (ctest
// runs it for 30 s): starts from the seed files given on the command line, applies byte flips,
// inserts, deletions, splices and JSON-shaped token swaps, and feeds every mutant to
// ingest_one(). Deterministic for a given --seed, so a crash reproduces.
//
//   fuzz_ingest_loop --seconds 30 [--seed N] SEED_FILE...
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/fuzz/ingest_target.hpp"
#include "util/fs.hpp"

namespace {

// Tokens that matter to the ingest code: its keys, Google Benchmark's non-finite numbers,
// extreme numbers, JSON structure.
const char* const k_tokens[] = {"NaN",
                                "-NaN",
                                "Infinity",
                                "-Infinity",
                                "1e308",
                                "1e400",
                                "-1",
                                "0",
                                "-0.0",
                                "9223372036854775807",
                                "9223372036854775808",
                                "18446744073709551616",
                                "1e30",
                                "null",
                                "true",
                                "[]",
                                "{}",
                                "\"\"",
                                "\"aggregate\"",
                                "\"iteration\"",
                                "\"mean\"",
                                "\"cv\"",
                                "\"real_time\"",
                                "\"cpu_time\"",
                                "\"time_unit\"",
                                "\"parsec\"",
                                "\"ms\"",
                                "\"repetition_index\"",
                                "\"run_type\"",
                                "\"aggregate_name\"",
                                "\"error_occurred\"",
                                "\"skipped\"",
                                "\"benchmarks\"",
                                "\"context\"",
                                "\"gpubench.metrics\"",
                                "\"device_index\"",
                                "\"gpu_uuid\"",
                                "\"label\"",
                                "\"iterations\"",
                                "\"threads\"",
                                "\"percentage\"",
                                "\"aggregate_unit\"",
                                ",",
                                ":",
                                "\"",
                                "\\",
                                "\\u0000",
                                "\\u0001NaN"};

std::string mutate(std::string s, const std::vector<std::string>& seeds, std::mt19937_64& rng) {
  const int rounds = 1 + static_cast<int>(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    const std::size_t pos = s.empty() ? 0 : rng() % s.size();
    switch (rng() % 7) {
      case 0:  // flip a byte
        if (!s.empty()) s[pos] = static_cast<char>(s[pos] ^ (1u << (rng() % 8)));
        break;
      case 1:  // random byte
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(pos), static_cast<char>(rng() % 256));
        break;
      case 2:  // delete a range
        if (!s.empty()) s.erase(pos, 1 + rng() % std::min<std::size_t>(64, s.size() - pos));
        break;
      case 3:  // a token
        s.insert(pos, k_tokens[rng() % (sizeof k_tokens / sizeof *k_tokens)]);
        break;
      case 4: {  // replace a number-ish run with a token
        std::size_t end = pos;
        while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) ||
                                  s[end] == '.' || s[end] == 'e' || s[end] == '-')) {
          ++end;
        }
        s.replace(pos, end - pos, k_tokens[rng() % 13]);
        break;
      }
      case 5: {  // splice another seed
        const std::string& o = seeds[rng() % seeds.size()];
        if (!o.empty()) s.insert(pos, o.substr(rng() % o.size(), 1 + rng() % 256));
        break;
      }
      default:  // duplicate a range (more entries, deeper nesting)
        if (!s.empty()) s.insert(pos, s.substr(pos, 1 + rng() % 128));
        break;
    }
  }
  if (s.size() > (1u << 20)) s.resize(1u << 20);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 30;
  std::uint64_t seed = 1;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      seeds.push_back(gpubench::read_file(argv[i]));
    }
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "usage: fuzz_ingest_loop [--seconds S] [--seed N] SEED_FILE...\n");
    return 2;
  }
  std::mt19937_64 rng(seed);
  for (const auto& s : seeds) {
    gpubench::fuzz::ingest_one(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::uint64_t iterations = 0;
  std::string current = seeds[0];
  while (std::chrono::steady_clock::now() < end) {
    if (rng() % 8 == 0) current = seeds[rng() % seeds.size()];
    current = mutate(current, seeds, rng);
    gpubench::fuzz::ingest_one(reinterpret_cast<const std::uint8_t*>(current.data()),
                               current.size());
    ++iterations;
  }
  std::printf("fuzz_ingest_loop: %llu inputs in %.0f s (seed %llu), no crash\n",
              static_cast<unsigned long long>(iterations), seconds,
              static_cast<unsigned long long>(seed));
  return 0;
}
