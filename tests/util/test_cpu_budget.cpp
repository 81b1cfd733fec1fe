// util/cpu_budget.hpp: the CPUs host benchmarks may keep busy (issue 23 item 21).
#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

#include "util/cpu_budget.hpp"

namespace gpubench {

TEST(CpuBudget, ACgroupQuotaIsRoundedUpToWholeCpus) {
  EXPECT_EQ(cpus_of_cpu_max("200000 100000"), 2);
  EXPECT_EQ(cpus_of_cpu_max("150000 100000\n"), 2);  // a partial CPU still runs a thread
  EXPECT_EQ(cpus_of_cpu_max("50000 100000"), 1);
  EXPECT_EQ(cpus_of_cpu_max("1600000 100000"), 16);
}

TEST(CpuBudget, NoQuotaOrAMalformedLineIsNoLimit) {
  EXPECT_FALSE(cpus_of_cpu_max("max 100000"));
  EXPECT_FALSE(cpus_of_cpu_max(""));
  EXPECT_FALSE(cpus_of_cpu_max("200000"));
  EXPECT_FALSE(cpus_of_cpu_max("abc 100000"));
  EXPECT_FALSE(cpus_of_cpu_max("200000 0"));
  EXPECT_FALSE(cpus_of_cpu_max("-5 100000"));
}

TEST(CpuBudget, UsableCpusNeverExceedTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  const int usable = usable_cpu_count();
  EXPECT_GE(usable, 1);
  EXPECT_LE(usable, CPU_COUNT(&set));
}

TEST(CpuBudget, ANarrowerAffinityMaskNarrowsTheCount) {
  cpu_set_t before;
  CPU_ZERO(&before);
  ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
  int first = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE && first < 0; ++cpu) {
    if (CPU_ISSET(cpu, &before)) first = cpu;
  }
  ASSERT_GE(first, 0);
  // On a thread of its own, so the test process keeps its mask whatever happens.
  int seen = 0;
  std::thread t([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof(one), &one) == 0) seen = usable_cpu_count();
  });
  t.join();
  EXPECT_EQ(seen, 1);
}

}  // namespace gpubench
