// Issue 23, "Numbers read wrongly" (items 3-7), through the real CLI: percentages read one way,
// NaN and other non-values refused, acceptance with run-to-run noise and --suite/--filter,
// history drawn from the base side only, and no zero-width interval from tied samples.
//
// FIXTURES: every run here is a hand-written Google Benchmark file (the numbers are made up to
// shape each case: a level per run, a small spread inside it), imported with `gpubench import`.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "e2e_support.hpp"
#include "util/fs.hpp"

namespace gpubench::e2e {
namespace {

struct Series {
  std::string name;            // full benchmark name, "memory/triad"
  std::vector<double> values;  // one repetition each, in the declared metric
};

class Numbers : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(gpubench_binary())) GTEST_SKIP() << "gpubench not built";
  }

  // Imports one FIXTURE run: `series` as repetitions of GB_per_s (memory/...) or TFLOP_per_s
  // (gemm/...), both higher-is-better primary metrics, started at 2026-12-01 `hh:mm`.
  void import_run(const std::string& hhmm, const std::vector<Series>& series,
                  const std::vector<std::string>& tags = {}) {
    nlohmann::json doc;
    doc["context"] = {
        {"date", "2026-12-01T" + hhmm + ":00+00:00"},
        {"host_name", "fixture-host"},
        {"num_cpus", 2},
        {"fixture_note", "FIXTURE: made-up numbers for gpubench's issue 23 tests"},
        {"gpubench.metrics",
         R"([{"name":"GB_per_s","unit":"GB/s","direction":"higher","role":"primary"},)"
         R"({"name":"TFLOP_per_s","unit":"TFLOP/s","direction":"higher","role":"primary"}])"}};
    doc["benchmarks"] = nlohmann::json::array();
    for (const Series& s : series) {
      const bool gemm = s.name.rfind("gemm/", 0) == 0;
      for (std::size_t i = 0; i < s.values.size(); ++i) {
        doc["benchmarks"].push_back(
            iteration_entry({.name = s.name,
                             .repetition = static_cast<std::int64_t>(i),
                             .repetitions = static_cast<std::int64_t>(s.values.size()),
                             .iterations = 10,
                             .real_time = 1.0,
                             .cpu_time = 1.0,
                             .time_unit = "ms"},
                            {{gemm ? "TFLOP_per_s" : "GB_per_s", s.values[i]}}));
      }
    }
    const fs::path file = m_ws.root() / ("fixture-" + std::to_string(m_files++) + ".json");
    write_file_atomic(file, doc.dump());
    std::vector<std::string> args = {"import", file.string()};
    for (const std::string& t : tags) {
      args.push_back("--tag");
      args.push_back(t);
    }
    const CliResult r = m_ws.run(args);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  // `level` x (1 + small fixed offsets): a tight run (spread ~0.3%) around `level`.
  static std::vector<double> around(double level) {
    std::vector<double> v;
    for (double d : {-0.003, 0.001, -0.001, 0.002, 0.0, 0.003, -0.002, 0.001, -0.0015, 0.0015}) {
      v.push_back(level * (1 + d));
    }
    return v;
  }

  CliResult gb(const std::vector<std::string>& args) const { return m_ws.run(args); }

  Workspace m_ws;
  int m_files = 0;
};

