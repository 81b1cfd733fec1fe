// Executions through the real CLI (issue 35): every suite measured in several processes,
// interleaved; each stored as its own suite run; compare builds its interval from them; a run
// killed between executions keeps the finished ones; bad --executions refused. FIXTURE suites.
#include <csignal>
#include <nlohmann/json.hpp>

#include "e2e_faults_support.hpp"
#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    out.push_back(text.substr(start, nl - start));
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

// Suite names of a run's suite runs, in stored order.
std::vector<std::string> suite_order(const Workspace& ws, const std::string& run) {
  const json detail = json::parse(ws.run({"show", run, "--format", "json", ws.db_arg()}).out);
  std::vector<std::string> out;
  for (const auto& s : detail["suites"]) out.push_back(s["suite"].get<std::string>());
  return out;
}

// fixture_fake's answer: one benchmark, good JSON (a FIXTURE file written by the test).
fs::path write_fake_json(const Workspace& ws) {
  const fs::path path = ws.root() / "fake.json";
  std::ofstream f(path);
  f << R"({"context": {"gpubench.suite": "fixture_fake"}, "benchmarks": [
    {"name": "fixture_fake/case", "run_name": "fixture_fake/case", "run_type": "iteration",
     "repetitions": 1, "repetition_index": 0, "iterations": 10, "real_time": 5.0,
     "cpu_time": 5.0, "time_unit": "ns"}]})";
  return path;
}

TEST(E2eExecutions, EverySuiteRunsInInterleavedExecutions) {
  Workspace ws;
  const CliResult run =
      ws.run({"run", "--suite", "fixture_ok,fixture_fake", "--executions", "3", "--profile",
              "quick", ws.db_arg()},
             {{"FAKE_JSON", write_fake_json(ws).string()}});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(contains(run.out, "executions")) << run.out;
  EXPECT_TRUE(contains(run.out, "3/3")) << run.out;
  // Interleaved: one of each suite, then again (not three of one suite in a row).
  const std::vector<std::string> order = suite_order(ws, "latest");
  ASSERT_EQ(order.size(), 6u);
  EXPECT_NE(order[0], order[1]);
  EXPECT_EQ(order[0], order[2]);
  EXPECT_EQ(order[1], order[3]);
  // Each execution asked Google Benchmark to shuffle its repetitions too.
  const json detail = json::parse(ws.run({"show", "1", "--format", "json", ws.db_arg()}).out);
  bool interleaved = false;
  for (const auto& s : detail["suites"]) {
    for (const auto& a : s["argv"]) {
      interleaved |= a == "--benchmark_enable_random_interleaving=true";
    }
  }
  EXPECT_TRUE(interleaved) << detail["suites"].dump();
  // show pools a series' executions: one line, n = 3 executions x 3 repetitions.
  const CliResult show = ws.run({"show", "1", ws.db_arg()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "exec")) << show.out;
  std::size_t lines = 0, suite_lines = 0;
  for (const std::string& line : split_lines(show.out)) {
    lines += contains(line, "fixture_ok/constant/n:1") && contains(line, "items_per_s");
    suite_lines += line.rfind("fixture_ok ", 0) == 0;
  }
  EXPECT_EQ(lines, 1u) << show.out;
  EXPECT_EQ(suite_lines, 1u) << show.out;  // the suite table: one line, 3 executions
}

