// What `gpubench run` says while it runs (issue 39): the case counter over Google Benchmark's
// console output, and the progress lines of a log and of a terminal, with a fake clock.
#include "harness/run/progress.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace gpubench::harness {
namespace {

// FIXTURE: the shape of Google Benchmark's console output (made-up numbers), fed in pieces that
// split lines, as a growing file is read.
TEST(ConsoleCaseCounter, CountsCasesOnceAcrossRepetitionsAndAggregates) {
  const std::string console =
      "2026-12-05T17:00:00+00:00\n"
      "Running ./gpubench-gemm\n"
      "Run on (2 X 2400 MHz CPU s)\n"
      "-------------------------------------------------------------------\n"
      "Benchmark                         Time             CPU   Iterations\n"
      "-------------------------------------------------------------------\n"
      "gemm/bf16/m:8192/manual_time   1.00 ms   0.10 ms   100 TFLOP_per_s=712\n"
      "gemm/bf16/m:8192/manual_time   1.01 ms   0.10 ms   100 TFLOP_per_s=711\n"
      "gemm/bf16/m:8192/manual_time_mean   1.00 ms  0.10 ms  2\n"
      "gemm/bf16/m:8192/manual_time_cv   0.1 %  0.1 %  2\n"
      "gemm/fp8/m:8192/manual_time   ERROR OCCURRED: 'skipped: no FP8 (fixture)'\n"
      "gemm/fp16/m:8192/manual_ti";
  ConsoleCaseCounter counter;
  for (std::size_t i = 0; i < console.size(); i += 7) counter.feed(console.substr(i, 7));
  EXPECT_EQ(counter.cases(), 2);  // bf16 and fp8; fp16's line is not complete yet
  counter.feed("me   1.00 ms   0.10 ms   100\n");
  EXPECT_EQ(counter.cases(), 3);
}

struct FakeClock {
  double now = 100;
};

TEST(RunProgress, LogGetsStartEndAndAtMostOneLinePerInterval) {
  std::ostringstream out;
  FakeClock clock;
  RunProgress p(out, ProgressStyle::lines, 30, [&] { return clock.now; });
  p.suite_started("[1/2] gemm", SuiteExpectation{40, 120});
  clock.now += 10;
  p.cases_done(5);  // 10 s in: no line yet
  clock.now += 25;
  p.cases_done(10);  // 35 s in: a line, with the ETA from the cases done
  clock.now += 5;
  p.cases_done(12);  // 5 s after that line: none
  clock.now += 60;
  p.suite_finished("ok (40 benchmarks; 100.0 s)");
  p.suite_started("[2/2] fixture_ok", std::nullopt);
  p.suite_finished("ok (1 benchmarks; 0.1 s)");
  EXPECT_EQ(out.str(),
            "gpubench: [1/2] gemm started: 40 cases planned, about 2m 0s\n"
            "gpubench: [1/2] gemm running: 10/40 cases, 35 s, about 1m 45s left\n"
            "gpubench: [1/2] gemm ended: ok (40 benchmarks; 100.0 s)\n"
            "gpubench: [2/2] fixture_ok started\n"
            "gpubench: [2/2] fixture_ok ended: ok (1 benchmarks; 0.1 s)\n");
}

TEST(RunProgress, TerminalRedrawsOneLinePerSuite) {
  std::ostringstream out;
  FakeClock clock;
  RunProgress p(out, ProgressStyle::live, 30, [&] { return clock.now; });
  p.suite_started("[1/1] gemm", SuiteExpectation{40, 120});
  clock.now += 1;
  p.cases_done(0);
  clock.now += 59;
  p.cases_done(20);
  p.suite_finished("ok (40 benchmarks; 100.0 s)");
  EXPECT_EQ(out.str(),
            "[1/1] gemm ..."
            "\r\033[K[1/1] gemm ... 0/40 cases, 1 s, about 1m 59s left"
            "\r\033[K[1/1] gemm ... 20/40 cases, 1m 0s, about 1m 0s left"
            "\r\033[K[1/1] gemm ... ok (40 benchmarks; 100.0 s)\n");
}

TEST(RunProgress, DurationWords) {
  EXPECT_EQ(duration_words(0.4), "0 s");
  EXPECT_EQ(duration_words(59), "59 s");
  EXPECT_EQ(duration_words(125), "2m 5s");
  EXPECT_EQ(duration_words(7500), "2h 5m");
}

}  // namespace
}  // namespace gpubench::harness