// Item 3: `--tolerance 0.5` meant 50% (a run 33% slower passed) and `5` was refused. Now "5" is
// 5%, and a bare value below 1 is refused asking which was meant.
TEST_F(Numbers, ToleranceAndThresholdReadFiveAsFivePercentAndRefuseABareHalf) {
  import_run("10:00", {{"memory/triad", around(100)}});
  import_run("10:10", {{"memory/triad", around(97)}});  // 3% below the reference

  // --all: the passing check's reason too (issue 39: passing checks are counted by default).
  const CliResult five =
      gb({"accept", "2", "--against", "1", "--tolerance", "5", "--history", "0", "--all"});
  EXPECT_EQ(five.exit_code, 0) << five.out << five.err;
  EXPECT_TRUE(contains(five.out, "required: no worse than -5.00%")) << five.out;
  const CliResult two = gb({"accept", "2", "--against", "1", "--tolerance", "2", "--history", "0"});
  EXPECT_EQ(two.exit_code, 1) << two.out << two.err;  // 3% worse than 2% allows

  const CliResult half = gb({"accept", "2", "--against", "1", "--tolerance", "0.5"});
  EXPECT_EQ(half.exit_code, 2) << half.out;
  EXPECT_TRUE(contains(half.err, "invalid --tolerance '0.5'")) << half.err;
  EXPECT_TRUE(contains(half.err, "did you mean 0.5% or 50%?")) << half.err;

  const CliResult thr = gb({"compare", "1", "2", "--threshold", "0.05", "--history", "0"});
  EXPECT_EQ(thr.exit_code, 2) << thr.out;
  EXPECT_TRUE(contains(thr.err, "invalid --threshold '0.05'")) << thr.err;
  EXPECT_TRUE(contains(thr.err, "did you mean 0.05% or 5%?")) << thr.err;
  const CliResult thr5 = gb({"compare", "1", "2", "--threshold", "5", "--history", "0", "--format",
                             "json", "--metric", "GB_per_s"});
  ASSERT_EQ(thr5.exit_code, 0) << thr5.out << thr5.err;  // a 3% drop is within 5%: no regression
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(thr5.out)["results"][0]["delta"].get<double>(), 0.05);

  // The thresholds file reads the same way.
  const fs::path file = m_ws.root() / "bare.thresholds";
  write_file_atomic(file, "memory/*  0.05\n");
  const CliResult rules = gb({"compare", "1", "2", "--thresholds", file.string()});
  EXPECT_EQ(rules.exit_code, 2) << rules.out;
  EXPECT_TRUE(contains(rules.err, "bare.thresholds:1:11")) << rules.err;
  EXPECT_TRUE(contains(rules.err, "did you mean 0.05% or 5%?")) << rules.err;
}

// Item 4: `--threshold nan%` turned the regression check off and `accept --tolerance nan%`
// passed. Every non-value is refused with exit 2, naming the option and the value.
TEST_F(Numbers, NanInfiniteNegativeAndWholePercentagesAreRefused) {
  import_run("10:00", {{"memory/triad", around(100)}});
  import_run("10:10", {{"memory/triad", around(80)}});  // a 20% regression
  for (const char* bad : {"nan%", "nan", "inf%", "-inf", "-1%", "100%", "150"}) {
    const CliResult c = gb({"compare", "1", "2", "--threshold", bad});
    EXPECT_EQ(c.exit_code, 2) << bad << ": " << c.out << c.err;
    EXPECT_TRUE(contains(c.err, "invalid --threshold '" + std::string(bad) + "'")) << c.err;
    const CliResult a = gb({"accept", "2", "--against", "1", "--tolerance", bad});
    EXPECT_EQ(a.exit_code, 2) << bad << ": " << a.out << a.err;
    EXPECT_TRUE(contains(a.err, "invalid --tolerance '" + std::string(bad) + "'")) << a.err;
  }
  // A spec limit that is not a number is refused too (it would pass or fail everything unseen).
  const fs::path spec = m_ws.root() / "nan.spec";
  write_file_atomic(spec, "memory/*  GB_per_s  >= nan GB/s\n");
  const CliResult s = gb({"accept", "2", "--spec", spec.string()});
  EXPECT_EQ(s.exit_code, 2) << s.out;
  EXPECT_TRUE(contains(s.err, "nan.spec:1:24")) << s.err;
  // The check is on: the regression is found with a sane threshold.
  EXPECT_EQ(gb({"compare", "1", "2", "--threshold", "2%", "--history", "0"}).exit_code, 1);
}

