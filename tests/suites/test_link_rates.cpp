// Link-rate tables against published figures, and reading a PCIe link from a fake sysfs tree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "suites/transfer/link_rates.hpp"
#include "util/fs.hpp"

namespace gpubench::transfer {
namespace {

// Published x16 one-direction bandwidths, from the PCI-SIG specifications as tabulated in
// Wikipedia's "PCI Express" article (History and revisions table, "x16" column):
// 1.0 4.000 GB/s, 2.0 8.000, 3.0 15.754, 4.0 31.508, 5.0 63.015, 6.0 121.0, 7.0 242.0.
TEST(LinkRates, PcieMatchesPublishedX16Figures) {
  const struct {
    int gen;
    double x16_gb_per_s;
  } published[] = {{1, 4.000},  {2, 8.000}, {3, 15.754}, {4, 31.508},
                   {5, 63.015}, {6, 121.0}, {7, 242.0}};
  for (const auto& p : published) {
    const auto lane = pcie_lane_gb_per_s(p.gen);
    ASSERT_TRUE(lane) << p.gen;
    EXPECT_NEAR(*lane * 16, p.x16_gb_per_s, 0.001 * p.x16_gb_per_s) << "gen" << p.gen;
  }
  EXPECT_FALSE(pcie_lane_gb_per_s(0));
  EXPECT_FALSE(pcie_lane_gb_per_s(8));
}

// METHODOLOGY rule 11: PCIe Gen5 x16 pinned H2D/D2H reaches about 55 GB/s, ~88% of the link.
TEST(LinkRates, MethodologyReferencePointIsAbout88PercentOfGen5X16) {
  PcieLink link;
  link.max_gen = 5;
  link.max_width = 16;
  const LinkRate rate = pcie_rate(link);
  ASSERT_TRUE(rate.gb_per_s);
  const auto pct = pct_of_rate(55.0, rate);
  ASSERT_TRUE(pct);
  EXPECT_NEAR(*pct, 87.3, 0.1);
}

// Published NVLink totals (both directions, all links), NVIDIA data sheets: P100 160 GB/s
// (4 links, NVLink 1.0), V100 300 GB/s (6 links, 2.0), A100 600 GB/s (12 links, 3.0), H100 SXM
// 900 GB/s (18 links, 4.0), B200 1.8 TB/s (18 links, 5.0). NVML versions: 1.0=1, 2.0=2, 3.0=4,
// 4.0=6, 5.0=7 (nvmlNvlinkVersion_t).
TEST(LinkRates, NvlinkMatchesPublishedTotals) {
  const struct {
    unsigned nvml_version;
    int links;
    double total_gb_per_s;
  } published[] = {{1, 4, 160}, {2, 6, 300}, {4, 12, 600}, {6, 18, 900}, {7, 18, 1800}};
  for (const auto& p : published) {
    const auto per_link = nvlink_link_gb_per_s(p.nvml_version);
    ASSERT_TRUE(per_link) << p.nvml_version;
    EXPECT_DOUBLE_EQ(*per_link * p.links * 2, p.total_gb_per_s) << p.nvml_version;
  }
  // 2.2 and 3.1 have no published per-link figure: unknown, not a guess.
  EXPECT_FALSE(nvlink_link_gb_per_s(3));
  EXPECT_FALSE(nvlink_link_gb_per_s(5));
  EXPECT_FALSE(nvlink_link_gb_per_s(0));
  EXPECT_EQ(nvlink_version_name(6), "4.0");
}

TEST(LinkRates, UnknownRatesCarryAReason) {
  PcieLink link;
  link.current_gen = 4;
  link.reason = "max_link_speed not readable";
  const LinkRate rate = pcie_rate(link);
  EXPECT_FALSE(rate.gb_per_s);
  EXPECT_NE(rate.reason.find("max_link_speed not readable"), std::string::npos);
  EXPECT_FALSE(pct_of_rate(10.0, rate));
}

// Host copies of a GPU that reads host memory through the host's page tables (NVLink-C2C, GH200)
// do not cross its PCIe link: no PCIe rate to judge them by (they read hundreds of % of it).
TEST(LinkRates, HostCopiesOverNvlinkC2cAreNotJudgedAgainstPcie) {
  PcieLink link;
  link.max_gen = 5;
  link.max_width = 16;
  const LinkRate pcie = host_link_rate(link, HostPath::pcie);
  ASSERT_TRUE(pcie.gb_per_s);
  EXPECT_NEAR(*pcie.gb_per_s, 63.015, 0.01);
  const LinkRate c2c = host_link_rate(link, HostPath::host_page_tables);
  EXPECT_FALSE(c2c.gb_per_s);
  EXPECT_FALSE(pct_of_rate(400.0, c2c));
  EXPECT_NE(c2c.description.find("NVLink-C2C"), std::string::npos);
  EXPECT_NE(c2c.reason.find("PCIe link is not the path"), std::string::npos);
}

TEST(LinkRates, DescriptionShowsADownTrainedLink) {
  PcieLink link;
  link.current_gen = 5;
  link.current_width = 8;
  link.max_gen = 5;
  link.max_width = 16;
  link.source = "NVML";
  const LinkRate rate = pcie_rate(link);
  EXPECT_EQ(rate.description, "PCIe gen5 x16 (trained at x8) from NVML");
  // An idle GPU's current generation (gen1) is not shown: it is no property of the link.
  link.current_gen = 1;
  link.current_width = 16;
  EXPECT_EQ(pcie_rate(link).description, "PCIe gen5 x16 from NVML");
  ASSERT_TRUE(rate.gb_per_s);
  EXPECT_NEAR(*rate.gb_per_s, 63.015, 0.01);  // judged against what the link should do
}

TEST(LinkRates, ParsesSysfsSpeeds) {
  EXPECT_EQ(pcie_gen_from_speed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(pcie_gen_from_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_gen_from_speed("8 GT/s"), 3);
  EXPECT_EQ(pcie_gen_from_speed("2.5 GT/s PCIe"), 1);
  EXPECT_FALSE(pcie_gen_from_speed("Unknown"));
  EXPECT_FALSE(pcie_gen_from_speed("12 GT/s"));
  EXPECT_EQ(normalise_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalise_bus_id("0000:3B:00.0"), "0000:3b:00.0");
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

TEST(LinkRates, ReadsPcieLinkFromAFakeSysfsTree) {
  TempDir dir("gpubench-test-sysfs");
  const auto dev = dir.path() / "bus/pci/devices/0000:3b:00.0";
  write(dev / "current_link_speed", "16.0 GT/s PCIe");
  write(dev / "current_link_width", "16");
  write(dev / "max_link_speed", "32.0 GT/s PCIe");
  write(dev / "max_link_width", "16");
  const PcieLink link = read_pcie_link_sysfs(dir.path().string(), "0000:3B:00.0");
  EXPECT_EQ(link.current_gen, 4);
  EXPECT_EQ(link.current_width, 16);
  EXPECT_EQ(link.max_gen, 5);
  EXPECT_EQ(link.max_width, 16);
  EXPECT_EQ(link.source, "sysfs");
  EXPECT_TRUE(link.reason.empty());

  // A gen5 x16 GPU in a gen4 x8 slot: the device directory is a link into the real tree, whose
  // parent is the slot's port.
  const auto port = dir.path() / "devices/pci0000:00/0000:00:01.0";
  write(port / "max_link_speed", "16.0 GT/s PCIe");
  write(port / "max_link_width", "8");
  const auto gpu = port / "0000:01:00.0";
  write(gpu / "max_link_speed", "32.0 GT/s PCIe");
  write(gpu / "max_link_width", "16");
  std::filesystem::create_symlink(gpu, dir.path() / "bus/pci/devices/0000:01:00.0");
  const PcieLink slot = read_pcie_link_sysfs(dir.path().string(), "0000:01:00.0");
  EXPECT_EQ(slot.max_gen, 4);
  EXPECT_EQ(slot.max_width, 8);
  EXPECT_NE(slot.source.find("slot"), std::string::npos);

  const PcieLink missing = read_pcie_link_sysfs(dir.path().string(), "0000:99:00.0");
  EXPECT_FALSE(missing.max_gen);
  EXPECT_NE(missing.reason.find("max_link_speed not readable"), std::string::npos);
  EXPECT_FALSE(pcie_rate(missing).gb_per_s);
}

NvlinkInfo link_to(NvlinkRemote remote, const std::string& bus, unsigned version = 6) {
  NvlinkInfo l;
  l.active = true;
  l.version = version;
  l.remote = remote;
  l.remote_bus_id = bus;
  return l;
}

TEST(LinkRates, NvlinkPairDirectLinksCountOnlyThePeer) {
  const std::vector<NvlinkInfo> src = {link_to(NvlinkRemote::gpu, "0000:02:00.0", 4),
                                       link_to(NvlinkRemote::gpu, "0000:02:00.0", 4),
                                       link_to(NvlinkRemote::gpu, "0000:03:00.0", 4)};
  const NvlinkPair pair = nvlink_pair(src, {}, "00000000:02:00.0");
  EXPECT_EQ(pair.links, 2);
  ASSERT_TRUE(pair.rate.gb_per_s);
  EXPECT_DOUBLE_EQ(*pair.rate.gb_per_s, 50.0);
  EXPECT_NE(pair.rate.description.find("direct"), std::string::npos);
}

// HGX H100/H200: 18 NVLink 4.0 links per GPU to the NVSwitches -> 450 GB/s one way per pair
// (METHODOLOGY rule 11 measures ~396 GB/s, 88%).
TEST(LinkRates, NvlinkPairThroughNvswitchUsesTheSmallerSide) {
  std::vector<NvlinkInfo> src(18, link_to(NvlinkRemote::nvswitch, ""));
  std::vector<NvlinkInfo> dst(18, link_to(NvlinkRemote::nvswitch, ""));
  NvlinkPair pair = nvlink_pair(src, dst, "0000:05:00.0");
  EXPECT_EQ(pair.links, 18);
  ASSERT_TRUE(pair.rate.gb_per_s);
  EXPECT_DOUBLE_EQ(*pair.rate.gb_per_s, 450.0);
  EXPECT_NEAR(*pct_of_rate(396.0, pair.rate), 88.0, 0.01);
  dst[3].active = false;
  dst[4].active = false;
  EXPECT_EQ(nvlink_pair(src, dst, "0000:05:00.0").links, 16);
}

TEST(LinkRates, NoNvlinkOrUnknownVersionIsUnknown) {
  const NvlinkPair none = nvlink_pair({}, {}, "0000:05:00.0");
  EXPECT_EQ(none.links, 0);
  EXPECT_FALSE(none.rate.gb_per_s);
  EXPECT_FALSE(none.rate.reason.empty());
  const std::vector<NvlinkInfo> odd = {link_to(NvlinkRemote::gpu, "0000:05:00.0", 5)};
  const NvlinkPair unknown = nvlink_pair(odd, {}, "0000:05:00.0");
  EXPECT_EQ(unknown.links, 1);
  EXPECT_FALSE(unknown.rate.gb_per_s);
  EXPECT_NE(unknown.rate.reason.find("3.1"), std::string::npos);
}

// A100 (sm_80) whose driver reports NVML enum value 5 ("3.1"): the enum alone gives no rate, the
// architecture gives NVLink 3.0, 12 links x 25 GB/s = 300 GB/s one way, and the label says the
// two disagree.
TEST(LinkRates, NvlinkRateComesFromTheArchitectureNotTheNvmlEnum) {
  const std::vector<NvlinkInfo> a100(12, link_to(NvlinkRemote::nvswitch, "", 5));
  const NvlinkPair by_enum = nvlink_pair(a100, a100, "0000:05:00.0");
  EXPECT_FALSE(by_enum.rate.gb_per_s);
  const NvlinkPair pair = nvlink_pair(a100, a100, "0000:05:00.0", {8, 0});
  ASSERT_TRUE(pair.rate.gb_per_s);
  EXPECT_DOUBLE_EQ(*pair.rate.gb_per_s, 300.0);
  EXPECT_NE(pair.rate.description.find("NVLink 3.0 x12"), std::string::npos)
      << pair.rate.description;
  EXPECT_NE(pair.rate.description.find("value 5"), std::string::npos) << pair.rate.description;
  // H100 reporting 7 ("5.0", B200's 50 GB/s per link) is still judged at 25 GB/s per link.
  const std::vector<NvlinkInfo> h100(18, link_to(NvlinkRemote::nvswitch, "", 7));
  const NvlinkPair hopper = nvlink_pair(h100, h100, "0000:05:00.0", {9, 0});
  ASSERT_TRUE(hopper.rate.gb_per_s);
  EXPECT_DOUBLE_EQ(*hopper.rate.gb_per_s, 450.0);
  // Agreeing enum: no disagreement note.
  const std::vector<NvlinkInfo> h200(18, link_to(NvlinkRemote::nvswitch, "", 6));
  EXPECT_EQ(nvlink_pair(h200, h200, "0000:05:00.0", {9, 0}).rate.description.find("NVML reports"),
            std::string::npos);
}

TEST(LinkRates, NvlinkGenerationPerArchitectureMatchesDatasheetTotals) {
  const struct {
    ComputeCapability cc;
    const char* name;
    int links;
    double total_gb_per_s;  // both directions, all links
  } published[] = {{{6, 0}, "1.0", 4, 160},    {{7, 0}, "2.0", 6, 300},
                   {{8, 0}, "3.0", 12, 600},   {{9, 0}, "4.0", 18, 900},
                   {{10, 0}, "5.0", 18, 1800}, {{10, 3}, "5.0", 18, 1800}};
  for (const auto& p : published) {
    const auto gen = nvlink_generation(p.cc);
    ASSERT_TRUE(gen) << p.cc.major << "." << p.cc.minor;
    EXPECT_EQ(gen->name, p.name);
    EXPECT_DOUBLE_EQ(gen->link_gb_per_s * p.links * 2, p.total_gb_per_s);
  }
  EXPECT_FALSE(nvlink_generation({8, 9}));  // L40S: no NVLink
  EXPECT_FALSE(nvlink_generation({}));      // unknown
}

}  // namespace
}  // namespace gpubench::transfer
