// CPU-time clocks (util/clock.hpp): the process clock counts every thread's work, the thread
// clock only the caller's, and neither counts sleeping.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "util/clock.hpp"

namespace {

// Spins the calling thread for `seconds` of wall time (monotonic clock).
void spin_for(double seconds) {
  const double until = gpubench::monotonic_seconds() + seconds;
  volatile unsigned sink = 0;
  while (gpubench::monotonic_seconds() < until) sink = sink + 1;
}

}  // namespace

TEST(Clock, ProcessCpuCountsOtherThreadsAndThreadCpuOnlyTheCaller) {
  const double process0 = gpubench::process_cpu_seconds();
  const double thread0 = gpubench::thread_cpu_seconds();
  // Another thread burns ~0.2 s of CPU while this one sleeps (no CPU).
  std::thread worker([] { spin_for(0.2); });
  worker.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double process = gpubench::process_cpu_seconds() - process0;
  const double thread = gpubench::thread_cpu_seconds() - thread0;
  // The worker may be descheduled on a loaded machine, so only a floor well under 0.2 s.
  EXPECT_GT(process, 0.02);
  EXPECT_LT(thread, 0.02);  // joining and sleeping cost this thread next to nothing
  EXPECT_GE(process, thread);
}

TEST(Clock, ThreadCpuCountsTheCallersWork) {
  const double t0 = gpubench::thread_cpu_seconds();
  spin_for(0.1);
  EXPECT_GT(gpubench::thread_cpu_seconds() - t0, 0.01);
}