// Item 5: the same machine minutes later drifts by more than one run's repetitions show. accept
// now adds the reference's run-to-run noise from history, as compare does.
TEST_F(Numbers, AcceptHoldsRunToRunNoiseFromHistory) {
  // Six runs of the same work whose levels drift run to run (sd of log levels ~5%), each tight.
  const char* times[] = {"09:00", "09:10", "09:20", "09:30", "09:40", "09:50"};
  const double levels[] = {100, 92, 106, 95, 103, 98};
  for (int i = 0; i < 6; ++i) import_run(times[i], {{"memory/triad", around(levels[i])}});
  import_run("10:00", {{"memory/triad", around(88)}});  // 10% below run 6, inside the drift

  const CliResult plain =
      gb({"accept", "7", "--against", "6", "--history", "0", "--format", "json"});
  EXPECT_EQ(plain.exit_code, 1) << plain.out << plain.err;  // within-run noise only: FAIL
  const nlohmann::json p = nlohmann::json::parse(plain.out);
  EXPECT_EQ(p["checks"][0]["outcome"], "FAIL") << plain.out;
  EXPECT_TRUE(contains(p["checks"][0]["reason"].get<std::string>(), "--history 0"));

  const CliResult noisy = gb({"accept", "7", "--against", "6", "--format", "json"});
  EXPECT_EQ(noisy.exit_code, 0) << noisy.out << noisy.err;
  const nlohmann::json n = nlohmann::json::parse(noisy.out);
  EXPECT_NE(n["checks"][0]["outcome"], "FAIL") << noisy.out;
  // History: runs 1-6 (the reference's class, not the run accepted).
  EXPECT_TRUE(contains(n["checks"][0]["reason"].get<std::string>(),
                       "run-to-run noise from 6 runs of history"))
      << noisy.out;

  const CliResult two = gb({"accept", "7", "--against", "6", "--history", "2"});
  EXPECT_EQ(two.exit_code, 2) << two.out;
  EXPECT_TRUE(contains(two.err, "invalid --history 2")) << two.err;
}

TEST_F(Numbers, AcceptSuiteAndFilterLeaveOutWhatWasNotRerun) {
  // The reference ran two FIXTURE suites; the rerun only fixture_ok.
  const fs::path fake = m_ws.root() / "fake.json";
  write_file_atomic(fake, R"({"context": {"gpubench.suite": "fixture_fake",
    "fixture_note": "FIXTURE: made-up numbers",
    "gpubench.metrics": "[{\"name\":\"items_per_s\",\"unit\":\"items/s\",\"direction\":\"higher\"}]"},
    "benchmarks": [
    {"name": "fixture_fake/case", "run_name": "fixture_fake/case", "run_type": "iteration",
     "repetitions": 2, "repetition_index": 0, "iterations": 1, "real_time": 1.0, "cpu_time": 1.0,
     "time_unit": "ms", "items_per_s": 10.0},
    {"name": "fixture_fake/case", "run_name": "fixture_fake/case", "run_type": "iteration",
     "repetitions": 2, "repetition_index": 1, "iterations": 1, "real_time": 1.1, "cpu_time": 1.0,
     "time_unit": "ms", "items_per_s": 11.0}]})");
  const CliResult ref =
      m_ws.run({"run", "--suite", "fixture_ok,fixture_fake"}, {{"FAKE_JSON", fake.string()}});
  ASSERT_EQ(ref.exit_code, 0) << ref.out << ref.err;
  const CliResult rerun = m_ws.run({"run", "--suite", "fixture_ok"});
  ASSERT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err;

  const CliResult all = gb({"accept", "2", "--against", "1", "--history", "0", "--format", "json"});
  EXPECT_EQ(all.exit_code, 1) << all.out << all.err;
  EXPECT_FALSE(nlohmann::json::parse(all.out)["missing"].empty()) << all.out;

  for (const std::vector<std::string>& pick : {std::vector<std::string>{"--suite", "fixture_ok"},
                                               {"--filter", "constant"},
                                               {"--filter", "-fixture_fake"}}) {
    std::vector<std::string> args = {"accept",    "2", "--against", "1",
                                     "--history", "0", "--format",  "json"};
    args.insert(args.end(), pick.begin(), pick.end());
    const CliResult r = gb(args);
    EXPECT_EQ(r.exit_code, 0) << pick[0] << " " << pick[1] << ": " << r.out << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["missing"].empty()) << r.out;
    ASSERT_FALSE(j["checks"].empty()) << r.out;
    for (const auto& c : j["checks"]) EXPECT_EQ(c["benchmark"], "fixture_ok/constant/n:1") << r.out;
  }
  const CliResult empty = gb({"accept", "2", "--against", "1", "--suite", ","});
  EXPECT_EQ(empty.exit_code, 2) << empty.out;
  EXPECT_TRUE(contains(empty.err, "--suite is empty")) << empty.err;
  const CliResult bad = gb({"accept", "2", "--against", "1", "--filter", "("});
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_TRUE(contains(bad.err, "bad --filter '('")) << bad.err;
}

