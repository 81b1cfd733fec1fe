// The allreduce suite's record of which GPUs each sample ran on (issue 37, allreduce review m7):
// every rank's GPU by slot, and each series' slots, as the results store reads them
// (results/sample_gpus.hpp). FIXTURE identities (made-up hosts and UUIDs), no MPI, no GPU.
#include <gtest/gtest.h>

#include "suites/allreduce/sample_devices.hpp"

namespace gpubench::allreduce {
namespace {

// FIXTURE: two nodes of two GPUs, one rank per GPU.
std::vector<SlotGpu> two_nodes() {
  std::vector<RankGpus> ranks;
  for (int r = 0; r < 4; ++r) {
    ranks.push_back({r, r % 2, r < 2 ? "node0" : "node1", "GPU-fixture-" + std::to_string(r),
                     "0000:1" + std::to_string(r % 2) + ":00.0"});
  }
  return slot_gpus(ranks);
}

TEST(SampleDevices, UnderALauncherASlotIsTheWorldRankOnEveryNode) {
  const auto gpus = two_nodes();
  ASSERT_EQ(gpus.size(), 4u);
  EXPECT_EQ(gpus[3].slot, 3);
  EXPECT_EQ(gpus[3].host, "node1");
  EXPECT_EQ(gpus[3].local_rank, 1);
  EXPECT_EQ(gpus[3].uuid, "GPU-fixture-3");
  const nlohmann::json record = devices_record(gpus);
  EXPECT_EQ(record[2]["index"], 2);
  EXPECT_EQ(record[2]["uuid"], "GPU-fixture-2");
  EXPECT_EQ(record[2]["host"], "node1");
  EXPECT_EQ(record[2]["pci_bus_id"], "0000:10:00.0");
}

TEST(SampleDevices, AloneASlotIsTheCudaOrdinal) {
  const auto gpus = slot_gpus({{0, 0, "box", "GPU-a,GPU-b,GPU-c", "0000:19:00.0,0000:3b:00.0,"}});
  ASSERT_EQ(gpus.size(), 3u);
  EXPECT_EQ(gpus[1].slot, 1);
  EXPECT_EQ(gpus[1].uuid, "GPU-b");
  EXPECT_EQ(gpus[1].pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(gpus[2].pci_bus_id, "");
  EXPECT_TRUE(slot_gpus({{0, 0, "box", "", ""}}).empty());  // no GPU
}

TEST(SampleDevices, EachScopeRunsOnItsOwnSlots) {
  const auto gpus = two_nodes();
  EXPECT_EQ(series_slots(Scope::world, 2, gpus), (std::vector<int>{0, 1}));
  EXPECT_EQ(series_slots(Scope::world, 4, gpus), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(series_slots(Scope::intra_node, 2, gpus), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(series_slots(Scope::inter_node, 2, gpus), (std::vector<int>{0, 2}));
}

TEST(SampleDevices, TheRecordMatchesTheCaseNamesAndLeavesTheHostReferenceOut) {
  const auto record = sample_devices_record(
      {{Scope::world, 1}, {Scope::world, 2}, {Scope::inter_node, 2}}, two_nodes());
  ASSERT_EQ(record.size(), 3u);
  EXPECT_EQ(record[1]["params"]["ranks"], "2");
  EXPECT_EQ(record[1]["params"]["scope"], "");
  EXPECT_EQ(record[1]["params"]["device"], "");  // not allreduce/.../ranks:2/device:host
  EXPECT_EQ(record[1]["devices"], nlohmann::json({0, 1}));
  EXPECT_EQ(record[2]["params"]["scope"], "inter_node");
  EXPECT_EQ(record[2]["devices"], nlohmann::json({0, 2}));
  // The names the suite registers carry exactly these parameters.
  EXPECT_EQ(case_name(Collective::allreduce, "fp32", Placement::out_of_place, 1024, 2, false,
                      Scope::inter_node),
            "allreduce/allreduce/dtype:fp32/mode:out_of_place/bytes:1024/ranks:2/scope:inter_node");
}

}  // namespace
}  // namespace gpubench::allreduce
