// The doctor's NVML-facing checks (issue 21 item 10 and its doctor minors): lost GPUs, lifetime
// ECC errors and remapped rows, MIG, application clocks that cannot be read, the enforced power
// limit, NVLink links and the NVSwitch fabric; and how NVML's return codes become facts. Facts
// and return codes are hand-written fixtures, not readings of this machine.
#include <gtest/gtest.h>

#include "harness/doctor/doctor.hpp"
#include "harness/probe/nvml.hpp"

namespace gpubench::harness {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<GpuFacts> gpus(int n, const std::string& name = "NVIDIA H200") {
  std::vector<GpuFacts> out(n);
  for (int i = 0; i < n; ++i) {
    out[i].index = i;
    out[i].name = name;
  }
  return out;
}

GpuCount count_of(const std::vector<GpuFacts>& g) {
  return GpuCount{static_cast<int>(g.size()), ""};
}

TEST(DoctorGpu, AGpuThatFellOffTheBusFailsByNameAndIsUnknownElsewhere) {
  auto g = gpus(4);
  for (auto& f : g) f.persistence = true;
  EXPECT_EQ(check_gpu_reachable(g, count_of(g)).status, CheckStatus::pass);
  g[2].lost = true;
  g[2].bus_id = "00000000:9A:00.0";
  const DoctorCheck r = check_gpu_reachable(g, count_of(g));
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_TRUE(contains(r.value, "gpu2 (00000000:9A:00.0) NVIDIA H200 fell off the bus")) << r.value;
  EXPECT_FALSE(r.fix.empty());
  // Its other facts are unreadable: unknown in the other checks, never a pass.
  const DoctorCheck p = check_persistence(g, count_of(g));
  EXPECT_EQ(p.status, CheckStatus::unknown);
  EXPECT_TRUE(contains(p.value, "gpu2 lost")) << p.value;
  EXPECT_EQ(check_gpu_reachable(g, GpuCount{0, "no driver"}).status, CheckStatus::unknown);
}

TEST(DoctorGpu, RowsRemappedForUncorrectableErrorsWarnOnlyAFailedRemapFails) {
  auto g = gpus(2);
  for (auto& f : g) f.remapped_rows = RemappedRows{};
  EXPECT_EQ(check_retired_memory(g, count_of(g)).status, CheckStatus::pass);
  g[1].remapped_rows->uncorrected = 3;
  const DoctorCheck handled = check_retired_memory(g, count_of(g));
  EXPECT_EQ(handled.status, CheckStatus::warn);
  EXPECT_TRUE(contains(handled.value, "gpu1 remapped rows 0 correctable/3 uncorrectable"))
      << handled.value;
  g[1].remapped_rows->failure = true;
  EXPECT_EQ(check_retired_memory(g, count_of(g)).status, CheckStatus::fail);
}

TEST(DoctorGpu, LifetimeUncorrectedErrorsWarnVolatileOnesFail) {
  auto g = gpus(1);
  g[0].ecc_enabled = true;
  g[0].ecc_volatile_corrected = g[0].ecc_volatile_uncorrected = 0;
  g[0].ecc_aggregate_corrected = 0;
  g[0].ecc_aggregate_uncorrected = 5;  // a pre-Ampere GPU: page retirement handled them
  const DoctorCheck old = check_ecc_errors(g, count_of(g));
  EXPECT_EQ(old.status, CheckStatus::warn);
  EXPECT_TRUE(contains(old.value, "handled by page retirement")) << old.value;
  g[0].ecc_volatile_uncorrected = 1;
  EXPECT_EQ(check_ecc_errors(g, count_of(g)).status, CheckStatus::fail);
}

TEST(DoctorGpu, MigOnFailsPendingWarnsNoMigPasses) {
  auto g = gpus(3);
  g[0].mig = MigFacts{false, false, false};
  g[1].mig = MigFacts{true, false, false};
  g[2].mig = MigFacts{true, false, false};
  EXPECT_EQ(check_mig(g, count_of(g)).status, CheckStatus::pass);
  g[2].mig->pending_enabled = true;
  EXPECT_EQ(check_mig(g, count_of(g)).status, CheckStatus::warn);
  g[1].mig->enabled = g[1].mig->pending_enabled = true;
  const DoctorCheck on = check_mig(g, count_of(g));
  EXPECT_EQ(on.status, CheckStatus::fail);
  EXPECT_TRUE(contains(on.value, "gpu0 no MIG on this GPU; gpu1 MIG on")) << on.value;
  EXPECT_FALSE(on.fix.empty());
  g[0].mig.reset();
  g[1].mig.reset();
  g[2].mig.reset();
  EXPECT_EQ(check_mig(g, count_of(g)).status, CheckStatus::unknown);
}

TEST(DoctorGpu, UnreadableApplicationClocksAreUnknownNotPass) {
  auto g = gpus(1);
  // Reason 0x2 clear proves nothing: CUDA 13's nvml.h says the bit is no longer used.
  g[0].clocks_user_limited = false;
  const DoctorCheck c = check_app_clocks(g, count_of(g));
  EXPECT_EQ(c.status, CheckStatus::unknown);
  EXPECT_EQ(c.value.rfind("unknown: ", 0), 0u) << c.value;
  EXPECT_TRUE(contains(c.expected, "Locked clocks")) << c.expected;
  g[0].app_sm_clock_mhz = g[0].default_app_sm_clock_mhz = 1980;
  g[0].graphics_clock_offset_mhz = 0;
  EXPECT_EQ(check_app_clocks(g, count_of(g)).status, CheckStatus::pass);
  g[0].app_sm_clock_mhz = 1500;  // nvidia-smi -ac
  EXPECT_EQ(check_app_clocks(g, count_of(g)).status, CheckStatus::warn);
  g[0].app_sm_clock_mhz = 1980;
  g[0].graphics_clock_offset_mhz = -200;
  const DoctorCheck offset = check_app_clocks(g, count_of(g));
  EXPECT_EQ(offset.status, CheckStatus::warn);
  EXPECT_TRUE(contains(offset.value, "clock offset -200 MHz")) << offset.value;
}

// Current drivers drop the (deprecated) application clocks; P0's clock range still answers and
// decides the check on its own.
TEST(DoctorGpu, P0ClockRangeDecidesWithoutApplicationClocks) {
  auto g = gpus(1);
  g[0].max_sm_clock_mhz = 1980;
  g[0].p0_min_sm_clock_mhz = 345;
  g[0].p0_max_sm_clock_mhz = 1980;
  g[0].graphics_clock_offset_mhz = 0;
  const DoctorCheck full = check_app_clocks(g, count_of(g));
  EXPECT_EQ(full.status, CheckStatus::pass) << full.value;
  EXPECT_TRUE(contains(full.value, "P0 SM clock 345-1980 MHz of a 1980 MHz boost limit"))
      << full.value;
  g[0].p0_max_sm_clock_mhz = 1410;
  const DoctorCheck capped = check_app_clocks(g, count_of(g));
  EXPECT_EQ(capped.status, CheckStatus::warn) << capped.value;
  EXPECT_TRUE(contains(capped.value, "1410 MHz of a 1980 MHz boost limit (capped)"))
      << capped.value;
  const DoctorCheck lock = check_sm_clock_lock(g, count_of(g));
  EXPECT_EQ(lock.status, CheckStatus::warn) << lock.value;
  EXPECT_TRUE(contains(lock.value, "capped at 1410 MHz")) << lock.value;
}

TEST(DoctorGpu, EnforcedPowerLimitBelowTheConfiguredOneWarns) {
  auto g = gpus(1);
  g[0].power_limit_w = 700;
  g[0].configured_power_limit_w = 700;
  g[0].default_power_limit_w = 700;
  EXPECT_EQ(check_power_limit(g, count_of(g)).status, CheckStatus::pass);
  g[0].power_limit_w = 550;  // a chassis cap the configured limit does not show
  const DoctorCheck c = check_power_limit(g, count_of(g));
  EXPECT_EQ(c.status, CheckStatus::warn);
  EXPECT_TRUE(contains(c.value, "gpu0 enforced 550 W, configured 700 W (default 700 W)"))
      << c.value;
}

NvlinkFacts links(int up, std::vector<int> down = {}) {
  NvlinkFacts n;
  for (int i = 0; i < up; ++i) n.up.push_back(i);
  n.down = std::move(down);
  return n;
}

TEST(DoctorGpu, NvlinkDownAmongSiblingsOrOnAFabricFails) {
  auto g = gpus(8);
  for (auto& f : g) f.nvlink = links(18);
  EXPECT_EQ(check_nvlink(g, count_of(g)).status, CheckStatus::pass);
  g[5].nvlink = links(16, {16, 17});
  const DoctorCheck down = check_nvlink(g, count_of(g));
  EXPECT_EQ(down.status, CheckStatus::fail);
  EXPECT_TRUE(contains(down.value, "gpu5 16/18 up, links 16,17 down (a sibling has 18 up)"))
      << down.value;
  // On an NVSwitch fabric every supported link is wired: one GPU alone with a link down fails.
  auto one = gpus(1);
  one[0].nvlink = links(17, {3});
  one[0].fabric = FabricFacts{};
  one[0].fabric->state = k_fabric_state_completed;
  EXPECT_EQ(check_nvlink(one, count_of(one)).status, CheckStatus::fail);
}

TEST(DoctorGpu, NvlinkBridgesThatWireFewerLinksAndNoNvlinkAreNotFailures) {
  auto g = gpus(2, "NVIDIA H100 NVL");
  g[0].nvlink = links(12, {12, 13, 14, 15, 16, 17});
  g[1].nvlink = links(12, {12, 13, 14, 15, 16, 17});
  EXPECT_EQ(check_nvlink(g, count_of(g)).status, CheckStatus::pass);
  g[0].nvlink = g[1].nvlink = links(0, {0, 1, 2, 3});
  const DoctorCheck none = check_nvlink(g, count_of(g));
  EXPECT_EQ(none.status, CheckStatus::warn);
  EXPECT_TRUE(contains(none.value, "no link up of 4")) << none.value;
  g[0].nvlink = g[1].nvlink = NvlinkFacts{};  // L40S: no NVLink at all
  EXPECT_EQ(check_nvlink(g, count_of(g)).status, CheckStatus::pass);
  g[1].nvlink.reset();
  EXPECT_EQ(check_nvlink(g, count_of(g)).status, CheckStatus::unknown);
}

TEST(DoctorGpu, FabricRegistrationNotCompletedOrFailedFails) {
  auto g = gpus(2);
  FabricFacts done;
  done.state = k_fabric_state_completed;
  done.status = 0;
  done.health_summary = k_fabric_health_healthy;
  g[0].fabric = g[1].fabric = done;
  EXPECT_EQ(check_nvlink_fabric(g, count_of(g)).status, CheckStatus::pass);
  g[1].fabric->state = k_fabric_state_in_progress;
  const DoctorCheck pending = check_nvlink_fabric(g, count_of(g));
  EXPECT_EQ(pending.status, CheckStatus::fail);
  EXPECT_TRUE(contains(pending.value, "gpu1 fabric registration in progress")) << pending.value;
  EXPECT_TRUE(contains(pending.fix, "nvidia-fabricmanager")) << pending.fix;
  g[1].fabric->state = k_fabric_state_not_started;
  EXPECT_EQ(check_nvlink_fabric(g, count_of(g)).status, CheckStatus::fail);
  g[1].fabric->state = k_fabric_state_completed;
  g[1].fabric->status = k_nvml_error_not_supported + 100;  // any NVML error
  EXPECT_EQ(check_nvlink_fabric(g, count_of(g)).status, CheckStatus::fail);
  g[1].fabric->status = 0;
  g[1].fabric->health_summary = k_fabric_health_limited_capacity;
  EXPECT_EQ(check_nvlink_fabric(g, count_of(g)).status, CheckStatus::warn);
  g[1].fabric->health_summary = k_fabric_health_unhealthy;
  EXPECT_EQ(check_nvlink_fabric(g, count_of(g)).status, CheckStatus::fail);
  g[1].fabric->health_summary.reset();  // a v2-only driver: the mask says bandwidth degraded
  g[1].fabric->health_mask = 1u;
  EXPECT_EQ(check_nvlink_fabric(g, count_of(g)).status, CheckStatus::warn);
  FabricFacts pcie;
  pcie.supported = false;
  g[0].fabric = g[1].fabric = pcie;
  EXPECT_EQ(check_nvlink_fabric(g, count_of(g)).status, CheckStatus::pass);
}

TEST(DoctorNvml, ReturnCodesBecomeFactsOrUnknown) {
  constexpr int k_no_permission = 4;  // NVML_ERROR_NO_PERMISSION
  EXPECT_FALSE(mig_from_nvml(k_nvml_error_not_supported, 0, 0)->supported);
  EXPECT_TRUE(mig_from_nvml(k_nvml_success, 1, 1)->enabled);
  EXPECT_FALSE(mig_from_nvml(k_nvml_success, 0, 1)->enabled);
  EXPECT_TRUE(mig_from_nvml(k_nvml_success, 0, 1)->pending_enabled);
  EXPECT_FALSE(mig_from_nvml(k_no_permission, 0, 0));
  EXPECT_FALSE(mig_from_nvml(k_nvml_error_function_not_found, 0, 0));

  FabricFacts read;
  read.state = k_fabric_state_not_supported;
  EXPECT_FALSE(fabric_from_nvml(k_nvml_success, read)->supported);
  EXPECT_FALSE(fabric_from_nvml(k_nvml_error_not_supported, read)->supported);
  EXPECT_FALSE(fabric_from_nvml(k_nvml_error_function_not_found, read));
  read.state = k_fabric_state_in_progress;
  EXPECT_TRUE(fabric_from_nvml(k_nvml_success, read)->supported);

  // Links 0-1 up, 2 down, 3.. not on this GPU (NOT_SUPPORTED / INVALID_ARGUMENT past its last).
  std::vector<NvlinkAnswer> answers = {
      {0, 1}, {0, 1}, {0, 0}, {k_nvml_error_not_supported, 0}, {2, 0}};
  const auto n = nvlink_from_nvml(answers);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->up, (std::vector<int>{0, 1}));
  EXPECT_EQ(n->down, (std::vector<int>{2}));
  answers.push_back({k_nvml_error_gpu_is_lost, 0});
  EXPECT_FALSE(nvlink_from_nvml(answers));
}

}  // namespace
}  // namespace gpubench::harness
