// Suite discovery: names, executability, precedence, selection errors.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

#include "harness/run/discovery.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;

namespace gpubench::harness {
namespace {

void make_script(const fs::path& path, const std::string& body, bool executable = true) {
  write_file_atomic(path, "#!/bin/sh\n" + body + "\n");
  chmod(path.c_str(), executable ? 0755 : 0644);
}

TEST(Discovery, FindsExecutableSuitesOnly) {
  TempDir dir("gpubench-test");
  make_script(dir.path() / "gpubench-alpha", "exit 0");
  make_script(dir.path() / "gpubench-beta", "exit 0");
  make_script(dir.path() / "gpubench-notexec", "exit 0", false);
  make_script(dir.path() / "other-tool", "exit 0");
  make_script(dir.path() / "gpubench-", "exit 0");
  const auto found = discover_suites({dir.path()});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "alpha");
  EXPECT_EQ(found[1].name, "beta");
  EXPECT_EQ(found[0].path, dir.path() / "gpubench-alpha");
}

TEST(Discovery, EarlierDirectoriesWin) {
  TempDir first("gpubench-test");
  TempDir second("gpubench-test");
  make_script(first.path() / "gpubench-alpha", "exit 0");
  make_script(second.path() / "gpubench-alpha", "exit 0");
  make_script(second.path() / "gpubench-gamma", "exit 0");
  const auto found = discover_suites({first.path(), second.path(), "/nonexistent/dir"});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].path, first.path() / "gpubench-alpha");
  EXPECT_EQ(found[1].path, second.path() / "gpubench-gamma");
}

TEST(Discovery, SuitePathComesBeforeTheCliDirectory) {
  setenv("GPUBENCH_SUITE_PATH", "/a:/b::/c", 1);
  const auto dirs = suite_search_dirs("/self");
  unsetenv("GPUBENCH_SUITE_PATH");
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(dirs[0], "/a");
  EXPECT_EQ(dirs[2], "/c");
  EXPECT_EQ(dirs[3], "/self");
}

TEST(Discovery, SelectionNamesUnknownSuitesAndTheKnownOnes) {
  const std::vector<SuiteExecutable> found = {{"gemm", "/x/gpubench-gemm"},
                                              {"memory", "/x/gpubench-memory"}};
  EXPECT_EQ(select_suites(found, {}).size(), 2u);
  const auto picked = select_suites(found, {"memory", "gemm", "memory"});
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0].name, "memory");
  try {
    select_suites(found, {"nosuch"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("'nosuch'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("gemm, memory"), std::string::npos);
  }
}

TEST(Discovery, DescribesASuiteThatAnswers) {
  TempDir dir("gpubench-test");
  // FIXTURE suite: answers --gpubench_info and --benchmark_list_tests like a real one.
  make_script(dir.path() / "gpubench-fx",
              "case \"$1\" in\n"
              "  --gpubench_info) echo '{\"suite\":\"fx\",\"description\":\"fixture\",\"metrics\":"
              "[{\"name\":\"x\",\"unit\":\"GB/s\",\"direction\":\"higher\"}],\"runnable\":false,"
              "\"reason\":\"no CUDA device\",\"notes\":[\"n1\"]}' ;;\n"
              "  --benchmark_list_tests=true) printf 'fx/a\\nfx/b:1\\n' ;;\n"
              "esac");
  const SuiteDescription d = describe_suite({"fx", dir.path() / "gpubench-fx"}, "quick");
  EXPECT_TRUE(d.answered);
  EXPECT_FALSE(d.runnable);
  EXPECT_EQ(d.reason, "no CUDA device");
  EXPECT_EQ(d.description, "fixture");
  ASSERT_EQ(d.benchmarks.size(), 2u);
  EXPECT_EQ(d.benchmarks[1], "fx/b:1");
  EXPECT_NE(d.metrics_json.find("GB/s"), std::string::npos);
}

TEST(Discovery, DescribesASuiteThatDoesNotAnswer) {
  TempDir dir("gpubench-test");
  make_script(dir.path() / "gpubench-mute", "echo 'unrecognized flag' >&2; exit 1");
  const SuiteDescription d = describe_suite({"mute", dir.path() / "gpubench-mute"}, "standard");
  EXPECT_FALSE(d.answered);
  EXPECT_FALSE(d.runnable);
  EXPECT_NE(d.reason.find("does not answer --gpubench_info"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find("unrecognized flag"), std::string::npos) << d.reason;
}

}  // namespace
}  // namespace gpubench::harness
