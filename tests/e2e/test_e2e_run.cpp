// gpubench run -> runs -> show -> export, misbehaving suites, interrupts, a real suite.
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

TEST(E2eRun, RunRunsShowExport) {
  Workspace ws;
  const CliResult run = ws.run({"run", "--suite", "fixture_ok", "--profile", "quick",
                                "--executions", "3", "--tag", "purpose=e2e", "--note",
                                "first run", ws.db_arg()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(contains(run.out, "fixture_ok")) << run.out;
  EXPECT_TRUE(contains(run.out, "run 1 (")) << run.out;
  EXPECT_TRUE(contains(run.out, "complete")) << run.out;

  // --db before the subcommand works as well as after it.
  const CliResult runs = ws.run({ws.db_arg(), "runs"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_TRUE(contains(runs.out, "complete")) << runs.out;
  EXPECT_TRUE(contains(runs.out, "purpose=e2e")) << runs.out;
  EXPECT_TRUE(contains(runs.out, "quick")) << runs.out;

  const CliResult runs_json = ws.run({"runs", "--format", "json", ws.db_arg()});
  ASSERT_EQ(runs_json.exit_code, 0) << runs_json.err;
  const json rj = json::parse(runs_json.out);
  ASSERT_EQ(rj.size(), 1u);
  EXPECT_EQ(rj[0]["status"], "complete");
  EXPECT_EQ(rj[0]["suites_failed"], 0);
  EXPECT_EQ(rj[0]["tags"]["purpose"], "e2e");

  const CliResult show = ws.run({"show", "latest", ws.db_arg()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "fixture_ok/constant/n:1")) << show.out;
  EXPECT_TRUE(contains(show.out, "items/s")) << show.out;
  EXPECT_TRUE(contains(show.out, "1100")) << show.out;  // median of the fixture's 1000/1100/1200
  EXPECT_TRUE(contains(show.out, "no CUDA device (fixture)")) << show.out;
  EXPECT_TRUE(contains(show.out, "note: first run")) << show.out;

  const CliResult show_json = ws.run({"show", "1", "--format", "json", ws.db_arg()});
  ASSERT_EQ(show_json.exit_code, 0) << show_json.err;
  const json sj = json::parse(show_json.out);
  bool found_metric = false;
  for (const auto& r : sj["results"]) {
    if (r["metric"] == "items_per_s") {
      found_metric = true;
      EXPECT_EQ(r["values"], json({1000.0, 1100.0, 1200.0}));
      EXPECT_EQ(r["median"], 1100.0);
      EXPECT_EQ(r["direction"], "higher");
      EXPECT_EQ(r["unit"], "items/s");
    }
  }
  EXPECT_TRUE(found_metric) << show_json.out;
  EXPECT_EQ(sj["environment"]["software"]["gpubench_version"].get<std::string>().empty(), false);
  EXPECT_FALSE(sj["environment"]["host"]["hostname"].get<std::string>().empty());

  const fs::path json_file = ws.root() / "export.json";
  const CliResult ex_json =
      ws.run({"export", "latest", "--format", "json", "-o", json_file.string(), ws.db_arg()});
  ASSERT_EQ(ex_json.exit_code, 0) << ex_json.err;
  EXPECT_EQ(json::parse(read_file(json_file))["run"]["id"], 1);

  const CliResult ex_csv = ws.run({"export", "1", "--format", "csv", ws.db_arg()});
  ASSERT_EQ(ex_csv.exit_code, 0) << ex_csv.err;
  EXPECT_EQ(ex_csv.out.rfind("run_id,run_uuid,suite,benchmark,", 0), 0u) << ex_csv.out;
  std::size_t lines = 0;
  for (char c : ex_csv.out) lines += c == '\n';
  // header + per execution (quick: 3) 3 metrics x 3 repetitions + one row for the skipped
  // benchmark
  EXPECT_EQ(lines, 1u + 3u * (9u + 1u)) << ex_csv.out;
  EXPECT_TRUE(contains(ex_csv.out, ",items_per_s,items/s,higher,")) << ex_csv.out;
}

TEST(E2eRun, SuitesListsFixtureSuites) {
  Workspace ws;
  const CliResult r = ws.run({"suites", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  bool found = false;
  for (const auto& s : j) {
    if (s["suite"] == "fixture_ok") {
      found = true;
      EXPECT_EQ(s["runnable"], true);
      EXPECT_EQ(s["benchmarks"].size(), 2u);
    }
    if (s["suite"] == "fixture_segv") {
      EXPECT_EQ(s["runnable"], false);
      EXPECT_TRUE(contains(s["reason"].get<std::string>(), "SIGSEGV")) << s.dump();
    }
  }
  EXPECT_TRUE(found) << r.out;
  const CliResult text = ws.run({"suites"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "fixture_ok/constant/n:1")) << text.out;
}

struct BadSuiteCase {
  const char* suite;
  const char* status;
  const char* reason_part;
};

TEST(E2eRun, MisbehavingSuitesAreRecordedAndOthersStillRun) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  const BadSuiteCase cases[] = {
      {"fixture_fail", "failed", "exited with code 3: fixture_fail: cannot allocate"},
      {"fixture_segv", "crashed", "killed by SIGSEGV"},
      {"fixture_hang", "timeout", "did not finish within 2 s"},
      {"fixture_garbage", "failed", "not valid JSON"},
      {"fixture_partial", "failed", "exited with code 1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.suite);
    // The bad suite runs first; fixture_ok after it must still run and be stored.
    const CliResult r = ws.run({"run", "--suite", std::string(c.suite) + ",fixture_ok",
                                "--executions", "5", "--timeout-per-suite", "2", ws.db_arg()});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, c.reason_part)) << r.out;
    EXPECT_TRUE(contains(r.err, "gpubench: error: some suites failed")) << r.err;
    EXPECT_TRUE(contains(r.err, "gpubench show")) << r.err;  // names what to do next
    const json detail =
        json::parse(ws.run({"show", "latest", "--format", "json", ws.db_arg()}).out);
    // The bad suite's first execution failed, so its other executions were not run; fixture_ok
    // ran all 5 of the standard profile's.
    ASSERT_EQ(detail["suites"].size(), 6u);
    EXPECT_EQ(detail["suites"][0]["status"], c.status);
    EXPECT_TRUE(contains(detail["suites"][0]["reason"].get<std::string>(), c.reason_part));
    for (std::size_t i = 1; i < 6; ++i) {
      EXPECT_EQ(detail["suites"][i]["suite"], "fixture_ok");
      EXPECT_EQ(detail["suites"][i]["status"], "ok");
    }
    EXPECT_EQ(detail["run"]["status"], "failed");
  }
  // The partial suite's valid JSON was kept.
  const CliResult show = ws.run({"show", "latest", ws.db_arg()});
  EXPECT_TRUE(contains(show.out, "fixture_partial/early")) << show.out;
  // Every earlier run is still there.
  const json runs = json::parse(ws.run({"runs", "--format", "json", ws.db_arg()}).out);
  EXPECT_EQ(runs.size(), 6u);
  EXPECT_EQ(runs.back()["status"], "complete");
}

TEST(E2eRun, InterruptStopsTheSuiteAndKeepsFinishedOnes) {
  Workspace ws;
  for (const char* sig : {"INT", "TERM"}) {
    SCOPED_TRACE(sig);
    // A shell starts gpubench in the background and signals it once the hanging suite runs.
    const std::string script = "\"$0\" run --suite fixture_ok,fixture_hang,fixture_fail " +
                               ws.db_arg() + " & pid=$!; sleep 2; kill -" + sig +
                               " $pid; wait $pid";
    harness::ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", script, gpubench_binary().string()};
    spec.env = {{"GPUBENCH_SUITE_PATH", ws.suites().string()}, {"CI", "1"}};
    spec.stdout_path = ws.root() / "interrupt.txt";
    spec.timeout_s = 30;
    const harness::ProcessResult r = harness::run_process(spec);
    EXPECT_EQ(r.exit_code, std::string(sig) == "INT" ? 130 : 143) << r.stderr_tail;
    EXPECT_TRUE(contains(r.stderr_tail, "interrupted")) << r.stderr_tail;
    EXPECT_LT(r.duration_s, 20);
    const json detail =
        json::parse(ws.run({"show", "latest", "--format", "json", ws.db_arg()}).out);
    EXPECT_EQ(detail["run"]["status"], "interrupted");
    ASSERT_EQ(detail["suites"].size(), 2u);  // fixture_fail never started
    EXPECT_EQ(detail["suites"][0]["status"], "ok");
    EXPECT_EQ(detail["suites"][1]["status"], "interrupted");
  }
}

TEST(E2eRun, UnknownSuiteListsKnownOnes) {
  Workspace ws;
  const CliResult r = ws.run({"run", "--suite", "nosuch", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "gpubench: error: unknown suite 'nosuch'")) << r.err;
  EXPECT_TRUE(contains(r.err, "fixture_ok")) << r.err;
  EXPECT_TRUE(contains(r.err, "GPUBENCH_SUITE_PATH")) << r.err;
  EXPECT_FALSE(fs::exists(ws.db()));  // nothing was written
}

TEST(E2eRun, CommandLineErrorsAreUsageErrors) {
  Workspace ws;
  const CliResult bogus = ws.run({"run", "--bogus"});
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_TRUE(contains(bogus.err, "gpubench: error: bad command line")) << bogus.err;
  EXPECT_EQ(ws.run({}).exit_code, 2);
  EXPECT_EQ(ws.run({"run", "--profile", "fast"}).exit_code, 2);
  EXPECT_EQ(ws.run({"run", "--tag", "novalue"}).exit_code, 2);
  EXPECT_EQ(ws.run({"runs", "--format", "xml", ws.db_arg()}).exit_code, 2);
  const CliResult version = ws.run({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(contains(version.out, "gpubench ")) << version.out;
  const CliResult help = ws.run({"run", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(contains(help.out, "--timeout-per-suite")) << help.out;
}

TEST(E2eRun, RealMemorySuiteRunsEndToEnd) {
  const fs::path memory = fs::path(GPUBENCH_BIN_DIR) / "gpubench-memory";
  if (!fs::exists(memory)) GTEST_SKIP() << "gpubench-memory is not built";
  Workspace ws;
  // One case family of the real suite keeps this test short; the full suite is the main job.
  const CliResult r = ws.run({"run", "--suite", "memory", "--profile", "quick", "--filter",
                              "host_copy", "--repetitions", "2", ws.db_arg()},
                             {}, 300);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json detail = json::parse(ws.run({"show", "latest", "--format", "json", ws.db_arg()}).out);
  EXPECT_EQ(detail["run"]["status"], "complete");
  EXPECT_EQ(detail["run"]["profile"], "quick");
  bool found = false;
  for (const auto& row : detail["results"]) {
    if (row["metric"] == "GB_per_s" && row["status"] == "ok") {
      found = true;
      EXPECT_EQ(row["unit"], "GB/s");
      EXPECT_EQ(row["direction"], "higher");
      EXPECT_EQ(row["values"].size(), 2u);
      EXPECT_GT(row["median"].get<double>(), 0.0);
    }
  }
  EXPECT_TRUE(found) << detail["results"].dump(1);

  // A filter that matches nothing in every selected suite stores nothing and exits 2 (issue 38:
  // it stored a `complete` run of 0 benchmarks that became `latest`).
  const std::size_t runs_before =
      json::parse(ws.run({"runs", "--format", "json", ws.db_arg()}).out).size();
  const CliResult none =
      ws.run({"run", "--suite", "memory", "--filter", "no_such_benchmark_zzz", ws.db_arg()});
  EXPECT_EQ(none.exit_code, 2) << none.out << none.err;
  EXPECT_TRUE(contains(none.err, "--filter 'no_such_benchmark_zzz' matches no benchmark of memory"))
      << none.err;
  EXPECT_EQ(json::parse(ws.run({"runs", "--format", "json", ws.db_arg()}).out).size(), runs_before);
}

// A filter that matches nothing in one of the selected suites is not a failure of that suite,
// while it matches in another.
TEST(E2eRun, AFilterMatchingOneSuiteOfTwoRunsThatOne) {
  const fs::path memory = fs::path(GPUBENCH_BIN_DIR) / "gpubench-memory";
  const fs::path calibration = fs::path(GPUBENCH_BIN_DIR) / "gpubench-calibration";
  if (!fs::exists(memory) || !fs::exists(calibration)) {
    GTEST_SKIP() << "gpubench-memory or gpubench-calibration is not built";
  }
  Workspace ws;
  const CliResult r = ws.run({"run", "--suite", "memory,calibration", "--profile", "quick",
                              "--filter", "host_copy", "--repetitions", "2", ws.db_arg()},
                             {}, 300);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "no benchmark matches the filter")) << r.out;
}

// A filter written against the names a run stores (Google Benchmark's suffixes included) matches
// although the suite's plan names its cases without them: the run goes ahead.
TEST(E2eRun, AFilterOnStoredNamesIsNotAnEmptyFilter) {
  const fs::path calibration = fs::path(GPUBENCH_BIN_DIR) / "gpubench-calibration";
  if (!fs::exists(calibration)) GTEST_SKIP() << "gpubench-calibration is not built";
  Workspace ws;
  const CliResult r = ws.run({"run", "--suite", "calibration", "--profile", "quick", "--filter",
                              "hash_chain/base_units:250000/iterations", "--repetitions", "2",
                              "--executions", "2", ws.db_arg()},
                             {}, 300);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json shown = json::parse(ws.run({"show", "latest", "--format", "json", ws.db_arg()}).out);
  EXPECT_EQ(shown["run"]["status"], "complete") << shown.dump(1);
}

// Suites start with CUDA_MODULE_LOADING=EAGER (no lazy module load behind the timing spin kernel)
// unless the user set it; the run's stored environment shows what the suites ran with.
TEST(E2eRun, SuitesRunWithEagerModuleLoadingUnlessTheUserChose) {
  const fs::path calibration = fs::path(GPUBENCH_BIN_DIR) / "gpubench-calibration";
  if (!fs::exists(calibration)) GTEST_SKIP() << "gpubench-calibration is not built";
  unsetenv("CUDA_MODULE_LOADING");  // this test's own environment must not decide the default
  Workspace ws;
  const auto stored_mode = [&] {
    const json detail =
        json::parse(ws.run({"show", "latest", "--format", "json", ws.db_arg()}).out);
    const json& env = detail.at("environment").at("configuration").at("env");
    const auto it = env.find("CUDA_MODULE_LOADING");
    return it == env.end() ? std::string("(absent)") : it->get<std::string>();
  };
  const CliResult eager =
      ws.run({"run", "--suite", "calibration", "--repetitions", "2", ws.db_arg()}, {}, 300);
  ASSERT_EQ(eager.exit_code, 0) << eager.out << eager.err;
  EXPECT_EQ(stored_mode(), "EAGER");

  const CliResult lazy =
      ws.run({"run", "--suite", "calibration", "--repetitions", "2", ws.db_arg()},
             {{"CUDA_MODULE_LOADING", "LAZY"}}, 300);
  ASSERT_EQ(lazy.exit_code, 0) << lazy.out << lazy.err;
  EXPECT_EQ(stored_mode(), "LAZY");
}

// gemm and allreduce run LAZY (they preload what they time; EAGER would load all of cuBLASLt or
// NCCL into every GPU context), the other suites EAGER: the real child processes' environment
// shows it. FIXTURE suites named gemm and launch record CUDA_MODULE_LOADING, then answer as
// fixture_ok (made-up numbers).
TEST(E2eRun, ModuleLoadingIsChosenPerSuite) {
  unsetenv("CUDA_MODULE_LOADING");  // this test's own environment must not decide the default
  Workspace ws;
  for (const std::string name : {"gemm", "launch"}) {
    const fs::path script = ws.suites() / ("gpubench-" + name);
    std::ofstream(script) << "#!/bin/sh\n"
                          << "# FIXTURE suite: records CUDA_MODULE_LOADING, answers as fixture_ok\n"
                          << "case \"$*\" in *--benchmark_out=*) echo \"$CUDA_MODULE_LOADING\" > '"
                          << (ws.root() / (name + ".env")).string() << "' ;; esac\n"
                          << "exec '" << (ws.suites() / "gpubench-fixture_ok").string()
                          << "' \"$@\"\n";
    chmod(script.c_str(), 0755);
  }
  const auto recorded = [&](const std::string& name) {
    std::string text = read_file(ws.root() / (name + ".env"));
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  };
  const CliResult r =
      ws.run({"run", "--suite", "gemm,launch", "--repetitions", "2", ws.db_arg()}, {}, 300);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(recorded("gemm"), "LAZY");
  EXPECT_EQ(recorded("launch"), "EAGER");
  const json detail = json::parse(ws.run({"show", "latest", "--format", "json", ws.db_arg()}).out);
  const std::string stored = detail.at("environment")
                                 .at("configuration")
                                 .at("env")
                                 .at("CUDA_MODULE_LOADING")
                                 .get<std::string>();
  EXPECT_TRUE(contains(stored, "EAGER (launch)")) << stored;
  EXPECT_TRUE(contains(stored, "LAZY (gemm)")) << stored;

  // A mode the user set is kept for every suite.
  const CliResult eager =
      ws.run({"run", "--suite", "gemm,launch", "--repetitions", "2", ws.db_arg()},
             {{"CUDA_MODULE_LOADING", "EAGER"}}, 300);
  ASSERT_EQ(eager.exit_code, 0) << eager.out << eager.err;
  EXPECT_EQ(recorded("gemm"), "EAGER");
  EXPECT_EQ(recorded("launch"), "EAGER");
}

}  // namespace
}  // namespace gpubench::e2e