TEST(E2eExecutions, CompareBuildsItsIntervalFromExecutions) {
  Workspace ws;
  for (int i = 0; i < 2; ++i) {
    const CliResult run =
        ws.run({"run", "--suite", "fixture_ok", "--executions", "2", ws.db_arg()});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  }
  const CliResult cmp = ws.run({"compare", "latest~1", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
  const json doc = json::parse(cmp.out);
  ASSERT_FALSE(doc["results"].empty());
  for (const auto& e : doc["results"]) {
    EXPECT_EQ(e["base"]["executions"], 2) << e.dump();
    EXPECT_EQ(e["candidate"]["executions"], 2) << e.dump();
    EXPECT_EQ(e["base"]["runs"], 1) << e.dump();
    EXPECT_EQ(e["base"]["per_run_medians"], false) << e.dump();
    EXPECT_EQ(e["noise_source"], "between executions") << e.dump();
    EXPECT_EQ(e["verdict"], "unchanged") << e.dump();
  }
}

TEST(E2eExecutions, BadExecutionsAreRefusedBeforeAnythingRuns) {
  Workspace ws;
  for (const char* bad : {"1", "0", "-3", "101"}) {
    const CliResult r = ws.run({"run", "--suite", "fixture_ok", "--executions", bad, ws.db_arg()});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "--executions must be 2 to 100")) << r.err;
  }
  const CliResult one = ws.run({"run", "--suite", "fixture_ok", "--executions", "1", ws.db_arg()});
  EXPECT_TRUE(contains(one.err, "no between-execution variance")) << one.err;
  const CliResult word =
      ws.run({"run", "--suite", "fixture_ok", "--executions", "three", ws.db_arg()});
  EXPECT_EQ(word.exit_code, 2) << word.err;
  EXPECT_TRUE(contains(word.err, "--executions")) << word.err;
  EXPECT_FALSE(fs::exists(ws.db())) << "nothing may be stored for a refused run";
  // The plan counts every execution's process start.
  const CliResult plan =
      ws.run({"run", "--plan", "--gpus", "8", "--suite", "fixture_ok", "--executions", "4"});
  EXPECT_TRUE(plan.exit_code == 0 || contains(plan.err, "plan")) << plan.err;
}

TEST(E2eExecutions, AKillBetweenExecutionsKeepsTheFinishedOnes) {
  Workspace ws;
  // A first, complete run of fixture_ok to compare with.
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", "--executions", "3", ws.db_arg()}).exit_code,
            0);
  // fixture_fake writes good JSON in execution 1 and waits forever from execution 2 on.
  const fs::path json_file = write_fake_json(ws);
  const fs::path pidfile = ws.root() / "fake.pid";
  Background run(ws, {"run", "--suite", "fixture_ok,fixture_fake", "--executions", "3",
                      ws.db_arg()},
                 {{"FAKE_JSON", json_file.string()},
                  {"FAKE_PIDFILE", pidfile.string()},
                  {"FAKE_FROM_EXECUTION", "2"},
                  {"FAKE_WAIT_FILE", (ws.root() / "never").string()}},
                 ws.root() / "killed.err");
  ASSERT_TRUE(wait_for([&] { return fs::exists(pidfile) && !read_file(pidfile).empty(); }));
  kill(run.pid(), SIGTERM);
  EXPECT_EQ(run.wait(), 143) << run.err();
  const json detail = json::parse(ws.run({"show", "latest", "--format", "json", ws.db_arg()}).out);
  EXPECT_EQ(detail["run"]["status"], "interrupted");
  std::size_t ok_executions = 0, fake_ok = 0, fake_interrupted = 0;
  for (const auto& s : detail["suites"]) {
    if (s["suite"] == "fixture_ok" && s["status"] == "ok") ++ok_executions;
    if (s["suite"] == "fixture_fake") {
      fake_ok += s["status"] == "ok";
      fake_interrupted += s["status"] == "interrupted";
    }
  }
  EXPECT_EQ(fake_ok, 1u) << detail["suites"].dump();
  EXPECT_EQ(fake_interrupted, 1u) << detail["suites"].dump();
  EXPECT_GE(ok_executions, 1u) << detail["suites"].dump();
  // Its finished executions compare, and the reason says how many executions each side has.
  const CliResult cmp = ws.run(
      {"compare", "1", "2", "--fail-on", "never", "--format", "json", ws.db_arg()});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
  const json doc = json::parse(cmp.out);
  ASSERT_FALSE(doc["results"].empty());
  for (const auto& e : doc["results"]) {
    EXPECT_EQ(e["candidate"]["executions"], ok_executions);
    EXPECT_TRUE(contains(e["reason"].get<std::string>(),
                         "base 3 executions, candidate " + std::to_string(ok_executions) +
                             " execution"))
        << e["reason"];
  }
}

