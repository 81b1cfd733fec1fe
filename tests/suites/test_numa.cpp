// NUMA discovery from fake sysfs trees, placement decisions, and (where the host allows the
// system calls) binding a real buffer and verifying where its pages are; the measuring thread's
// pin (suites/common/pinning.hpp): the CPU chosen per GPU, the moves before each case, and a real
// move of a test thread where the host allows it.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "suites/common/numa.hpp"
#include "suites/common/pinning.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/transfer/concurrent_issue.hpp"
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

namespace gpubench::suite {
namespace {

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

std::vector<int> range(int first, int last) {
  std::vector<int> out;
  for (int c = first; c <= last; ++c) out.push_back(c);
  return out;
}

// Two sockets, 128 CPUs: GPUs 0000:17:00.0 and 0000:3b:00.0 on node 0, 0000:b1:00.0 and
// 0000:db:00.0 on node 1 (each with local_cpulist, as Linux writes it), and a GPU whose platform
// gives no node (-1, as in many VMs).
struct FakeServer {
  TempDir dir{"gpubench-test-pin"};
  FakeServer() {
    const auto root = dir.path();
    write_file(root / "devices/system/node/online", "0-1");
    write_file(root / "devices/system/node/node0/cpulist", "0-31,64-95");
    write_file(root / "devices/system/node/node1/cpulist", "32-63,96-127");
    for (const char* bus : {"0000:17:00.0", "0000:3b:00.0"}) {
      write_file(root / "bus/pci/devices" / bus / "numa_node", "0");
      write_file(root / "bus/pci/devices" / bus / "local_cpulist", "0-31,64-95");
    }
    for (const char* bus : {"0000:b1:00.0", "0000:db:00.0"}) {
      write_file(root / "bus/pci/devices" / bus / "numa_node", "1");
      write_file(root / "bus/pci/devices" / bus / "local_cpulist", "32-63,96-127");
    }
    write_file(root / "bus/pci/devices/0000:c1:00.0/numa_node", "-1");
    write_file(root / "bus/pci/devices/0000:c1:00.0/local_cpulist", "0-127");
  }
  std::string root() const { return dir.path().string(); }
};

// Affinity calls that record instead of moving the thread.
struct FakeAffinity {
  std::vector<int> mask = range(0, 127);
  std::vector<std::vector<int>> sets;  // every set call, in order
  std::string refuse;                  // non-empty: set fails with this
  AffinityCalls calls() {
    return {[this] { return mask; },
            [this](const std::vector<int>& cpus) {
              sets.push_back(cpus);
              if (!refuse.empty()) return refuse;
              mask = cpus;
              return std::string();
            }};
  }
};

TEST(Pinning, IdListsFormatAsSysfsWritesThem) {
  EXPECT_EQ(format_id_list({3, 0, 1, 2, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_id_list({5}), "5");
  EXPECT_EQ(format_id_list({}), "");
  EXPECT_EQ(parse_id_list(format_id_list(range(32, 63))), range(32, 63));
}

TEST(Pinning, ChoosesTheFirstCpuOfTheGpusNodeButCpu0) {
  FakeServer fs;
  const PinChoice a = choose_pin(fs.root(), "0000:17:00.0", range(0, 127));
  EXPECT_EQ(a.node, 0);
  EXPECT_EQ(a.cpu, 1) << a.reason;  // CPU 0 takes the host's unbound work
  const PinChoice b = choose_pin(fs.root(), "0000:B1:00.0", range(0, 127));  // CUDA's upper case
  EXPECT_EQ(b.node, 1);
  EXPECT_EQ(b.cpu, 32);
  // Only CPU 0 allowed on the node: CPU 0 rather than unpinned.
  EXPECT_EQ(choose_pin(fs.root(), "0000:17:00.0", {0, 40}).cpu, 0);
  // The allowed set decides, not the node's first CPU.
  EXPECT_EQ(choose_pin(fs.root(), "0000:b1:00.0", {5, 70, 100, 101}).cpu, 100);
}

// Sub-NUMA clustering or a platform that reports the device's own CPUs: local_cpulist wins over
// the node's list; the node's list is the fallback when local_cpulist is missing.
TEST(Pinning, LocalCpulistWinsAndTheNodeListIsTheFallback) {
  FakeServer fs;
  const auto dev = fs.dir.path() / "bus/pci/devices/0000:3b:00.0";
  write_file(dev / "local_cpulist", "16-31");
  EXPECT_EQ(choose_pin(fs.root(), "0000:3b:00.0", range(0, 127)).cpu, 16);
  std::filesystem::remove(dev / "local_cpulist");
  EXPECT_EQ(choose_pin(fs.root(), "0000:3b:00.0", range(0, 127)).cpu, 1);
}

TEST(Pinning, NoNumaNodeNoSysfsOrNoAllowedCpuLeavesTheThreadUnpinnedWithTheReason) {
  FakeServer fs;
  const PinChoice vm = choose_pin(fs.root(), "0000:c1:00.0", range(0, 127));
  EXPECT_FALSE(vm.cpu);
  EXPECT_FALSE(vm.node);
  EXPECT_NE(vm.reason.find("no NUMA node for the GPU"), std::string::npos) << vm.reason;
  EXPECT_NE(vm.reason.find("is -1"), std::string::npos) << vm.reason;

  TempDir empty("gpubench-test-pin-nosysfs");
  const PinChoice none = choose_pin(empty.path().string(), "0000:17:00.0", range(0, 127));
  EXPECT_FALSE(none.cpu);
  EXPECT_NE(none.reason.find("not readable"), std::string::npos) << none.reason;

  // A cpuset (container, taskset) that holds none of the GPU's node's CPUs.
  const PinChoice outside = choose_pin(fs.root(), "0000:17:00.0", {32, 33, 34, 35});
  EXPECT_FALSE(outside.cpu);
  EXPECT_EQ(outside.node, 0);
  EXPECT_EQ(outside.reason,
            "none of the CPUs of the GPU's NUMA node 0 (0-31,64-95) is allowed to this process "
            "(allowed: 32-35)");

  // A node that lists no CPU at all (memory-only node).
  write_file(fs.dir.path() / "bus/pci/devices/0000:e1:00.0/numa_node", "2");
  const PinChoice memory_only = choose_pin(fs.root(), "0000:e1:00.0", range(0, 127));
  EXPECT_FALSE(memory_only.cpu);
  EXPECT_NE(memory_only.reason.find("lists no CPUs"), std::string::npos) << memory_only.reason;
}

TEST(Pinning, DeviceOfACaseComesFromItsName) {
  EXPECT_EQ(device_of_case("launch/kernel_chain/kernels:100/sched:spin/device:3"), 3);
  EXPECT_EQ(device_of_case("transfer/x/dir:p2p/src:1/dst:0/bytes:268435456/device:1"), 1);
  EXPECT_EQ(device_of_case("gemm/bf16/m:1024/device:12/cold"), 12);
  EXPECT_FALSE(device_of_case("memory/host_triad/array_bytes:1048576/threads:4"));
  EXPECT_FALSE(device_of_case("fusion/bias_gelu/v2/tokens:64/threads:4/device:host"));
  EXPECT_FALSE(device_of_case("x/device:"));
  EXPECT_FALSE(device_of_case("x/device:a1"));
}

// CUDA_VISIBLE_DEVICES=2,3 on the fake server: ordinal 0 is the third GPU (0000:b1:00.0, node 1).
// The pin follows the bus id CUDA reports for the ordinal, not the machine's GPU 0.
TEST(Pinning, OrdinalsUnderACudaVisibleDevicesSubsetPinToTheirOwnGpusNode) {
  FakeServer fs;
  FakeAffinity affinity;
  const std::vector<std::string> visible = {"0000:B1:00.0", "0000:DB:00.0"};
  const DevicePinning pinning(
      {0, 1},
      [&](int d) {
        return BusId{visible.at(static_cast<std::size_t>(d)), ""};
      },
      fs.root(), affinity.calls());
  ASSERT_NE(pinning.choice(0), nullptr);
  EXPECT_EQ(pinning.choice(0)->node, 1);
  EXPECT_EQ(pinning.choice(0)->cpu, 32);
  EXPECT_EQ(pinning.choice(1)->cpu, 32);
  EXPECT_EQ(pinning.choice(2), nullptr);
  const auto ctx = nlohmann::json::parse(pinning.context_json());
  ASSERT_EQ(ctx.size(), 2u);
  EXPECT_EQ(ctx[0]["index"], 0);
  EXPECT_EQ(ctx[0]["pci_bus_id"], "0000:B1:00.0");
  EXPECT_EQ(ctx[0]["numa_node"], 1);
  EXPECT_EQ(ctx[0]["cpu"], 32);
  EXPECT_FALSE(ctx[0].contains("reason"));
  // The constructor tried each move and went back to the whole mask.
  EXPECT_EQ(affinity.mask, range(0, 127));
}

TEST(Pinning, MovesBeforeEachCaseAndGivesHostCasesTheirCpusBack) {
  FakeServer fs;
  FakeAffinity affinity;
  const std::vector<std::string> bus = {"0000:17:00.0", "0000:c1:00.0", "0000:b1:00.0"};
  DevicePinning pinning(
      {0, 1, 2},
      [&](int d) {
        return BusId{bus.at(static_cast<std::size_t>(d)), ""};
      },
      fs.root(), affinity.calls());
  affinity.sets.clear();
  pinning.before_case(0);
  EXPECT_EQ(affinity.mask, std::vector<int>{1});
  pinning.before_case(0);  // already there: no system call
  EXPECT_EQ(affinity.sets.size(), 1u);
  pinning.before_case(2);
  EXPECT_EQ(affinity.mask, std::vector<int>{32});
  // Device 1 has no node: not left on another GPU's CPU.
  pinning.before_case(1);
  EXPECT_EQ(affinity.mask, range(0, 127));
  pinning.before_case(0);
  pinning.before_case(std::nullopt);  // a host case: its thread pool sees every CPU
  EXPECT_EQ(affinity.mask, range(0, 127));
  EXPECT_EQ(pinning.label(0), "pinned to CPU 1 (NUMA node 0 of the GPU)");
  EXPECT_EQ(pinning.label(1).rfind("not pinned: no NUMA node for the GPU", 0), 0u)
      << pinning.label(1);
  const auto ctx = nlohmann::json::parse(pinning.context_json());
  EXPECT_TRUE(ctx[1]["cpu"].is_null());
  EXPECT_TRUE(ctx[1]["numa_node"].is_null());
  EXPECT_NE(ctx[1]["reason"].get<std::string>().find("no NUMA node"), std::string::npos);
}

TEST(Pinning, ARefusedMoveIsRecordedAndTheThreadCarriesOnUnpinned) {
  FakeServer fs;
  FakeAffinity affinity;
  affinity.refuse = "sched_setaffinity: Operation not permitted";
  DevicePinning refused(
      {0},
      [](int) {
        return BusId{"0000:17:00.0", ""};
      },
      fs.root(), affinity.calls());
  EXPECT_FALSE(refused.choice(0)->cpu);
  EXPECT_EQ(refused.choice(0)->reason,
            "cannot pin the thread to CPU 1: sched_setaffinity: Operation not permitted");
  EXPECT_EQ(refused.label(0).rfind("not pinned: cannot pin", 0), 0u) << refused.label(0);

  // Allowed at start, refused at the case (a cpuset changed under the process).
  FakeAffinity later;
  DevicePinning pinning(
      {0},
      [](int) {
        return BusId{"0000:17:00.0", ""};
      },
      fs.root(), later.calls());
  later.refuse = "sched_setaffinity: Invalid argument";
  pinning.before_case(0);
  EXPECT_EQ(later.mask, range(0, 127));
  EXPECT_EQ(pinning.label(0),
            "not pinned: moving the thread failed (sched_setaffinity: Invalid argument)");

  // No bus id (no CUDA device): the reason says why.
  DevicePinning no_gpu(
      {0},
      [](int) {
        return BusId{"", "no CUDA device (cudaGetDeviceCount)"};
      },
      fs.root(), affinity.calls());
  EXPECT_EQ(no_gpu.choice(0)->reason,
            "the GPU's PCI bus id is unknown (no CUDA device (cudaGetDeviceCount))");
}

// The hook register_timed runs before every case body: installed, it moves the thread by the
// device in the case's name.
TEST(Pinning, TheBeforeEachCaseHookRunsBeforeTheBodyAndPinsByTheCaseName) {
  std::vector<std::string> seen;
  set_before_each_case([&](const std::string& name) { seen.push_back("hook " + name); });
  auto body = with_before_each_case(
      "x/device:0", [&](int& state) { seen.push_back("body " + std::to_string(state)); });
  int state = 7;
  body(state);
  EXPECT_EQ(seen, (std::vector<std::string>{"hook x/device:0", "body 7"}));

  FakeServer fs;
  FakeAffinity affinity;
  install_device_pinning(std::make_unique<DevicePinning>(
      std::vector<int>{0},
      [](int) {
        return BusId{"0000:b1:00.0", ""};
      },
      fs.root(), affinity.calls()));
  ASSERT_NE(device_pinning(), nullptr);
  run_before_each_case("launch/stream_synchronize/sched:spin/device:0");
  EXPECT_EQ(affinity.mask, std::vector<int>{32});
  run_before_each_case("memory/host_triad/array_bytes:1048576/threads:4");
  EXPECT_EQ(affinity.mask, range(0, 127));
  // A helper thread a case starts (transfer's second issuing thread) is not left on the one CPU.
  run_before_each_case("transfer/x/dir:p2p/src:0/dst:1/bytes:268435456/device:0");
  EXPECT_EQ(affinity.mask, std::vector<int>{32});
  release_thread_pin();
  EXPECT_EQ(affinity.mask, range(0, 127));
  install_device_pinning(nullptr);
  EXPECT_EQ(device_pinning(), nullptr);
  run_before_each_case("launch/stream_synchronize/sched:spin/device:0");  // no hook: nothing
  EXPECT_EQ(affinity.mask, range(0, 127));
}

// On the real host, in a thread of its own: the GPU's node holds every CPU this process may use;
// the thread moves to the chosen one before a device case and back for a host case.
TEST(Pinning, MovesARealThreadWhenTheHostAllowsIt) {
  const std::vector<int> allowed = thread_cpus();
  if (allowed.empty()) GTEST_SKIP() << "sched_getaffinity says nothing here";
  TempDir dir("gpubench-test-pin-real");
  write_file(dir.path() / "bus/pci/devices/0000:17:00.0/numa_node", "0");
  write_file(dir.path() / "bus/pci/devices/0000:17:00.0/local_cpulist", format_id_list(allowed));
  std::string skip;
  std::thread t([&] {
    DevicePinning pinning(
        {0},
        [](int) {
          return BusId{"0000:17:00.0", ""};
        },
        dir.path().string());
    const PinChoice* p = pinning.choice(0);
    if (!p->cpu) {
      skip = p->reason;
      return;
    }
    EXPECT_EQ(thread_cpus(), allowed);
    pinning.before_case(0);
    EXPECT_EQ(thread_cpus(), std::vector<int>{*p->cpu});
    if (allowed.size() > 1) {
      EXPECT_NE(*p->cpu, 0);
      // transfer's ScopedAffinity over the whole node leaves a thread already on one of its CPUs.
      const ScopedAffinity node(allowed);
      EXPECT_FALSE(node.applied());
      EXPECT_EQ(thread_cpus(), std::vector<int>{*p->cpu});
    }
    pinning.before_case(std::nullopt);
    EXPECT_EQ(thread_cpus(), allowed);
  });
  t.join();
  if (!skip.empty()) GTEST_SKIP() << skip;
}

// transfer's staged bidirectional peer cases issue the second direction from a helper thread
// (concurrent_issue.hpp): pinned, the case's thread must not hand its one CPU down to it.
TEST(Pinning, TheSecondIssuingThreadOfAPinnedCaseGetsEveryAllowedCpu) {
  const std::vector<int> allowed = thread_cpus();
  if (allowed.size() < 2) GTEST_SKIP() << "needs two allowed CPUs";
  TempDir dir("gpubench-test-pin-helper");
  write_file(dir.path() / "bus/pci/devices/0000:17:00.0/numa_node", "0");
  write_file(dir.path() / "bus/pci/devices/0000:17:00.0/local_cpulist", format_id_list(allowed));
  std::vector<int> first, second;
  std::string skip;
  std::thread t([&] {
    install_device_pinning(std::make_unique<DevicePinning>(
        std::vector<int>{0},
        [](int) {
          return BusId{"0000:17:00.0", ""};
        },
        dir.path().string()));
    if (!device_pinning()->choice(0)->cpu) {
      skip = device_pinning()->choice(0)->reason;
    } else {
      run_before_each_case("transfer/x/dir:p2p/src:0/dst:1/bytes:268435456/device:0");
      (void)transfer::time_concurrently([&] { first = thread_cpus(); },
                                        [&] { second = thread_cpus(); });
      run_before_each_case("host case");
    }
    install_device_pinning(nullptr);
  });
  t.join();
  if (!skip.empty()) GTEST_SKIP() << skip;
  EXPECT_EQ(first.size(), 1u);
  EXPECT_EQ(second, allowed);
}

// transfer's numa:remote cases: ScopedAffinity moves a pinned thread to another node's CPUs for
// the case and back.
TEST(Pinning, ScopedAffinityMovesAThreadOutsideItsCpusAndBack) {
  const std::vector<int> allowed = thread_cpus();
  if (allowed.size() < 2) GTEST_SKIP() << "needs two allowed CPUs";
  std::thread t([&] {
    if (!set_thread_cpus({allowed[0]}).empty()) return;
    {
      const ScopedAffinity other(std::vector<int>{allowed[1]});
      EXPECT_TRUE(other.applied());
      EXPECT_EQ(thread_cpus(), std::vector<int>{allowed[1]});
    }
    EXPECT_EQ(thread_cpus(), std::vector<int>{allowed[0]});
  });
  t.join();
}

}  // namespace
}  // namespace gpubench::suite
