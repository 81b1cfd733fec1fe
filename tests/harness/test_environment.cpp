// Environment parsers on fixture text (copies of real /proc and /etc files, trimmed) and the live
// probe on this machine (which may have no GPU).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "gpubench_version.hpp"
#include "harness/probe/environment.hpp"
#include "harness/probe/nvml.hpp"

namespace gpubench::harness {
namespace {

// FIXTURE: two sockets, two cores each, two threads per core (8 logical CPUs).
std::string dual_socket_cpuinfo() {
  std::string text;
  int processor = 0;
  for (int socket = 0; socket < 2; ++socket) {
    for (int thread = 0; thread < 2; ++thread) {
      for (int core = 0; core < 2; ++core) {
        text += "processor\t: " + std::to_string(processor++) + "\n";
        text += "vendor_id\t: GenuineIntel\n";
        text += "model name\t: Intel(R) Xeon(R) Platinum 8480+\n";
        text += "physical id\t: " + std::to_string(socket) + "\n";
        text += "siblings\t: 4\n";
        text += "core id\t\t: " + std::to_string(core) + "\n";
        text += "cpu cores\t: 2\n\n";
      }
    }
  }
  return text;
}

TEST(Environment, ParsesADualSocketCpuinfo) {
  const CpuInfo cpu = parse_cpuinfo(dual_socket_cpuinfo());
  EXPECT_EQ(cpu.model, "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(cpu.sockets, 2);
  EXPECT_EQ(cpu.cores, 4);
  EXPECT_EQ(cpu.threads, 8);
}

TEST(Environment, CpuinfoWithoutTopologyLeavesItUnknown) {
  // FIXTURE: an aarch64 /proc/cpuinfo has no model name, physical id or core id.
  const std::string text =
      "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd40\n\n"
      "processor\t: 1\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd40\n";
  const CpuInfo cpu = parse_cpuinfo(text);
  EXPECT_EQ(cpu.model, "unknown");
  EXPECT_FALSE(cpu.sockets.has_value());
  EXPECT_FALSE(cpu.cores.has_value());
  EXPECT_EQ(cpu.threads, 2);
}

TEST(Environment, ParsesMeminfoInKib) {
  const std::string text = "MemTotal:       24576000 kB\nMemFree:         1000 kB\n";  // FIXTURE
  EXPECT_EQ(parse_meminfo_total_bytes(text), int64_t{24576000} * 1024);
  EXPECT_FALSE(parse_meminfo_total_bytes("MemFree: 12 kB\n").has_value());
  EXPECT_FALSE(parse_meminfo_total_bytes("MemTotal: lots kB\n").has_value());
}

TEST(Environment, ParsesOsReleasePrettyName) {
  const std::string text =  // FIXTURE: Debian 12's /etc/os-release, first lines
      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian "
      "GNU/Linux\"\nVERSION_ID=\"12\"\n";
  EXPECT_EQ(parse_os_release_pretty_name(text), "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(parse_os_release_pretty_name("PRETTY_NAME=Plain\n"), "Plain");
  EXPECT_EQ(parse_os_release_pretty_name("NAME=x\n"), "unknown");
}

TEST(Environment, ConvertsNvmlBusIdsToSysfs) {
  EXPECT_EQ(sysfs_pci_address("00000000:17:00.0"), "0000:17:00.0");
  EXPECT_EQ(sysfs_pci_address("00000000:AB:00.0"), "0000:ab:00.0");
  EXPECT_EQ(sysfs_pci_address("0000:17:00.0"), "0000:17:00.0");
  // Domains past 0xffff keep every digit (they used to be cut to the last 12 characters).
  EXPECT_EQ(sysfs_pci_address("00010000:01:00.0"), "10000:01:00.0");
  EXPECT_EQ(sysfs_pci_address("0000ABCD:01:00.0"), "abcd:01:00.0");
}

TEST(Environment, KeepsOnlyRelevantVariables) {
  const auto env = relevant_env({"CUDA_VISIBLE_DEVICES=0,1", "NCCL_DEBUG=INFO", "OMP_NUM_THREADS=8",
                                 "GPUBENCH_PROFILE=quick", "HOME=/root", "PATH=/bin",
                                 "XCUDA_FAKE=1", "NOEQUALS"});
  ASSERT_EQ(env.size(), 4u);
  EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ(env.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(env.at("OMP_NUM_THREADS"), "8");
  EXPECT_EQ(env.at("GPUBENCH_PROFILE"), "quick");
}

// cuBLAS / cuBLASLt settings and the TF32 override change what the GEMM suite measures.
TEST(Environment, RecordsCublasAndTf32Variables) {
  const auto env = relevant_env({"CUBLAS_WORKSPACE_CONFIG=:4096:8", "CUBLASLT_LOG_LEVEL=2",
                                 "NVIDIA_TF32_OVERRIDE=0", "NVIDIA_VISIBLE_DEVICES=all",
                                 "CUDA_DEVICE_ORDER=PCI_BUS_ID", "CUDA_VISIBLE_DEVICES=2,3"});
  EXPECT_EQ(env.at("CUBLAS_WORKSPACE_CONFIG"), ":4096:8");
  EXPECT_EQ(env.at("CUBLASLT_LOG_LEVEL"), "2");
  EXPECT_EQ(env.at("NVIDIA_TF32_OVERRIDE"), "0");
  EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), "2,3");
  EXPECT_EQ(env.at("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
  EXPECT_EQ(env.count("NVIDIA_VISIBLE_DEVICES"), 0u);
}

// Suites start with eager module loading (no lazy load behind the spin kernel), except gemm and
// allreduce, which preload what they time and would load all of cuBLASLt or NCCL under EAGER; a
// mode the user chose is kept for every suite.
TEST(Environment, SuitesLoadModulesEagerlyExceptLibrarySuitesUnlessTheUserChose) {
  for (const char* suite : {"launch", "transfer", "fusion", "memory", "calibration", "new_one"}) {
    EXPECT_EQ(suite_module_loading(nullptr, suite), "EAGER") << suite;
    EXPECT_EQ(suite_module_loading("", suite), "EAGER") << suite;
    EXPECT_EQ(suite_module_loading("LAZY", suite), "LAZY") << suite;
  }
  for (const char* suite : {"gemm", "allreduce"}) {
    EXPECT_EQ(suite_module_loading(nullptr, suite), "LAZY") << suite;
    EXPECT_EQ(suite_module_loading("", suite), "LAZY") << suite;
    EXPECT_EQ(suite_module_loading("EAGER", suite), "EAGER") << suite;
  }
}

class ModuleLoadingEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* v = std::getenv("CUDA_MODULE_LOADING");
    if (v) m_saved = v;
    unsetenv("CUDA_MODULE_LOADING");  // this process's environment must not decide the default
  }
  void TearDown() override {
    if (m_saved) {
      setenv("CUDA_MODULE_LOADING", m_saved->c_str(), 1);
    } else {
      unsetenv("CUDA_MODULE_LOADING");
    }
  }
  std::optional<std::string> m_saved;
};

TEST_F(ModuleLoadingEnv, SuiteChildEnvironmentNamesEveryVariableAndDiffersPerSuite) {
  auto env_of = [](const std::string& suite) {
    std::map<std::string, std::string> env;
    for (const auto& [key, value] : suite_child_env("standard", suite)) env[key] = value;
    return env;
  };
  const auto launch = env_of("launch");
  EXPECT_EQ(launch.at("GPUBENCH_PROFILE"), "standard");
  EXPECT_EQ(launch.at("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
  EXPECT_EQ(launch.at("CUDA_MODULE_LOADING"), "EAGER");
  EXPECT_EQ(env_of("gemm").at("CUDA_MODULE_LOADING"), "LAZY");
  EXPECT_EQ(env_of("allreduce").at("CUDA_MODULE_LOADING"), "LAZY");
  setenv("CUDA_MODULE_LOADING", "LAZY", 1);
  EXPECT_EQ(env_of("launch").at("CUDA_MODULE_LOADING"), "LAZY");
}

TEST_F(ModuleLoadingEnv, RunRecordsOneValueOrTheValuePerSuite) {
  EXPECT_EQ(run_module_loading({"launch", "memory"}), "EAGER");
  EXPECT_EQ(run_module_loading({"gemm"}), "LAZY");
  EXPECT_EQ(run_module_loading({"launch", "gemm", "memory", "allreduce"}),
            "EAGER (launch, memory); LAZY (gemm, allreduce)");
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  EXPECT_EQ(run_module_loading({"launch", "gemm"}), "EAGER");  // the user's choice, everywhere
}

TEST(Environment, FormatsLibraryVersionCodes) {
  EXPECT_EQ(nccl_version_text(21804), "2.18.4");
  EXPECT_EQ(nccl_version_text(22703), "2.27.3");
  EXPECT_EQ(nccl_version_text(2408), "2.4.8");  // pre-2.9 encoding
  EXPECT_EQ(nccl_version_text(0), "unknown");
  EXPECT_EQ(cuda_version_text(12060), "12.6");
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(cuda_version_text(-1), "unknown");
}

TEST(Environment, LiveProbeWorksWithOrWithoutAGpu) {
  const Environment env = probe_environment("quick");
  EXPECT_NE(env.host.hostname, "unknown");
  ASSERT_TRUE(env.host.threads.has_value());
  EXPECT_GT(*env.host.threads, 0);
  ASSERT_TRUE(env.host.memory_bytes.has_value());
  EXPECT_GT(*env.host.memory_bytes, int64_t{1} << 26);
  EXPECT_NE(env.host.kernel, "unknown");
  EXPECT_EQ(env.software.gpubench_version, build_info::k_version);
  EXPECT_EQ(env.software.git_sha, build_info::k_git_sha);
  EXPECT_NE(env.software.compiler, "unknown");
  EXPECT_EQ(env.config.profile, "quick");
  Nvml nvml;
  if (!nvml.available()) {
    EXPECT_FALSE(nvml.reason().empty());
    EXPECT_EQ(nvml.device_count(), 0);
    EXPECT_TRUE(env.gpus.empty());
    EXPECT_EQ(env.software.driver_version, "unknown");
    EXPECT_FALSE(nvml.name(0).has_value());
    EXPECT_FALSE(nvml.throttle_reasons(0).has_value());
  } else {
    ASSERT_EQ(static_cast<int>(env.gpus.size()), nvml.device_count());
    for (std::size_t i = 0; i < env.gpus.size(); ++i) {
      EXPECT_EQ(env.gpus[i].nvml_index, static_cast<int>(i));
      EXPECT_NE(env.gpus[i].uuid, "unknown");
    }
  }
}

}  // namespace
}  // namespace gpubench::harness