// --until-decided adds executions (issue 35): a candidate whose two executions disagree (110 and
// 90 against a base of 100 +- 0.5) is inconclusive; the rerun adds executions of that benchmark
// alone (FIXTURE values from a sequence of JSON files), tagged, pooled, and the final verdict sets
// the exit code.
TEST(E2eExecutions, UntilDecidedAddsExecutionsOfTheUndecided) {
  Workspace ws;
  const fs::path seq = ws.root() / "sequence";
  fs::create_directories(seq);
  int k = 1;
  for (double v : {100.0, 100.5, 99.5, 110.0, 90.0, 110.0, 110.5, 109.5, 110.2, 109.8, 110.1}) {
    std::ofstream f(seq / (std::to_string(k++) + ".json"));
    f << R"({"context": {"gpubench.suite": "fixture_fake"}, "benchmarks": [
      {"name": "fixture_fake/case", "run_name": "fixture_fake/case", "run_type": "iteration",
       "repetitions": 1, "repetition_index": 0, "iterations": 10, "real_time": )"
      << v << R"(, "cpu_time": )" << v << R"(, "time_unit": "ns"}]})";
  }
  const std::vector<std::pair<std::string, std::string>> env = {
      {"FAKE_JSON_SEQUENCE", seq.string()}};
  ASSERT_EQ(
      ws.run({"run", "--suite", "fixture_fake", "--executions", "3", ws.db_arg()}, env).exit_code,
      0);
  const CliResult r = ws.run({"run", "--suite", "fixture_fake", "--executions", "2",
                              "--until-decided", "1", "--max-extra-runs", "2", ws.db_arg()},
                             env);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "until-decided: round 0 (candidate runs 2 vs 1): 1 inconclusive"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "until-decided: rerunning 1 benchmark(s) of fixture_fake in "))
      << r.out;
  EXPECT_TRUE(contains(r.out, "more executions")) << r.out;
  EXPECT_TRUE(contains(r.out, "until-decided: round 1")) << r.out;
  const json runs = json::parse(ws.run({"runs", "--format", "json", ws.db_arg()}).out);
  EXPECT_GE(runs.size(), 3u);  // base, first candidate run, at least one rerun
  EXPECT_TRUE(contains(ws.run({"runs", ws.db_arg()}).out, "until_decided=2"));
  // The pooled candidate (110, 90, then ~110s) against 100: a regression once decided.
  EXPECT_EQ(r.exit_code, contains(r.out, "1 regression") ? 1 : 0) << r.out;
  EXPECT_FALSE(contains(r.out, "1 improvement")) << r.out;
}

// The profile's executions (no --executions): a cheap suite gets more, as many as fit in 10 s, at
// most 10 (fixture_ok takes milliseconds); --executions N is exactly N.
TEST(E2eExecutions, CheapSuitesGetMoreExecutionsUnlessTheUserChose) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", "--profile", "quick", ws.db_arg()}).exit_code,
            0);
  EXPECT_EQ(suite_order(ws, "1").size(), 10u);
  const CliResult exact =
      ws.run({"run", "--suite", "fixture_ok", "--profile", "quick", "--executions", "3",
              ws.db_arg()});
  ASSERT_EQ(exact.exit_code, 0) << exact.out << exact.err;
  EXPECT_EQ(suite_order(ws, "2").size(), 3u);
  EXPECT_TRUE(contains(exact.out, "3/3")) << exact.out;
}

}  // namespace
}  // namespace gpubench::e2e
