// NUMA discovery from fake sysfs trees, placement decisions, and (where the host allows the
// system calls) binding a real buffer and verifying where its pages are.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "suites/transfer/numa.hpp"
#include "util/fs.hpp"

namespace gpubench::transfer {
namespace {

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

// A two-socket host: GPU 0000:17:00.0 on node 0, GPU 0000:b1:00.0 on node 1, a NIC without NUMA.
struct FakeSysfs {
  TempDir dir{"gpubench-test-numa"};
  FakeSysfs() {
    const auto root = dir.path();
    write(root / "devices/system/node/online", "0-1");
    write(root / "devices/system/node/has_memory", "0-1");
    write(root / "devices/system/node/node0/cpulist", "0-31,64-95");
    write(root / "devices/system/node/node1/cpulist", "32-63,96-127");
    write(root / "bus/pci/devices/0000:17:00.0/numa_node", "0");
    write(root / "bus/pci/devices/0000:b1:00.0/numa_node", "1");
    write(root / "bus/pci/devices/0000:c1:00.0/numa_node", "-1");
  }
  std::string root() const { return dir.path().string(); }
};

TEST(Numa, ParsesIdLists) {
  EXPECT_EQ(parse_id_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_id_list("0"), (std::vector<int>{0}));
  EXPECT_EQ(parse_id_list(""), (std::vector<int>{}));
  EXPECT_FALSE(parse_id_list("3-1"));
  EXPECT_FALSE(parse_id_list("a"));
  EXPECT_FALSE(parse_id_list("1-"));
}

TEST(Numa, DiscoversTheGpuNodeFromItsPciBusId) {
  FakeSysfs fs;
  EXPECT_EQ(read_gpu_node(fs.root(), "0000:17:00.0").node, 0);
  EXPECT_EQ(read_gpu_node(fs.root(), "0000:B1:00.0").node, 1);      // CUDA prints upper case
  EXPECT_EQ(read_gpu_node(fs.root(), "00000000:B1:00.0").node, 1);  // NVML's 8-digit domain
  const GpuNode none = read_gpu_node(fs.root(), "0000:c1:00.0");
  EXPECT_FALSE(none.node);
  EXPECT_NE(none.reason.find("no NUMA node"), std::string::npos);
  const GpuNode missing = read_gpu_node(fs.root(), "0000:99:00.0");
  EXPECT_FALSE(missing.node);
  EXPECT_NE(missing.reason.find("not readable"), std::string::npos);
  EXPECT_FALSE(read_gpu_node(fs.root(), "unknown").node);
}

TEST(Numa, ReadsTopologyAndNodeCpus) {
  FakeSysfs fs;
  EXPECT_EQ(read_numa_topology(fs.root()).nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(read_node_cpus(fs.root(), 1).size(), 64u);
  EXPECT_EQ(read_node_cpus(fs.root(), 1).front(), 32);
  EXPECT_TRUE(read_node_cpus(fs.root(), 7).empty());
  TempDir empty("gpubench-test-numa-none");
  const NumaTopology none = read_numa_topology(empty.path().string());
  EXPECT_TRUE(none.nodes.empty());
  EXPECT_NE(none.reason.find("no NUMA information"), std::string::npos);
}

TEST(Numa, PlacementBindsLocalAndRemoteOnATwoNodeHost) {
  FakeSysfs fs;
  const NumaTopology topo = read_numa_topology(fs.root());
  const GpuNode gpu1 = read_gpu_node(fs.root(), "0000:b1:00.0");
  const Placement local = plan_placement(Numa::local, gpu1, topo);
  EXPECT_EQ(local.bind_node, 1);
  EXPECT_TRUE(local.skip_reason.empty());
  EXPECT_NE(local.label.find("node 1 (local"), std::string::npos);
  const Placement remote = plan_placement(Numa::remote, gpu1, topo);
  EXPECT_EQ(remote.bind_node, 0);
  EXPECT_NE(remote.label.find("remote; GPU on node 1"), std::string::npos);
}

TEST(Numa, OneNodeHostSkipsRemoteWithTheReason) {
  TempDir dir("gpubench-test-numa-one");
  write(dir.path() / "devices/system/node/online", "0");
  write(dir.path() / "bus/pci/devices/0000:17:00.0/numa_node", "0");
  const NumaTopology topo = read_numa_topology(dir.path().string());
  const GpuNode gpu = read_gpu_node(dir.path().string(), "0000:17:00.0");
  const Placement remote = plan_placement(Numa::remote, gpu, topo);
  EXPECT_FALSE(remote.bind_node);
  EXPECT_EQ(remote.skip_reason, "no remote NUMA node: the host has one node with memory (node 0)");
  EXPECT_TRUE(plan_placement(Numa::local, gpu, topo).skip_reason.empty());
}

TEST(Numa, GpuWithoutNumaInformationIsMeasuredAndLabelledSo) {
  FakeSysfs fs;
  const NumaTopology topo = read_numa_topology(fs.root());
  const GpuNode nic = read_gpu_node(fs.root(), "0000:c1:00.0");
  const Placement local = plan_placement(Numa::local, nic, topo);
  EXPECT_TRUE(local.skip_reason.empty());
  EXPECT_FALSE(local.bind_node);
  EXPECT_NE(local.label.find("numa unknown"), std::string::npos);
  EXPECT_NE(local.label.find("not bound"), std::string::npos);
  // Remote needs to know which node is local.
  EXPECT_FALSE(plan_placement(Numa::remote, nic, topo).skip_reason.empty());
  // A host without NUMA at all: measured, labelled.
  const Placement flat =
      plan_placement(Numa::local, GpuNode{0, ""}, NumaTopology{{}, "none", {}, {}});
  EXPECT_FALSE(flat.bind_node);
  EXPECT_NE(flat.label.find("host without NUMA"), std::string::npos);
}

// GH200-like: node 0 has the Grace CPUs and LPDDR, node 1 is the GPU's HBM (memory, no CPUs).
// The first other node with memory would be the GPU's own memory; remote must be skipped.
TEST(Numa, NodeWithMemoryButNoCpusIsNeverTheRemoteNode) {
  TempDir dir("gpubench-test-numa-gh200");
  const auto root = dir.path();
  write(root / "devices/system/node/online", "0-1");
  write(root / "devices/system/node/has_memory", "0-1");
  write(root / "devices/system/node/has_cpu", "0");
  write(root / "devices/system/node/node0/cpulist", "0-71");
  write(root / "devices/system/node/node1/cpulist", "");
  write(root / "bus/pci/devices/0009:01:00.0/numa_node", "0");
  const NumaTopology topo = read_numa_topology(root.string());
  EXPECT_EQ(topo.cpu_nodes, (std::vector<int>{0}));
  const Placement remote =
      plan_placement(Numa::remote, read_gpu_node(root.string(), "0009:01:00.0"), topo);
  EXPECT_FALSE(remote.bind_node);
  EXPECT_NE(remote.skip_reason.find("no remote NUMA node with CPUs"), std::string::npos)
      << remote.skip_reason;
}

// Two sockets with sub-NUMA clustering: nodes 0-1 on socket 0 (distance 12 between them), 2-3 on
// socket 1 (21 away). Remote for a GPU on node 0 is the other socket, not its sibling cluster.
TEST(Numa, RemoteIsTheFarthestNodeWithCpusByDistance) {
  TempDir dir("gpubench-test-numa-snc");
  const auto root = dir.path();
  write(root / "devices/system/node/online", "0-3");
  write(root / "devices/system/node/has_memory", "0-3");
  const char* rows[] = {"10 12 21 21", "12 10 21 21", "21 21 10 12", "21 21 12 10"};
  for (int n = 0; n < 4; ++n) {
    const auto node = root / ("devices/system/node/node" + std::to_string(n));
    write(node / "cpulist", std::to_string(n * 16) + "-" + std::to_string(n * 16 + 15));
    write(node / "distance", rows[n]);
  }
  write(root / "bus/pci/devices/0000:17:00.0/numa_node", "0");
  write(root / "bus/pci/devices/0000:b1:00.0/numa_node", "3");
  const NumaTopology topo = read_numa_topology(root.string());
  EXPECT_EQ(topo.cpu_nodes, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(topo.distance.at({0, 2}), 21);
  const Placement from0 =
      plan_placement(Numa::remote, read_gpu_node(root.string(), "0000:17:00.0"), topo);
  EXPECT_EQ(from0.bind_node, 2);
  EXPECT_NE(from0.label.find("distance 21"), std::string::npos) << from0.label;
  const Placement from3 =
      plan_placement(Numa::remote, read_gpu_node(root.string(), "0000:b1:00.0"), topo);
  EXPECT_EQ(from3.bind_node, 0);
}

// On the real host: bind a buffer to the first node with memory and verify where its pages are.
// Containers often forbid mbind/move_pages; then the test says so and skips.
TEST(Numa, BindsAndVerifiesARealBufferWhenTheHostAllowsIt) {
  const NumaTopology topo = read_numa_topology("/sys");
  if (topo.nodes.empty()) GTEST_SKIP() << topo.reason;
  const int node = topo.nodes.front();
  const std::size_t bytes = 4 << 20;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const std::string error = bind_range(p, bytes, node);
  if (!error.empty()) {
    munmap(p, bytes);
    GTEST_SKIP() << "the host refuses mbind: " << error;
  }
  std::memset(p, 1, bytes);
  if (!node_of_page(p)) {
    munmap(p, bytes);
    GTEST_SKIP() << "the host refuses move_pages, so placement cannot be verified here";
  }
  EXPECT_EQ(verify_placement(p, bytes, node), "");
  if (topo.nodes.size() > 1) {
    EXPECT_NE(verify_placement(p, bytes, topo.nodes[1]), "");
  }
  munmap(p, bytes);
}

// A page the kernel cannot locate (here: never touched, so not allocated) is reported with the
// kernel's reason for that page, not with errno of the move_pages call that succeeded ("Success").
TEST(Numa, AnUnlocatablePageIsReportedWithTheKernelsReason) {
  const std::size_t bytes = 4096;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  errno = 0;
  const std::optional<int> node = node_of_page(p);
  if (node || errno == ENOSYS || errno == EPERM) {
    munmap(p, bytes);
    GTEST_SKIP() << "move_pages here " << (node ? "locates untouched pages" : "is refused");
  }
  EXPECT_EQ(errno, ENOENT);
  const std::string problem = verify_placement(p, bytes, 0);
  EXPECT_NE(problem.find(std::strerror(ENOENT)), std::string::npos) << problem;
  EXPECT_EQ(problem.find("Success"), std::string::npos) << problem;
  munmap(p, bytes);
}

}  // namespace
}  // namespace gpubench::transfer
