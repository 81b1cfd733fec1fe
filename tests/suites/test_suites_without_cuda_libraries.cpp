// Every built suite starts where cuBLAS, cuBLASLt and NCCL cannot be found (issue 22): run with
// GPUBENCH_CUDA_LIBS naming an empty directory and GPUBENCH_CUDA_LIBS_ONLY=1 (search nowhere
// else; the toolkit is installed on build machines), --gpubench_info and --benchmark_list_tests
// exit 0, and the suites that need a library say which and where it was looked for. Also: no
// suite binary and not the CLI needs libcudart, libcublas(Lt), libnccl or libhdf5 to load.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/suites/run_program.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace {

using Result = gpubench::testing::ChildResult;

Result run(const std::string& cmd) {
  return gpubench::testing::run_shell(cmd);
}

std::vector<std::string> suites() {
  return gpubench::split(GPUBENCH_TEST_SUITES, ',');  // the built suites, comma-separated
}

std::string binary(const std::string& suite) {
  return std::string(GPUBENCH_BIN_DIR) + "/gpubench-" + suite;
}

// The suite run with the CUDA libraries out of reach; stdout only (stderr to the test's log).
Result run_without_libraries(const std::string& suite, const std::string& empty_dir,
                             const std::string& args) {
  return run("env GPUBENCH_CUDA_LIBS='" + empty_dir +
             "' GPUBENCH_CUDA_LIBS_ONLY=1 LD_LIBRARY_PATH= '" + binary(suite) + "' " + args);
}

TEST(SuitesWithoutCudaLibraries, InfoAndListingExitZeroWithTheReason) {
  gpubench::TempDir tmp("no-cuda-libs");
  const std::string empty = tmp.path().string();
  const std::string searched = "not found (searched: " + empty + " (GPUBENCH_CUDA_LIBS))";
  ASSERT_FALSE(suites().empty());
  for (const std::string& suite : suites()) {
    SCOPED_TRACE(suite);
    const Result info = run_without_libraries(suite, empty, "--gpubench_info");
    ASSERT_EQ(info.exit_code, 0) << info.out;
    const auto j = nlohmann::json::parse(info.out);
    EXPECT_EQ(j["suite"], suite);
    const std::string notes = j["notes"].dump() + j["reason"].dump();
    if (suite == "gemm") {
      EXPECT_NE(notes.find("cuBLASLt: skipped: libcublasLt.so."), std::string::npos) << notes;
      EXPECT_NE(notes.find(searched), std::string::npos) << notes;
    }
    if (suite == "fusion" && GPUBENCH_TEST_HAVE_CUDA) {  // host-only builds have no device half
      EXPECT_NE(notes.find("gemm_bias_gelu cases: cuBLASLt: skipped: libcublasLt.so."),
                std::string::npos)
          << notes;
      EXPECT_NE(notes.find(searched), std::string::npos) << notes;
    }
    if (suite == "allreduce" && notes.find("NCCL cases: not built") == std::string::npos) {
      EXPECT_NE(notes.find("NCCL cases: skipped: libnccl.so.2 " + searched), std::string::npos)
          << notes;
    }
    const Result list = run_without_libraries(suite, empty, "--benchmark_list_tests");
    EXPECT_EQ(list.exit_code, 0) << list.out;
    EXPECT_NE(list.out.find(suite + "/"), std::string::npos) << list.out;
  }
}

TEST(SuitesWithoutCudaLibraries, NoBinaryNeedsTheRunTimeLoadedLibraries) {
  if (run("command -v ldd >/dev/null 2>&1").exit_code != 0) GTEST_SKIP() << "no ldd here";
  std::vector<std::string> binaries = {std::string(GPUBENCH_BIN_DIR) + "/gpubench"};
  for (const std::string& suite : suites()) binaries.push_back(binary(suite));
  for (const std::string& path : binaries) {
    SCOPED_TRACE(path);
    const Result r = run("ldd '" + path + "' 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    for (const char* lib : {"libcudart", "libcublas", "libnccl", "libhdf5"}) {
      EXPECT_EQ(r.out.find(lib), std::string::npos) << lib << " in:\n" << r.out;
    }
  }
}

}  // namespace
