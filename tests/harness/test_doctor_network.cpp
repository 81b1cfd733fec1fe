// The doctor's multi-node network checks (network.ib_ports, network.gpudirect_rdma,
// topology.pcie_acs) read from FIXTURE sysfs/procfs trees written into a temp directory: the files
// and their contents follow what the Linux RDMA core, the NVIDIA driver and PCI sysfs write, the
// values are made up. No RDMA hardware is needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/doctor/doctor.hpp"
#include "util/fs.hpp"

namespace gpubench::harness {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// A FIXTURE root with RDMA ports: {device, port, state, phys_state, rate, link_layer}.
struct PortSpec {
  std::string device, port, state, phys_state, rate, layer;
};
void add_port(const fs::path& root, const PortSpec& s) {
  const fs::path dir = root / "sys/class/infiniband" / s.device / "ports" / s.port;
  write(dir / "state", s.state + "\n");
  write(dir / "phys_state", s.phys_state + "\n");
  write(dir / "rate", s.rate + "\n");
  write(dir / "link_layer", s.layer + "\n");
}

const PortSpec k_ndr_up{"mlx5_0",    "1", "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)",
                        "InfiniBand"};

TEST(DoctorNetwork, ParsesSysfsWordsAndRates) {
  EXPECT_EQ(sysfs_state_word("4: ACTIVE"), "ACTIVE");
  EXPECT_EQ(sysfs_state_word("5: LinkUp"), "LinkUp");
  EXPECT_EQ(parse_ib_rate_gbps("400 Gb/sec (4X NDR)"), 400.0);
  EXPECT_EQ(parse_ib_rate_gbps("200 Gb/sec (2X HDR)"), 200.0);
  EXPECT_FALSE(parse_ib_rate_gbps("invalid").has_value());
  EXPECT_FALSE(parse_ib_rate_gbps("").has_value());
}

TEST(DoctorNetwork, NoRdmaDevicesIsNotApplicable) {
  TempDir root("gpubench-test-net");
  const RdmaFacts none = probe_rdma(root.path());
  EXPECT_FALSE(none.sysfs_readable);
  for (const DoctorCheck& c : {check_ib_ports(none), check_gpudirect_rdma(none, GdrFacts{})}) {
    EXPECT_EQ(c.status, CheckStatus::pass) << c.name;
    EXPECT_EQ(c.value, "not applicable: no RDMA devices") << c.name;
    EXPECT_EQ(c.area, std::string(k_area_network));
  }
  fs::create_directories(root.path() / "sys/class/infiniband");  // RDMA core, no device
  EXPECT_EQ(check_ib_ports(probe_rdma(root.path())).value, "not applicable: no RDMA devices");
}

TEST(DoctorNetwork, AllPortsActiveAtOneRatePass) {
  TempDir root("gpubench-test-net");
  for (int i = 0; i < 4; ++i) {
    PortSpec p = k_ndr_up;
    p.device = "mlx5_" + std::to_string(i);
    add_port(root.path(), p);
  }
  const RdmaFacts f = probe_rdma(root.path());
  ASSERT_EQ(f.ports.size(), 4u);
  EXPECT_EQ(f.ports[0].device, "mlx5_0");
  EXPECT_EQ(f.ports[0].state, "4: ACTIVE");
  const DoctorCheck c = check_ib_ports(f);
  EXPECT_EQ(c.status, CheckStatus::pass) << c.value;
  EXPECT_EQ(c.value, "4 of 4 ports active (4 x 400 Gb/s InfiniBand)");
}

TEST(DoctorNetwork, APortDownWhereOthersAreActiveFails) {
  TempDir root("gpubench-test-net");
  add_port(root.path(), k_ndr_up);
  add_port(root.path(),
           {"mlx5_1", "1", "1: DOWN", "3: Disabled", "10 Gb/sec (4X SDR)", "InfiniBand"});
  // INIT: the link is up but no subnet manager configured the port; not usable either.
  add_port(root.path(),
           {"mlx5_2", "1", "2: INIT", "5: LinkUp", "400 Gb/sec (4X NDR)", "InfiniBand"});
  const DoctorCheck c = check_ib_ports(probe_rdma(root.path()));
  EXPECT_EQ(c.status, CheckStatus::fail) << c.value;
  EXPECT_TRUE(contains(c.value, "1 of 3 ports active")) << c.value;
  EXPECT_TRUE(contains(c.value, "not active: mlx5_1/1 DOWN/Disabled, mlx5_2/1 INIT/LinkUp"))
      << c.value;
  EXPECT_FALSE(c.fix.empty());
}

TEST(DoctorNetwork, NoPortActiveWarnsMixedRatesWarnRoceIsNamed) {
  TempDir down("gpubench-test-net");
  add_port(down.path(),
           {"mlx5_0", "1", "1: DOWN", "2: Polling", "10 Gb/sec (4X SDR)", "InfiniBand"});
  const DoctorCheck none = check_ib_ports(probe_rdma(down.path()));
  EXPECT_EQ(none.status, CheckStatus::warn) << none.value;
  EXPECT_TRUE(contains(none.value, "TCP sockets")) << none.value;

  TempDir mixed("gpubench-test-net");
  add_port(mixed.path(), k_ndr_up);
  add_port(mixed.path(),
           {"mlx5_1", "1", "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)", "InfiniBand"});
  const DoctorCheck m = check_ib_ports(probe_rdma(mixed.path()));
  EXPECT_EQ(m.status, CheckStatus::warn) << m.value;
  EXPECT_TRUE(contains(m.value, "1 x 200 Gb/s InfiniBand, 1 x 400 Gb/s InfiniBand")) << m.value;

  // Different link layers at different rates (a 400G IB fabric and a 200G RoCE storage NIC) are
  // not a mixed-rate problem: each layer is judged on its own.
  TempDir layers("gpubench-test-net");
  add_port(layers.path(), k_ndr_up);
  add_port(layers.path(),
           {"mlx5_1", "1", "4: ACTIVE", "5: LinkUp", "200 Gb/sec (4X HDR)", "Ethernet"});
  const DoctorCheck l = check_ib_ports(probe_rdma(layers.path()));
  EXPECT_EQ(l.status, CheckStatus::pass) << l.value;
  EXPECT_TRUE(contains(l.value, "1 x 200 Gb/s RoCE")) << l.value;
}

TEST(DoctorNetwork, ParsesTheDriverVersionFile) {
  const auto open = parse_nvidia_proc_version(
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build  "
      "(dvs-builder@U16)  Fri Aug 16 21:42:42 UTC 2024\nGCC version:  gcc version 12.3.0\n");
  EXPECT_EQ(open.first, true);
  EXPECT_EQ(open.second, "560.35.03");
  const auto proprietary = parse_nvidia_proc_version(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n");
  EXPECT_EQ(proprietary.first, false);
  EXPECT_EQ(proprietary.second, "535.104.05");
  EXPECT_FALSE(parse_nvidia_proc_version("garbage").first.has_value());
}

class GdrTree : public ::testing::Test {
 protected:
  void SetUp() override {
    add_port(m_root.path(), k_ndr_up);
    unsetenv("NCCL_DMABUF_ENABLE");
  }
  void kernel(const std::string& release) {
    write(m_root.path() / "proc/sys/kernel/osrelease", release + "\n");
  }
  void driver(bool open) {
    write(m_root.path() / "proc/driver/nvidia/version",
          open ? "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release "
                 "Build\n"
               : "NVRM version: NVIDIA UNIX x86_64 Kernel Module  560.35.03  Release Build\n");
  }
  DoctorCheck check() {
    return check_gpudirect_rdma(probe_rdma(m_root.path()), probe_gdr(m_root.path()));
  }
  TempDir m_root{"gpubench-test-gdr"};
};

TEST_F(GdrTree, PeerMemoryModulePasses) {
  write(m_root.path() / "sys/module/nvidia_peermem/version", "560.35.03\n");
  const DoctorCheck c = check();
  EXPECT_EQ(c.status, CheckStatus::pass) << c.value;
  EXPECT_EQ(c.value, "peer memory: /sys/module/nvidia_peermem/version (560.35.03)");
}

TEST_F(GdrTree, DmaBufOnANewKernelWithTheOpenModulePasses) {
  kernel("6.8.0-45-generic");
  driver(true);
  const DoctorCheck c = check();
  EXPECT_EQ(c.status, CheckStatus::pass) << c.value;
  EXPECT_TRUE(contains(c.value, "DMA-BUF: kernel 6.8.0-45-generic, open kernel module 560.35.03"))
      << c.value;
  setenv("NCCL_DMABUF_ENABLE", "0", 1);
  const DoctorCheck off = check();
  unsetenv("NCCL_DMABUF_ENABLE");
  EXPECT_EQ(off.status, CheckStatus::warn) << off.value;
  EXPECT_TRUE(contains(off.value, "NCCL_DMABUF_ENABLE=0")) << off.value;
}

TEST_F(GdrTree, NoModuleAndNoDmaBufWarnsNamingWhy) {
  kernel("5.4.0-150-generic");
  driver(false);
  const DoctorCheck c = check();
  EXPECT_EQ(c.status, CheckStatus::warn) << c.value;
  EXPECT_TRUE(contains(c.value, "kernel 5.4.0-150-generic is older than 5.12")) << c.value;
  EXPECT_TRUE(contains(c.value, "proprietary NVIDIA kernel module 560.35.03")) << c.value;
  EXPECT_TRUE(contains(c.fix, "modprobe nvidia_peermem")) << c.fix;
}

TEST_F(GdrTree, NothingReadableIsUnknown) {
  const DoctorCheck c = check();
  EXPECT_EQ(c.status, CheckStatus::unknown) << c.value;
  EXPECT_EQ(c.value.rfind("unknown: ", 0), 0u) << c.value;
}

// A config-space image (4096 bytes, as root reads it) with an AER capability at 0x100 and the
// ACS capability (ID 0x000D) at 0x148 holding `control`.
std::string config_with_acs(uint16_t control) {
  std::string b(4096, '\0');
  auto put32 = [&](std::size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>(v >> (8 * i) & 0xff);
  };
  put32(0x100, 0x0001u | 1u << 16 | 0x148u << 20);  // AER, version 1, next 0x148
  put32(0x148, 0x000Du | 1u << 16);                 // ACS, version 1, last
  b[0x148 + 6] = static_cast<char>(control & 0xff);
  b[0x148 + 7] = static_cast<char>(control >> 8);
  return b;
}

TEST(DoctorNetwork, ReadsTheAcsControlWord) {
  bool readable = false;
  EXPECT_EQ(acs_control(config_with_acs(0x001D), &readable), 0x001D);
  EXPECT_TRUE(readable);
  EXPECT_FALSE(acs_control(std::string(256, '\0'), &readable).has_value());
  EXPECT_FALSE(readable) << "256 bytes: not root, no extended space";
  std::string no_acs(4096, '\0');
  no_acs[0x100] = 0x01;  // AER, next 0: the list ends without ACS
  EXPECT_FALSE(acs_control(no_acs, &readable).has_value());
  EXPECT_TRUE(readable);
}

// FIXTURE PCI tree: host bridge pci0000:15, root port 15:01.0, switch upstream 16:00.0,
// downstream ports 17:00.0 (GPU 18:00.0 below) and 17:01.0 (NIC 19:00.0, mlx5_0, below).
class AcsTree : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path host = m_root.path() / "sys/devices/pci0000:15";
    const fs::path up = host / "0000:15:01.0" / "0000:16:00.0";
    m_gpu_port = up / "0000:17:00.0";
    m_nic_port = up / "0000:17:01.0";
    fs::create_directories(m_gpu_port / "0000:18:00.0");
    fs::create_directories(m_nic_port / "0000:19:00.0");
    write(host / "0000:15:01.0/config", config_with_acs(0x001D));  // root port: not judged
    write(up / "config", config_with_acs(0x0000));
    const fs::path devices = m_root.path() / "sys/bus/pci/devices";
    fs::create_directories(devices);
    fs::create_directory_symlink(m_gpu_port / "0000:18:00.0", devices / "0000:18:00.0");
    fs::create_directories(m_root.path() / "sys/class/infiniband/mlx5_0");
    fs::create_directory_symlink(m_nic_port / "0000:19:00.0",
                                 m_root.path() / "sys/class/infiniband/mlx5_0/device");
  }
  AcsFacts probe() { return probe_acs({"00000000:18:00.0"}, m_root.path()); }
  TempDir m_root{"gpubench-test-acs"};
  fs::path m_gpu_port, m_nic_port;
};

