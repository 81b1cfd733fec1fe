// The helpers suite mains share (suites/common/suite_support.hpp, device_flag.hpp): each checked
// against the text and exit codes the mains printed before they shared them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "suites/common/device_flag.hpp"
#include "suites/common/suite_support.hpp"
#include "util/error.hpp"

namespace gpubench::suite {
namespace {

// argv as a main receives it: writable, null-terminated.
class Args {
 public:
  explicit Args(std::vector<std::string> words)
      : m_words(std::move(words)), m_argc(static_cast<int>(m_words.size())) {
    for (auto& w : m_words) m_pointers.push_back(w.data());
    m_pointers.push_back(nullptr);
  }
  int& argc() { return m_argc; }
  char** argv() { return m_pointers.data(); }

 private:
  std::vector<std::string> m_words;
  int m_argc = 0;
  std::vector<char*> m_pointers;
};

// Sets GPUBENCH_DEVICE (or unsets it) for one test and restores what was there.
class DeviceEnv {
 public:
  explicit DeviceEnv(const char* value) {
    if (const char* old = std::getenv("GPUBENCH_DEVICE")) m_old = old;
    if (value) {
      ::setenv("GPUBENCH_DEVICE", value, 1);
    } else {
      ::unsetenv("GPUBENCH_DEVICE");
    }
  }
  ~DeviceEnv() {
    if (m_old) {
      ::setenv("GPUBENCH_DEVICE", m_old->c_str(), 1);
    } else {
      ::unsetenv("GPUBENCH_DEVICE");
    }
  }
  DeviceEnv(const DeviceEnv&) = delete;
  DeviceEnv& operator=(const DeviceEnv&) = delete;

 private:
  std::optional<std::string> m_old;
};

TEST(SuiteSupport, HasArgMatchesWholeArgumentsAfterTheProgramName) {
  Args args({"--gpubench_info", "--gpubench_plan_gpus=8", "--benchmark_filter=x"});
  EXPECT_FALSE(has_arg(args.argc(), args.argv(), "--gpubench_info"));  // argv[0] is the program
  Args more({"gpubench-x", "--gpubench_plan_gpus=8", "--gpubench_info"});
  EXPECT_TRUE(has_arg(more.argc(), more.argv(), "--gpubench_info"));
  EXPECT_FALSE(has_arg(more.argc(), more.argv(), "--gpubench_plan"));  // a prefix is not the flag
}

TEST(SuiteSupport, ReportErrorPrintsTheCliFormatAndReturnsTheCode) {
  testing::internal::CaptureStderr();
  const int code = report_error(
      "gpubench-launch",
      bad_input("--device '9' is out of range", "2 devices", "pass --device 0..1 or all"));
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "gpubench-launch: error: --device '9' is out of range (2 devices; pass --device 0..1 "
            "or all)\n");
  EXPECT_EQ(code, 2);
  testing::internal::CaptureStderr();
  EXPECT_EQ(report_error("gpubench", infrastructure("cannot read")), 3);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "gpubench: error: cannot read\n");
}

TEST(SuiteSupport, AvailableUnlessAReasonIsGiven) {
  const Availability ok = available_unless("");
  EXPECT_TRUE(ok.runnable);
  EXPECT_EQ(ok.reason, "");
  EXPECT_TRUE(ok.notes.empty());
  const Availability off = available_unless("no CUDA device");
  EXPECT_FALSE(off.runnable);
  EXPECT_EQ(off.reason, "no CUDA device");
}

TEST(SuiteSupport, DeviceCasesNoteSaysAvailableOrWhySkipped) {
  EXPECT_EQ(device_cases_note(""), "device cases: available");
  EXPECT_EQ(device_cases_note("no CUDA device"), "device cases: skipped: no CUDA device");
  EXPECT_STREQ(k_device_cases_not_built,
               "device cases: not built (gpubench was built without CUDA)");
}

// Records the runs Google Benchmark reports, without printing them.
class RunRecorder : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) m_runs.push_back(r);
  }
  const std::vector<Run>& runs() const { return m_runs; }

 private:
  std::vector<Run> m_runs;
};

TEST(SuiteSupport, RegisterTimedRunsExactlyTheSamplesInManualTime) {
  int calls = 0;
  register_timed("suite_support_test/timed", 3, [&calls](benchmark::State& state) {
    for (auto _ : state) state.SetIterationTime(1e-3);
    ++calls;
  });
  register_timed(
      "suite_support_test/timed_ms", 2,
      [](benchmark::State& state) {
        for (auto _ : state) state.SetIterationTime(1e-3);
      },
      benchmark::kMillisecond);
  RunRecorder recorder;
  benchmark::RunSpecifiedBenchmarks(&recorder, "suite_support_test/");
  ASSERT_EQ(recorder.runs().size(), 2u);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(recorder.runs()[0].benchmark_name(),
            "suite_support_test/timed/iterations:3/manual_time");
  EXPECT_EQ(recorder.runs()[0].iterations, 3);
  EXPECT_EQ(recorder.runs()[0].time_unit, benchmark::kMicrosecond);
  EXPECT_EQ(recorder.runs()[1].iterations, 2);
  EXPECT_EQ(recorder.runs()[1].time_unit, benchmark::kMillisecond);
}

TEST(DeviceFlag, TakesTheFlagAndResolvesAgainstTheCount) {
  const DeviceEnv env(nullptr);
  Args args({"gpubench-x", "--device", "1", "--benchmark_filter=x"});
  EXPECT_EQ(take_devices(args.argc(), args.argv(), [] { return 4; }), std::vector<int>{1});
  ASSERT_EQ(args.argc(), 2);  // --device 1 removed
  EXPECT_STREQ(args.argv()[1], "--benchmark_filter=x");
}

TEST(DeviceFlag, ReadsGpubenchDeviceAndDefaultsToAll) {
  {
    const DeviceEnv env("2");
    Args args({"gpubench-x"});
    EXPECT_EQ(take_devices(args.argc(), args.argv(), [] { return 4; }), std::vector<int>{2});
  }
  const DeviceEnv env(nullptr);
  Args args({"gpubench-x"});
  EXPECT_EQ(take_devices(args.argc(), args.argv(), [] { return 3; }), (std::vector<int>{0, 1, 2}));
}

TEST(DeviceFlag, ABadFlagThrowsBeforeDevicesAreCounted) {
  const DeviceEnv env(nullptr);
  Args args({"gpubench-x", "--device", "first"});
  bool counted = false;
  try {
    take_devices(args.argc(), args.argv(), [&counted] {
      counted = true;
      return 1;
    });
    FAIL() << "no error for --device first";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
  }
  EXPECT_FALSE(counted);
  Args out_of_range({"gpubench-x", "--device", "5"});
  EXPECT_THROW(take_devices(out_of_range.argc(), out_of_range.argv(), [] { return 2; }), Error);
}

}  // namespace
}  // namespace gpubench::suite
