// Issue 38: the machine's load while a suite runs (harness/run/machine_load.hpp), with real child
// processes: a "suite" child and a busy sibling that is not the suite, on this (shared) machine.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "compare/compare.hpp"
#include "harness/run/machine_load.hpp"

namespace gpubench::harness {
namespace {

TEST(MachineLoad, ParsesProcFiles) {
  EXPECT_DOUBLE_EQ(*parse_loadavg_1m("1.82 0.58 0.59 3/467 12345\n"), 1.82);
  EXPECT_FALSE(parse_loadavg_1m("garbage"));
  // user nice system idle iowait irq softirq steal guest guest_nice: busy = all but idle, iowait.
  EXPECT_EQ(*parse_stat_busy_ticks("cpu  100 2 30 5000 40 5 6 7 0 0\ncpu0 1 2 3 4 5 6 7 8\n"),
            100u + 2 + 30 + 5 + 6 + 7);
  EXPECT_FALSE(parse_stat_busy_ticks("cpu0 1 2 3\nintr 5\n"));
  EXPECT_FALSE(parse_stat_busy_ticks("cpu  1 2 3\n"));
}

// A child that burns CPU for `seconds` (or sleeps, with spin false), then exits.
pid_t child(double seconds, bool spin) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    volatile unsigned long x = 0;
    while (std::chrono::steady_clock::now() < end) {
      if (spin) {
        for (int i = 0; i < 100000; ++i) x = x + static_cast<unsigned long>(i);
      } else {
        ::usleep(10000);
      }
    }
    ::_exit(0);
  }
  return pid;
}

// The load over one "suite" (a child this process waits for, as run_process does), with or
// without a busy sibling process running meanwhile that is not the suite.
results::MachineLoad measure(bool suite_spins, bool busy_sibling) {
  const pid_t sibling = busy_sibling ? child(30, true) : -1;
  const LoadSnapshot before = take_load_snapshot();
  const pid_t suite = child(1.5, suite_spins);
  int status = 0;
  ::waitpid(suite, &status, 0);
  const auto load = load_between(before, take_load_snapshot());
  if (sibling > 0) {
    ::kill(sibling, SIGKILL);
    ::waitpid(sibling, &status, 0);
  }
  if (!load) ADD_FAILURE() << "no /proc/loadavg or /proc/stat on this Linux host";
  return load.value_or(results::MachineLoad{});
}

TEST(MachineLoad, CountsOtherProcessesNotTheSuiteItself) {
  // A busy sibling is CPU used elsewhere; the suite's own CPU (its rusage) is not. The machine is
  // shared, so the background is what it is: compared between the two cases, the sibling's CPU
  // shows, and a suite spinning as hard does not (without subtracting the suite's rusage both
  // cases would read the same).
  const results::MachineLoad own = measure(/*suite_spins=*/true, /*busy_sibling=*/false);
  const results::MachineLoad other = measure(/*suite_spins=*/false, /*busy_sibling=*/true);
  EXPECT_GT(own.wall_s, 1.4);
  EXPECT_GT(other.wall_s, 1.4);
  EXPECT_GE(other.other_cpus_busy(), 0.5) << "a spinning sibling is at least half a CPU";
  EXPECT_GE(other.other_cpus_busy() - own.other_cpus_busy(), 0.3)
      << "own: " << own.other_cpus_busy() << ", with a busy sibling: " << other.other_cpus_busy();
  EXPECT_GE(own.loadavg_1m_start, 0.0);
}

TEST(MachineLoad, CompareNamesADifferenceOfHalfACpuOrMore) {
  auto run_with = [](double other_cpu_s) {
    results::RunDetail d;
    results::SuiteRunInfo s;
    s.suite = "memory";
    s.load = results::MachineLoad{0.2, 2.1, other_cpu_s, 10.0};
    d.suites.push_back(s);
    return std::vector<results::RunDetail>{d};
  };
  const auto diffs = compare::environment_differences(run_with(1.0), run_with(18.0));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].field, "machine load (memory)");
  EXPECT_EQ(diffs[0].base, "0.10 CPUs busy elsewhere (load average 2.10)");
  EXPECT_EQ(diffs[0].candidate, "1.8 CPUs busy elsewhere (load average 2.10)");
  EXPECT_TRUE(compare::environment_differences(run_with(1.0), run_with(5.0)).empty())
      << "0.4 CPUs apart is within the noise";
}

}  // namespace
}  // namespace gpubench::harness