TEST_F(AcsTree, RedirectOnASwitchPortWarnsNamingIt) {
  write(m_gpu_port / "config", config_with_acs(0x001D));  // SV, request + completion redirect, UF
  write(m_nic_port / "config", config_with_acs(0x0000));
  const AcsFacts f = probe();
  ASSERT_EQ(f.bridges.size(), 3u);  // 16:00.0, 17:00.0, 17:01.0; never the root port
  const DoctorCheck c = check_pcie_acs(f);
  EXPECT_EQ(c.status, CheckStatus::warn) << c.value;
  EXPECT_EQ(c.value, "ACS redirect on 0000:17:00.0 (above GPU 0000:18:00.0)");
}

TEST_F(AcsTree, NoRedirectPassesAndUnreadableConfigIsUnknown) {
  write(m_gpu_port / "config", config_with_acs(0x0001));  // source validation only
  write(m_nic_port / "config", config_with_acs(0x0000));
  const DoctorCheck c = check_pcie_acs(probe());
  EXPECT_EQ(c.status, CheckStatus::pass) << c.value;
  EXPECT_EQ(c.value, "no redirect on 3 switch ports");

  // Not root: sysfs gives the first 64 bytes of config space only.
  for (const fs::path& p : {m_gpu_port, m_nic_port, m_gpu_port.parent_path()}) {
    write(p / "config", std::string(64, '\0'));
  }
  const DoctorCheck u = check_pcie_acs(probe());
  EXPECT_EQ(u.status, CheckStatus::unknown) << u.value;
  EXPECT_TRUE(contains(u.value, "reads only as root")) << u.value;
}

TEST(DoctorNetwork, AcsWithoutDevicesIsUnknownAndWithoutSwitchesPasses) {
  TempDir root("gpubench-test-acs");
  EXPECT_EQ(check_pcie_acs(probe_acs({}, root.path())).status, CheckStatus::unknown);
  // A GPU directly under a root port: no switch port to judge.
  const fs::path gpu = root.path() / "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0";
  fs::create_directories(gpu);
  fs::create_directories(root.path() / "sys/bus/pci/devices");
  fs::create_directory_symlink(gpu, root.path() / "sys/bus/pci/devices/0000:16:00.0");
  const DoctorCheck c = check_pcie_acs(probe_acs({"00000000:16:00.0"}, root.path()));
  EXPECT_EQ(c.status, CheckStatus::pass) << c.value;
}

}  // namespace
}  // namespace gpubench::harness
