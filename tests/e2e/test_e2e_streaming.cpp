// Issue 16 through the real CLI: show, export and compare write their JSON as they read the
// store. At a size that spans many output blocks, the documents parse, hold every result, agree
// with each other, survive export -> import -> export, and name exactly the benchmarks that were
// made slower. The Google Benchmark files are FIXTURES (seeded normal draws), not measurements.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

constexpr int k_benchmarks = 2000;
constexpr int k_repetitions = 5;
constexpr int k_slow_every = 50;  // the candidate is 20% slower on these

std::string name_of(int b) {
  return "memory/triad/bytes:" + std::to_string(1024 * (b / 8 + 1)) +
         "/threads:" + std::to_string(1 + b % 4) + "/device:" + std::to_string((b / 4) % 2);
}

// A Google Benchmark document of k_benchmarks x k_repetitions iteration entries.
std::string fixture_document(unsigned seed, bool slower) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> noise(1.0, 0.01);
  json doc;
  doc["context"] = {
      {"host_name", "fixture-host"},
      {"gpubench.suite", "memory"},
      {"gpubench.metrics", R"([{"name":"GB_per_s","unit":"GB/s","direction":"higher"}])"}};
  json& list = doc["benchmarks"] = json::array();
  for (int b = 0; b < k_benchmarks; ++b) {
    const double factor = slower && b % k_slow_every == 0 ? 1.2 : 1.0;
    for (int r = 0; r < k_repetitions; ++r) {
      const double t = 1000.0 * factor * noise(gen);
      list.push_back(iteration_entry({.name = name_of(b),
                                      .repetition = r,
                                      .repetitions = k_repetitions,
                                      .iterations = 1000,
                                      .real_time = t,
                                      .cpu_time = t * 1.001,
                                      .with_threads = true},
                                     {{"GB_per_s", 12e3 / t}}));
    }
  }
  return doc.dump();
}

class Streaming : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path base = m_ws.root() / "base.json";
    const fs::path cand = m_ws.root() / "candidate.json";
    write_file_atomic(base, fixture_document(1, false));
    write_file_atomic(cand, fixture_document(2, true));
    ASSERT_EQ(m_ws.run({"import", base.string()}).exit_code, 0);
    ASSERT_EQ(m_ws.run({"import", cand.string()}).exit_code, 0);
  }
  Workspace m_ws;
};

TEST_F(Streaming, ShowAndExportHoldEveryResultAndRoundTrip) {
  const fs::path exported = m_ws.root() / "run1.json";
  ASSERT_EQ(m_ws.run({"export", "1", "--format", "json", "-o", exported.string()}).exit_code, 0);
  const std::string text = read_file(exported);
  EXPECT_GT(text.size(), std::size_t{4} << 20);  // several of the writer's 1 MiB blocks
  const json doc = json::parse(text);
  ASSERT_EQ(doc["results"].size(), std::size_t{3 * k_benchmarks});  // real_time, cpu_time, GB/s
  EXPECT_EQ(doc["results"][0]["values"].size(), std::size_t{k_repetitions});

  // Exported to stdout: the same bytes as to the file.
  const CliResult to_stdout = m_ws.run({"export", "1", "--format", "json"});
  ASSERT_EQ(to_stdout.exit_code, 0);
  EXPECT_EQ(to_stdout.out, text);

  // show --format json: the same results, each with its telemetry flag.
  const CliResult show = m_ws.run({"show", "1", "--format", "json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  json shown = json::parse(show.out);
  ASSERT_EQ(shown["results"].size(), doc["results"].size());
  for (json& r : shown["results"]) {
    ASSERT_TRUE(r.contains("telemetry_throttled"));
    r.erase("telemetry_throttled");
  }
  EXPECT_EQ(shown["results"], doc["results"]);

  // export -> import elsewhere -> export: every result comes back.
  Workspace other;
  ASSERT_EQ(other.run({"import", exported.string()}).exit_code, 0);
  const CliResult again = other.run({"export", "1", "--format", "json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  json back = json::parse(again.out);
  ASSERT_EQ(back["results"].size(), doc["results"].size());
  for (std::size_t i = 0; i < back["results"].size(); ++i) {
    EXPECT_EQ(back["results"][i]["benchmark"], doc["results"][i]["benchmark"]);
    EXPECT_EQ(back["results"][i]["values"], doc["results"][i]["values"]);
  }

  // CSV: one line per sample, header first.
  const CliResult csv = m_ws.run({"export", "1", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0);
  std::size_t lines = 0;
  for (char c : csv.out) lines += c == '\n';
  EXPECT_EQ(lines, 1u + 3u * k_benchmarks * k_repetitions);
}

TEST_F(Streaming, CompareJsonNamesExactlyTheSlowerBenchmarks) {
  const fs::path out = m_ws.root() / "compare.json";
  const CliResult to_file =
      m_ws.run({"compare", "1", "2", "--format", "json", "--history", "0", "-o", out.string()});
  ASSERT_EQ(to_file.exit_code, 1) << to_file.err;  // regressions
  const std::string text = read_file(out);
  const CliResult to_stdout = m_ws.run({"compare", "1", "2", "--format", "json", "--history", "0"});
  EXPECT_EQ(to_stdout.exit_code, 1);
  EXPECT_EQ(to_stdout.out, text);

  const json doc = json::parse(text);
  ASSERT_EQ(doc["results"].size(), std::size_t{2 * k_benchmarks});  // cpu_time is not compared
  std::set<std::string> regressed;
  for (const json& e : doc["results"]) {
    if (e["verdict"] == "regression" && e["metric"] == "real_time") {
      regressed.insert(e["benchmark"].get<std::string>());
    }
  }
  std::set<std::string> slowed;
  for (int b = 0; b < k_benchmarks; b += k_slow_every) slowed.insert(name_of(b));
  EXPECT_EQ(regressed, slowed);
  EXPECT_EQ(doc["counts"]["regression"].get<std::size_t>(), 2 * slowed.size());  // time and GB/s
}

}  // namespace
}  // namespace gpubench::e2e