// Item 6: with `compare tag:side=a tag:side=b --last 2`, the older side-b runs (which carry the
// change) counted as base history, widened the interval and hid a 10% step.
TEST_F(Numbers, HistoryNeverCountsRunsOfTheCandidatesSelector) {
  // Interleaved A/B: A runs at 100, B runs (the change) at 90, each run tight. Seven A runs: a
  // history needs 6 (issue 38).
  const char* times[] = {"09:00", "09:10", "09:20", "09:30", "09:40", "09:50", "10:00",
                         "10:10", "10:20", "10:30", "10:40", "10:50", "11:00", "11:10"};
  for (int i = 0; i < 14; ++i) {
    const bool b = i % 2 == 1;
    import_run(times[i], {{"memory/triad", around(b ? 90.0 : 100.0 * (1 + 0.002 * i))}},
               {b ? "side=b" : "side=a"});
  }
  const CliResult r = gb({"compare", "tag:side=a", "tag:side=b", "--last", "2", "--format", "json",
                          "--metric", "GB_per_s"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["results"].size(), 1u) << r.out;
  EXPECT_EQ(j["results"][0]["verdict"], "regression") << r.out;
  EXPECT_EQ(j["results"][0]["history_runs"], 7) << r.out;  // the seven A runs, no B run

  // --history 1 to 5 would silently mean none: refused, naming the minimum.
  for (const char* few : {"1", "2", "5"}) {
    const CliResult c = gb({"compare", "tag:side=a", "tag:side=b", "--history", few});
    EXPECT_EQ(c.exit_code, 2) << c.out;
    EXPECT_TRUE(contains(c.err, "invalid --history " + std::string(few))) << c.err;
    EXPECT_TRUE(contains(c.err, "at least 6 runs")) << c.err;
  }
}

TEST_F(Numbers, FewerThanSixHistoryRunsAreStatedInTheReason) {
  import_run("09:00", {{"memory/triad", around(100)}});
  import_run("09:10", {{"memory/triad", around(100.5)}});
  import_run("09:20", {{"memory/triad", around(100.2)}});
  const CliResult r =
      gb({"compare", "2", "3", "--format", "json", "--metric", "GB_per_s", "--fail-on", "never"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string reason = nlohmann::json::parse(r.out)["results"][0]["reason"];
  EXPECT_TRUE(contains(reason, "2 run(s) of history, fewer than the 6 needed")) << reason;
}

// Item 7: tied, coarsely rounded samples gave +5.00% [+5.00%, +5.00%] p = 0.
TEST_F(Numbers, TiedSamplesNeverReportAZeroWidthInterval) {
  std::vector<double> base(8, 20.0);
  base.insert(base.end(), 2, 21.0);
  std::vector<double> cand(1, 20.0);
  cand.insert(cand.end(), 9, 21.0);
  import_run("10:00", {{"memory/triad", base}});
  import_run("10:10", {{"memory/triad", cand}});
  const CliResult r = gb({"compare", "1", "2", "--history", "0", "--format", "json", "--metric",
                          "GB_per_s", "--fail-on", "never"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json e = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_NEAR(e["ratio"].get<double>(), 1.05, 1e-9) << r.out;
  EXPECT_LT(e["ci_low"].get<double>(), 1.045) << r.out;
  EXPECT_GT(e["ci_high"].get<double>(), 1.055) << r.out;
  EXPECT_GT(e["p_value"].get<double>(), 0.0) << r.out;
  const CliResult text = gb({"compare", "1", "2", "--history", "0", "--metric", "GB_per_s"});
  EXPECT_FALSE(contains(text.out, "[+5.00%, +5.00%]")) << text.out;
  // accept's interval too.
  const CliResult a = gb({"accept", "2", "--against", "1", "--history", "0", "--format", "json"});
  const nlohmann::json c = nlohmann::json::parse(a.out)["checks"][0];
  EXPECT_LT(c["low"].get<double>(), c["high"].get<double>()) << a.out;
}

}  // namespace
}  // namespace gpubench::e2e
