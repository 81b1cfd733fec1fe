// The calibration suite: scale parsing, the workload, and the real binary as a child process.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "suites/calibration/calibration_work.hpp"
#include "util/error.hpp"
#include "tests/suites/run_program.hpp"
#include "util/fs.hpp"

namespace gpubench::suites::calibration {
namespace {

TEST(CalibrationScale, DefaultsAndValidValues) {
  EXPECT_EQ(parse_calibration_scale(nullptr), 1.0);
  EXPECT_EQ(parse_calibration_scale(""), 1.0);
  EXPECT_EQ(parse_calibration_scale("1.1"), 1.1);
  EXPECT_EQ(parse_calibration_scale(" 0.9 "), 0.9);
  EXPECT_EQ(parse_calibration_scale("2"), 2.0);
  EXPECT_EQ(parse_calibration_scale("1000"), 1000.0);
}

TEST(CalibrationScale, InvalidValuesAreBadInputNamingTheValue) {
  for (const char* text : {"abc", "1.1x", "0", "-1", "nan", "inf", "1e9", "1,1"}) {
    try {
      parse_calibration_scale(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const gpubench::Error& e) {
      EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input);
      const std::string message = e.what();
      EXPECT_NE(message.find(std::string("GPUBENCH_CALIBRATION_SCALE='") + text + "'"),
                std::string::npos)
          << message;
      EXPECT_NE(message.find("set it to a positive number"), std::string::npos) << message;
    }
  }
}

TEST(CalibrationWork, ScaledUnitsRound) {
  EXPECT_EQ(scaled_work_units(1'000'000, 1.0), 1'000'000u);
  EXPECT_EQ(scaled_work_units(1'000'000, 1.1), 1'100'000u);
  EXPECT_EQ(scaled_work_units(250'000, 0.9), 225'000u);
  EXPECT_EQ(scaled_work_units(3, 0.1), 1u) << "at least one unit";
}

TEST(CalibrationWork, DeterministicAndDependsOnEveryUnit) {
  for (Workload w : {Workload::hash_chain, Workload::mul_add_chain}) {
    EXPECT_EQ(run_work(w, 1000, 42), run_work(w, 1000, 42)) << to_string(w);
    EXPECT_NE(run_work(w, 1000, 42), run_work(w, 1001, 42)) << to_string(w);
  }
  // The hash chain from seed 1, one unit, by hand: x ^= x >> 31 (1); x *= C; x ^= x >> 29.
  const std::uint64_t x = 0xBF58476D1CE4E5B9ull;
  EXPECT_EQ(run_work(Workload::hash_chain, 1, 1), x ^ (x >> 29));
}

using gpubench::testing::ChildResult;

ChildResult run_calibration(const std::vector<std::string>& args,
                            const std::vector<std::string>& env) {
  return gpubench::testing::run_program("gpubench-calibration", args, env);
}

// work_units of every benchmark in a JSON run, by name.
std::map<std::string, double> work_units_at(const std::string& scale) {
  const ChildResult r = run_calibration(
      {"--benchmark_filter=hash_chain/base_units:(250000|500000)/", "--benchmark_format=json"},
      {"GPUBENCH_CALIBRATION_SCALE=" + scale});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, double> units;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["context"]["gpubench.suite"], "calibration");
  const auto metrics = nlohmann::json::parse(doc["context"]["gpubench.metrics"].get<std::string>());
  // calls_per_s (primary), ms_per_call (secondary), work_units (a case parameter, issue 9).
  EXPECT_EQ(metrics.size(), 3u);
  for (const auto& m : metrics) {
    const bool lower = m["name"] == "ms_per_call";
    if (m["role"] == "parameter") {
      EXPECT_EQ(m["name"], "work_units");
      continue;
    }
    EXPECT_EQ(m["direction"], lower ? "lower" : "higher") << m.dump();
    EXPECT_EQ(m["role"], m["name"] == "calls_per_s" ? "primary" : "secondary") << m.dump();
  }
  for (const auto& b : doc["benchmarks"]) {
    EXPECT_FALSE(b.value("error_occurred", false)) << b.dump();
    EXPECT_GT(b.value("ms_per_call", 0.0), 0.0) << b.dump();
    EXPECT_GT(b.value("calls_per_s", 0.0), 0.0) << b.dump();
    units[b["name"].get<std::string>()] = b.value("work_units", 0.0);
  }
  return units;
}

TEST(CalibrationSuite, ScaleChangesTheWorkNotTheNames) {
  const auto base = work_units_at("1.0");
  const auto more = work_units_at("1.1");
  ASSERT_EQ(base.size(), 2u);
  ASSERT_EQ(more.size(), 2u);
  for (const auto& [name, units] : base) {
    ASSERT_TRUE(more.count(name)) << "same names at every scale: " << name;
    EXPECT_EQ(more.at(name), units * 1.1) << name;  // exact: 275000 and 550000 units
  }
  EXPECT_EQ(base.at("calibration/hash_chain/base_units:250000/iterations:16/manual_time"), 250000);
}

TEST(CalibrationSuite, NamesParse) {
  const ChildResult r = run_calibration({"--benchmark_list_tests=true"}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex name(
      R"(calibration/(hash_chain|mul_add_chain)/base_units:[0-9]+/iterations:[0-9]+/manual_time)");
  int count = 0;
  std::string line;
  for (char ch : r.out) {
    if (ch != '\n') {
      line += ch;
      continue;
    }
    EXPECT_TRUE(std::regex_match(line, name)) << line;
    ++count;
    line.clear();
  }
  EXPECT_GE(count, 3);
}

TEST(CalibrationSuite, InvalidScaleExitsTwoWithTheMessage) {
  for (const std::string bad : {"fast", "-1", "0"}) {
    const ChildResult r = run_calibration({}, {"GPUBENCH_CALIBRATION_SCALE=" + bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("GPUBENCH_CALIBRATION_SCALE='" + bad + "' is not a valid scale"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty()) << "no benchmark ran: " << r.out;
  }
  // --gpubench_info still answers, saying why the suite cannot run.
  const ChildResult info = run_calibration({"--gpubench_info"}, {"GPUBENCH_CALIBRATION_SCALE=x"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const auto doc = nlohmann::json::parse(info.out);
  EXPECT_FALSE(doc["runnable"].get<bool>());
  EXPECT_NE(doc["reason"].get<std::string>().find("not a valid scale"), std::string::npos);
}

}  // namespace
}  // namespace gpubench::suites::calibration
