// Whether a GPU's SM clock is locked (harness/probe/clock_lock.hpp), the doctor's clocks.sm_lock
// check over it, and the run environment's clocks_locked value. Facts are hand-written fixtures
// shaped like NVML's answers (H100 SXM: boost 1980 MHz, default application clock 1755 MHz), not
// readings of this machine.
#include <gtest/gtest.h>

#include "harness/doctor/doctor.hpp"
#include "harness/probe/clock_lock.hpp"
#include "harness/probe/environment.hpp"
#include "harness/probe/nvml.hpp"

namespace gpubench::harness {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

ClockLockFacts h100() {
  ClockLockFacts f;
  f.max_sm_clock_mhz = 1980;
  f.app_sm_clock_mhz = 1755;
  f.default_app_sm_clock_mhz = 1755;
  f.reasons = throttle::gpu_idle;
  f.sm_clock_mhz = 345;
  return f;
}

TEST(ClockLock, ApplicationClocksAtTheirDefaultAreNotALock) {
  const ClockLockState s = sm_clock_lock(h100());
  EXPECT_EQ(s.lock, ClockLock::not_locked);
  EXPECT_EQ(s.text, "SM clock: not locked (boost up to 1980 MHz)");
  ClockLockFacts no_max = h100();
  no_max.max_sm_clock_mhz.reset();
  EXPECT_EQ(sm_clock_lock(no_max).text, "SM clock: not locked (boost up to an unknown maximum)");
}

TEST(ClockLock, ApplicationClocksAwayFromTheirDefaultLockTheClock) {
  ClockLockFacts f = h100();
  f.app_sm_clock_mhz = 1410;  // nvidia-smi -ac 2619,1410
  const ClockLockState s = sm_clock_lock(f);
  EXPECT_EQ(s.lock, ClockLock::locked);
  EXPECT_EQ(s.locked_mhz, 1410);
  EXPECT_EQ(s.text,
            "SM clock: locked at 1410 MHz (application clocks, nvidia-smi -ac; default 1755 MHz)");
}

TEST(ClockLock, ReasonTwoSetIsALockClearProvesNothing) {
  ClockLockFacts f = h100();
  f.reasons = throttle::applications_clocks_setting;
  f.sm_clock_mhz = 1410;
  const ClockLockState s = sm_clock_lock(f);
  EXPECT_EQ(s.lock, ClockLock::locked);
  EXPECT_FALSE(s.locked_mhz.has_value());
  EXPECT_EQ(s.text,
            "SM clock: locked (clocks-event reason 0x2: a clock setting holds it; now 1410 MHz)");
  // Without the application clocks (deprecated in CUDA 13) and no reason: unknown, not a guess.
  ClockLockFacts blind = h100();
  blind.app_sm_clock_mhz.reset();
  const ClockLockState u = sm_clock_lock(blind);
  EXPECT_EQ(u.lock, ClockLock::unknown);
  EXPECT_EQ(u.text.rfind("SM clock: unknown: ", 0), 0u) << u.text;
  EXPECT_TRUE(contains(u.text, "nvidia-smi -lgc has no NVML getter")) << u.text;
}

// P0's clock range (nvmlDeviceGetMinMaxClockOfPState, not deprecated) is what current drivers
// still report: a P0 maximum below the boost limit is a cap, whatever set it.
TEST(ClockLock, AP0RangeBelowTheBoostLimitIsACap) {
  ClockLockFacts f = h100();
  f.app_sm_clock_mhz.reset();  // a CUDA 13 driver: no application clocks
  f.default_app_sm_clock_mhz.reset();
  f.p0_max_sm_clock_mhz = 1410;
  const ClockLockState capped = sm_clock_lock(f);
  EXPECT_EQ(capped.lock, ClockLock::locked);
  EXPECT_EQ(capped.locked_mhz, 1410);
  EXPECT_EQ(capped.text,
            "SM clock: capped at 1410 MHz (P0 allows at most that of the 1980 MHz boost limit: a "
            "clock lock such as nvidia-smi -lgc, or a firmware limit)");
  f.p0_max_sm_clock_mhz = 1980;
  const ClockLockState full = sm_clock_lock(f);
  EXPECT_EQ(full.lock, ClockLock::not_locked);
  EXPECT_TRUE(contains(full.text, "no lock NVML shows")) << full.text;
  EXPECT_TRUE(contains(full.text, "nvidia-smi -lgc lock has no NVML getter")) << full.text;
  f.p0_max_sm_clock_mhz = 1960;  // within the 2% tolerance: not a cap
  EXPECT_EQ(sm_clock_lock(f).lock, ClockLock::not_locked);
}

TEST(ClockLock, TheRunRecordsTrueOnlyWhenNvmlShowsALock) {
  const ClockLockState free = sm_clock_lock(h100());
  ClockLockFacts f = h100();
  f.app_sm_clock_mhz = 1410;
  const ClockLockState locked = sm_clock_lock(f);
  // A -lgc lock is invisible, so an unlocked-looking server is "unknown", never "false".
  EXPECT_EQ(clocks_locked_value({free, free}), "unknown");
  EXPECT_EQ(clocks_locked_value({free, locked}), "true");
  EXPECT_EQ(clocks_locked_value({}), "unknown");
}

TEST(ClockLock, WithoutNvmlTheEnvironmentSaysUnknown) {
  const Nvml nvml;
  if (nvml.available() && nvml.device_count() > 0) GTEST_SKIP() << "NVML sees GPUs here";
  results::SoftwareEnv software;
  std::string locked = "not set";
  EXPECT_TRUE(probe_gpus(software, &locked).empty());
  EXPECT_EQ(locked, "unknown");
  EXPECT_EQ(probe_environment("quick").config.clocks_locked, "unknown");
}

std::vector<GpuFacts> h100_facts(int n) {
  std::vector<GpuFacts> out(n);
  for (int i = 0; i < n; ++i) {
    out[i].index = i;
    out[i].name = "NVIDIA H100 80GB HBM3";
    out[i].max_sm_clock_mhz = 1980;
    out[i].app_sm_clock_mhz = 1755;
    out[i].default_app_sm_clock_mhz = 1755;
    out[i].clocks_user_limited = false;
    out[i].sm_clock_mhz = 345;
  }
  return out;
}

TEST(DoctorSmClockLock, PrintsEachGpusLockStateWithAHint) {
  auto g = h100_facts(2);
  const GpuCount count{2, ""};
  const DoctorCheck free = check_sm_clock_lock(g, count);
  EXPECT_EQ(free.name, "clocks.sm_lock");
  EXPECT_EQ(free.status, CheckStatus::pass);
  EXPECT_TRUE(contains(free.value,
                       "gpu0 SM clock: not locked (boost up to 1980 MHz); gpu1 SM "
                       "clock: not locked (boost up to 1980 MHz)"))
      << free.value;
  EXPECT_TRUE(contains(free.value, "hint: for repeatable CI numbers lock with")) << free.value;
  EXPECT_TRUE(contains(free.expected, "nvidia-smi -lgc has no NVML getter")) << free.expected;

  g[1].app_sm_clock_mhz = 1410;
  const DoctorCheck locked = check_sm_clock_lock(g, count);
  EXPECT_EQ(locked.status, CheckStatus::warn);
  EXPECT_TRUE(contains(locked.value, "gpu1 SM clock: locked at 1410 MHz")) << locked.value;
  EXPECT_TRUE(contains(locked.value, "never compare them with unlocked runs")) << locked.value;
  EXPECT_TRUE(contains(locked.fix, "nvidia-smi -rgc")) << locked.fix;

  g[0].app_sm_clock_mhz.reset();
  g[1].app_sm_clock_mhz.reset();
  const DoctorCheck unknown = check_sm_clock_lock(g, count);
  EXPECT_EQ(unknown.status, CheckStatus::unknown);
  EXPECT_EQ(unknown.value.rfind("unknown: ", 0), 0u) << unknown.value;

  const DoctorCheck no_nvml = check_sm_clock_lock({}, GpuCount{0, "GPU facts unreadable: x"});
  EXPECT_EQ(no_nvml.status, CheckStatus::unknown);
}

TEST(DoctorSmClockLock, RunDoctorIncludesIt) {
  DoctorOptions o;
  o.profile.clear();  // no dataloader to ask
  const auto checks = run_doctor(o);
  int found = 0;
  for (const auto& c : checks) found += c.name == "clocks.sm_lock";
  EXPECT_EQ(found, 1);
}

}  // namespace
}  // namespace gpubench::harness
