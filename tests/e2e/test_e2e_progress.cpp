// Issue 39: `gpubench run` in a log (stderr not a terminal) says when each suite starts, with
// the cases and seconds its plan expects, and how it ended, through the real CLI.
#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

// A FIXTURE suite (not a benchmark) that gives a plan of 3 cases and 3 s and, when run, prints
// Google Benchmark's console lines and writes 3 made-up results.
const char* k_planned_suite = R"(#!/bin/sh
# FIXTURE suite for test_e2e_progress.cpp: made-up numbers, labelled so.
out=""
for a in "$@"; do
  case "$a" in
    --gpubench_info)
      echo '{"suite":"fixture_planned","description":"FIXTURE: a plan of 3 cases","metrics":[{"name":"items_per_s","unit":"items/s","direction":"higher","description":"fixture"}],"runnable":true,"reason":"","notes":[]}'
      exit 0 ;;
    --gpubench_plan)
      echo '{"suite":"fixture_planned","estimated_s":3,"cases":[{"name":"fixture_planned/a","estimated_s":1},{"name":"fixture_planned/b","estimated_s":1},{"name":"fixture_planned/c","estimated_s":1}]}'
      exit 0 ;;
    --benchmark_list_tests=true) printf 'fixture_planned/a\nfixture_planned/b\nfixture_planned/c\n'; exit 0 ;;
    --benchmark_out=*) out="${a#--benchmark_out=}" ;;
  esac
done
[ -n "$out" ] || exit 0
echo "---------------------------------------"
echo "Benchmark      Time      CPU  Iterations"
echo "---------------------------------------"
for c in a b c; do
  echo "fixture_planned/$c   100 ns   99 ns   10 items_per_s=1000"
done
cat > "$out" <<'JSON'
{"context": {"date": "2026-12-05T17:00:00+00:00", "host_name": "fixture-host", "num_cpus": 2,
  "gpubench.suite": "fixture_planned",
  "gpubench.metrics": "[{\"name\":\"items_per_s\",\"unit\":\"items/s\",\"direction\":\"higher\"}]"},
 "benchmarks": [
  {"name": "fixture_planned/a", "run_name": "fixture_planned/a", "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 10, "real_time": 100.0, "cpu_time": 99.0, "time_unit": "ns", "items_per_s": 1000.0},
  {"name": "fixture_planned/b", "run_name": "fixture_planned/b", "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 10, "real_time": 100.0, "cpu_time": 99.0, "time_unit": "ns", "items_per_s": 1000.0},
  {"name": "fixture_planned/c", "run_name": "fixture_planned/c", "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 10, "real_time": 100.0, "cpu_time": 99.0, "time_unit": "ns", "items_per_s": 1000.0}
 ]}
JSON
exit 0
)";

TEST(E2eProgress, ALogGetsALineWhenEachSuiteStartsAndEnds) {
  Workspace ws;
  const fs::path suite = ws.suites() / "gpubench-fixture_planned";
  write_file_atomic(suite, k_planned_suite);
  chmod(suite.c_str(), 0755);
  const CliResult r = ws.run({"run", "--suite", "fixture_planned,fixture_ok,fixture_fail",
                              "--executions", "2", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 3) << r.err;  // fixture_fail fails
  // In --suite's order. The plan's cases and seconds when the suite gives a plan; the fixtures
  // without one start without them. Each start has its end, with the cases done, skipped and
  // failed; a failed suite's second execution is not started.
  EXPECT_TRUE(contains(r.err,
                       "gpubench: [1/6] fixture_planned (execution 1/2) started: 3 cases "
                       "planned, about 3 s\n"))
      << r.err;
  EXPECT_TRUE(contains(r.err,
                       "gpubench: [1/6] fixture_planned (execution 1/2) ended: ok (3 "
                       "benchmarks; "))
      << r.err;
  EXPECT_TRUE(contains(r.err, "gpubench: [2/6] fixture_ok (execution 1/2) started\n")) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "gpubench: [2/6] fixture_ok (execution 1/2) ended: ok (2 "
                       "benchmarks: 1 skipped, 0 failed; "))
      << r.err;
  EXPECT_TRUE(contains(r.err, "gpubench: [3/6] fixture_fail (execution 1/2) started\n")) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "gpubench: [3/6] fixture_fail (execution 1/2) ended: failed (0 "
                       "benchmarks; "))
      << r.err;
  EXPECT_TRUE(contains(r.err, "gpubench: [4/6] fixture_planned (execution 2/2) started: 3 cases"))
      << r.err;
  EXPECT_FALSE(contains(r.err, "fixture_fail (execution 2/2)")) << r.err;
  // Progress is on stderr only: stdout keeps the summary scripts read.
  EXPECT_FALSE(contains(r.out, "started")) << r.out;
}

}  // namespace
}  // namespace gpubench::e2e
