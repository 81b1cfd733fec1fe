// The training step (issue 41 item 4, "GPU busy"): the GEMM sizing rule and its calibration on
// synthetic timings, the idle fraction and feed limit, the pipeline's use of a
// step, and the emulated consumer's label through the real gpubench-dataloader binary. The GEMM
// step and the H2D sink need a GPU; these tests hold the host rules they follow (the sink's
// device buffer choice, the nearest calibration, when cuBLAS is loaded at suite start).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "suites/dataloader/dataloader_cases_detail.hpp"
#include "suites/dataloader/jpeg_codec.hpp"
#include "suites/dataloader/training_step.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace dl = gpubench::dataloader;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

// A synthetic GPU (fixture, not a measurement): `tflops` sustained on large GEMMs, plus a fixed
// launch cost per GEMM, in milliseconds per step; a step is 2 n^3 x repeats flops.
double model_step_ms(const dl::GemmShape& g, double tflops, double launch_us = 10) {
  const double n = g.n;
  const double flops = 2.0 * n * n * n * g.repeats;
  return flops / (tflops * 1e12) * 1e3 + g.repeats * launch_us * 1e-3;
}

}  // namespace

TEST(TrainingStepSizing, ScalesNByTheCubeRootOfTheTimeRatio) {
  // 8x the time is 8x the work: twice n.
  auto g = dl::next_gemm_shape({2048, 1}, 1.0, 8.0);
  EXPECT_EQ(g.n, 4096);
  EXPECT_EQ(g.repeats, 1);
  // Half the time: n / 2^(1/3) = 3251.1, rounded to a multiple of 64.
  g = dl::next_gemm_shape({4096, 1}, 2.0, 1.0);
  EXPECT_EQ(g.n, 3264);
  EXPECT_EQ(g.n % dl::k_gemm_n_multiple, 0);
  // Never below the smallest n.
  EXPECT_EQ(dl::next_gemm_shape({256, 1}, 10.0, 0.001).n, dl::k_gemm_min_n);
}

TEST(TrainingStepSizing, ChainsGemmsBeyondTheLargestN) {
  // 2.5x the work of one 8192 GEMM: three GEMMs of cbrt(8192^3 x 2.5 / 3) = 7709 -> 7680.
  const auto g = dl::next_gemm_shape({8192, 1}, 2.0, 5.0);
  EXPECT_EQ(g.repeats, 3);
  EXPECT_EQ(g.n, 7680);
  // Fewer GEMMs again when the step was too long.
  const auto back = dl::next_gemm_shape({8192, 3}, 10.0, 5.0);
  EXPECT_EQ(back.repeats, 2);
  EXPECT_EQ(back.n, 7424);  // cbrt(8192^3 x 1.5 / 2) = 7442.9 -> 7424
}

TEST(TrainingStepSizing, RejectsNonPositiveTimes) {
  for (double measured : {0.0, -1.0, std::nan("")}) {
    EXPECT_THROW((void)dl::next_gemm_shape({1024, 1}, measured, 5.0), gpubench::Error);
  }
  EXPECT_THROW((void)dl::next_gemm_shape({1024, 1}, 1.0, 0.0), gpubench::Error);
  EXPECT_THROW((void)dl::next_gemm_shape({0, 1}, 1.0, 5.0), gpubench::Error);
  // A broken timer (a step "taking" 1 ns) cannot overflow the GEMM count.
  EXPECT_EQ(dl::next_gemm_shape({8192, 1}, 1e-9, 100.0).repeats, dl::k_gemm_max_repeats);
}

TEST(TrainingStepSizing, RejectsNonFiniteTimesAndCapsOverflowingWork) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THROW((void)dl::next_gemm_shape({1024, 1}, inf, 5.0), gpubench::Error);
  EXPECT_THROW((void)dl::next_gemm_shape({1024, 1}, 1.0, inf), gpubench::Error);
  // 5 ms / 1e-308 ms overflows to inf: the largest step, not lround(inf)'s garbage (which gave
  // the smallest n).
  const auto g = dl::next_gemm_shape({8192, 1}, 1e-308, 5.0);
  EXPECT_EQ(g.n, dl::k_gemm_max_n);
  EXPECT_EQ(g.repeats, dl::k_gemm_max_repeats);
  // A timer giving inf or 0 stops the calibration with an error naming the shape and the time.
  for (double broken : {inf, 0.0, std::nan("")}) {
    try {
      (void)dl::calibrate_gemm_step(5.0, {2048, 1}, [&](const dl::GemmShape&) { return broken; });
      ADD_FAILURE() << "no error for a step timed at " << broken << " ms";
    } catch (const gpubench::Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("timing a GEMM step of n=2048 x1"));
    }
  }
}

TEST(TrainingStepSizing, NearestCalibrationComparesBothNeighboursByRatio) {
  std::map<long long, dl::StepCalibration> done;
  EXPECT_EQ(dl::nearest_calibration(done, 5000), done.end());
  done[5000] = {};
  done[100000] = {};
  // 6 ms: 5 ms is 1.2x away, 100 ms 16.7x. lower_bound alone picked 100 ms.
  EXPECT_EQ(dl::nearest_calibration(done, 6000)->first, 5000);
  EXPECT_EQ(dl::nearest_calibration(done, 90000)->first, 100000);
  EXPECT_EQ(dl::nearest_calibration(done, 1000)->first, 5000);      // below every key
  EXPECT_EQ(dl::nearest_calibration(done, 500000)->first, 100000);  // above every key
  // By ratio, not difference: 20 ms is 4x from 5 and 5x from 100 (difference: 15 vs 80).
  EXPECT_EQ(dl::nearest_calibration(done, 20000)->first, 5000);
  // 25 ms is 5x from 5 and 4x from 100, though 20 ms nearer to 5 by difference.
  EXPECT_EQ(dl::nearest_calibration(done, 25000)->first, 100000);
}

// The H2D sink's device buffers: batches arrive in any order, so the buffer follows the begin()
// calls. With batch.index % 2, batches 3 then 5 took the same buffer and the second overwrote
// the first while its copy could still be running.
TEST(TrainingStepH2DSlots, OutOfOrderBatchesTakeAlternateBuffers) {
  dl::CopySlots slots;
  EXPECT_EQ(slots.find(3), dl::CopySlots::k_count);  // nothing begun
  const std::size_t s3 = slots.claim(3);
  const std::size_t s5 = slots.claim(5);
  EXPECT_NE(s3, s5);
  EXPECT_EQ(slots.find(3), s3);
  EXPECT_EQ(slots.find(5), s5);
  // The pipeline finishes 3 before the next batch arrives; the next begin takes 3's buffer.
  EXPECT_EQ(slots.next(), s3);
  EXPECT_EQ(slots.batch_in(slots.next()), 3u);  // still held until released
  slots.release(slots.find(3));
  EXPECT_EQ(slots.batch_in(slots.next()), dl::CopySlots::k_none);
  EXPECT_EQ(slots.find(3), dl::CopySlots::k_count);  // finish(3) again waits for nothing
  const std::size_t s0 = slots.claim(0);             // an early batch arriving late
  EXPECT_EQ(s0, s3);
  EXPECT_EQ(slots.find(0), s0);
  EXPECT_EQ(slots.find(5), s5);  // 5's copy is untouched
  // Two even batches in a row: also alternate.
  slots.release(slots.find(5));
  EXPECT_EQ(slots.claim(2), s5);
}

// When the suite main loads cuBLAS for the libraries context: only when a GPU-step case runs.
TEST(TrainingStepContext, CublasIsLoadedOnlyWhenAGpuStepCaseRuns) {
  const std::vector<std::string> names = {
      "dataloader/train/format:raw/path:pread/workers:1/record_bytes:150528/batch:16/"
      "step_us:5000/order:sequential/cache:warm/iterations:3/manual_time"};
  auto runs = [&](std::vector<std::string> args, const char* env_filter = nullptr,
                  const char* env_list = nullptr) {
    return dl::gemm_step_cases_run(dl::benchmark_selection(args, env_filter, env_list), names);
  };
  EXPECT_TRUE(runs({}));
  EXPECT_TRUE(runs({"--benchmark_filter=all"}));
  EXPECT_TRUE(runs({"--benchmark_filter=train/.*step_us:5000/"}));
  EXPECT_TRUE(runs({"--benchmark_filter=cache:warm/iterations:3/manual_time$"}));
  EXPECT_FALSE(runs({"--benchmark_filter=dataloader/ceiling"}));
  EXPECT_FALSE(runs({"--benchmark_filter=step_us:1000/"}));
  EXPECT_FALSE(runs({"--benchmark_filter=-step_us:5000"}));  // negative filter
  EXPECT_TRUE(runs({"--benchmark_filter=-ceiling"}));
  EXPECT_FALSE(runs({"--benchmark_filter=train", "--benchmark_filter=ceiling"}));  // last wins
  // A listing runs nothing: the harness lists cases before every run.
  EXPECT_FALSE(runs({"--benchmark_list_tests"}));
  EXPECT_FALSE(runs({"--benchmark_list_tests=true", "--benchmark_filter=train"}));
  EXPECT_TRUE(runs({"--benchmark_list_tests=false"}));
  EXPECT_TRUE(runs({"--benchmark_list_tests=0"}));
  // The environment, as Google Benchmark reads it; the command line overrides it.
  EXPECT_FALSE(runs({}, "ceiling"));
  EXPECT_TRUE(runs({"--benchmark_filter=train"}, "ceiling"));
  EXPECT_FALSE(runs({}, nullptr, "yes"));
  // An invalid regex: the run fails on it anyway; loading is the safe answer.
  EXPECT_TRUE(runs({"--benchmark_filter=train/(("}));
  EXPECT_FALSE(dl::gemm_step_cases_run({}, {}));  // no GPU-step case registered
}

// The names the suite main matches its filter against hold the image step cases too, as Google
// Benchmark names them (image cases run image_iterations, 2 in standard), so a filter that
// selects only those still loads cuBLAS for the libraries context.
TEST(TrainingStepContext, ImageStepCasesAreAmongTheGpuStepRunNames) {
  dl::SuiteConfig config;
  config.profile = gpubench::suite::Profile::standard;
  config.workers = {1, 2};
  config.dataset_bytes = 8u << 20;
  config.record_sizes = {150528};
  config.iterations = 4;
  const std::vector<std::string> names = dl::detail::gpu_step_run_names(config);
  const std::string image =
      "dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/workers:2/step_us:5000/"
      "memory:pinned/order:shuffled/cache:warm/iterations:2/manual_time";
  EXPECT_NE(std::find(names.begin(), names.end(), image), names.end())
      << ::testing::PrintToString(names);
  EXPECT_TRUE(dl::gemm_step_cases_run(
      dl::benchmark_selection({"--benchmark_filter=image/.*step_us:5000/"}, nullptr, nullptr),
      names));
  // Quick has no image step case.
  config.profile = gpubench::suite::Profile::quick;
  for (const std::string& n : dl::detail::gpu_step_run_names(config)) {
    EXPECT_EQ(n.find("dataloader/image/"), std::string::npos) << n;
  }
}

TEST(TrainingStepSizing, CalibrationReachesEachTargetWithinTenPercent) {
  // GPUs of 50 to 800 TFLOP/s, the targets of the train cases.
  for (double tflops : {50.0, 200.0, 800.0}) {
    for (double target : {5.0, 20.0, 100.0}) {
      const auto cal = dl::calibrate_gemm_step(
          target, {2048, 1}, [&](const dl::GemmShape& g) { return model_step_ms(g, tflops); });
      EXPECT_TRUE(cal.converged) << tflops << " TFLOP/s, " << target << " ms";
      EXPECT_NEAR(cal.step_ms, target, target * dl::k_step_tolerance);
      EXPECT_DOUBLE_EQ(cal.step_ms, model_step_ms(cal.shape, tflops));
      EXPECT_LE(cal.rounds, 4);
      EXPECT_LE(cal.shape.n, dl::k_gemm_max_n);
    }
  }
}

TEST(TrainingStepSizing, CalibrationThatCannotConvergeKeepsTheClosestShape) {
  // A timer that alternates between far too short and far too long: never within 10%.
  int calls = 0;
  const auto cal = dl::calibrate_gemm_step(
      10.0, {1024, 1}, [&](const dl::GemmShape&) { return ++calls % 2 == 1 ? 2.0 : 13.0; });
  EXPECT_FALSE(cal.converged);
  EXPECT_EQ(cal.rounds, dl::k_max_calibration_rounds);
  EXPECT_EQ(calls, dl::k_max_calibration_rounds);
  EXPECT_DOUBLE_EQ(cal.step_ms, 13.0);  // 30% off beats 80% off
  // A shape stuck at a bound stops early instead of timing it again.
  int stuck = 0;
  const auto small = dl::calibrate_gemm_step(0.001, {256, 1}, [&](const dl::GemmShape&) {
    ++stuck;
    return 1.0;
  });
  EXPECT_FALSE(small.converged);
  EXPECT_EQ(stuck, 1);
}

TEST(TrainingStepMetrics, IdleFractionAndFeedLimit) {
  EXPECT_DOUBLE_EQ(dl::gpu_idle_fraction(0.9, 1.0), 0.1);
  EXPECT_DOUBLE_EQ(dl::gpu_idle_fraction(0.25, 1.0), 0.75);
  EXPECT_DOUBLE_EQ(dl::gpu_idle_fraction(1.2, 1.0), 0.0);  // clock skew: never negative
  EXPECT_DOUBLE_EQ(dl::gpu_idle_fraction(0.0, 0.0), 0.0);
  // 16 samples per 5 ms step: the GPU is saturated at 3200 samples/s.
  EXPECT_DOUBLE_EQ(dl::feed_limit_samples_per_s(16, 0.005), 3200.0);
  EXPECT_DOUBLE_EQ(dl::feed_limit_samples_per_s(16, 0.0), 0.0);
}

TEST(TrainingStepEmulated, SleepsCountsAndSaysItIsEmulated) {
  dl::EmulatedStep step(std::chrono::microseconds(2000), "no CUDA device (fixture reason)");
  dl::Batch b;
  step.run(b);
  step.run(b);
  EXPECT_EQ(step.steps(), 2u);
  EXPECT_GE(step.step_seconds(), 0.004);
  EXPECT_EQ(step.label(), "consumer=emulated (no GPU: no CUDA device (fixture reason))");
  EXPECT_EQ(dl::EmulatedStep(std::chrono::microseconds(1)).label(), "consumer=emulated");
}

namespace {

// Record the order the pipeline calls the sink and the step in.
struct RecordingSink : dl::BatchSink {
  std::vector<std::string>& calls;
  explicit RecordingSink(std::vector<std::string>& c) : calls(c) {}
  void begin(const dl::Batch& b) override { calls.push_back("begin " + std::to_string(b.index)); }
  void end(const dl::Batch& b) override { calls.push_back("end " + std::to_string(b.index)); }
};
struct RecordingStep : dl::TrainingStep {
  std::vector<std::string>& calls;
  int finishes = 0;
  explicit RecordingStep(std::vector<std::string>& c) : calls(c) {}
  void run(const dl::Batch& b) override { calls.push_back("step " + std::to_string(b.index)); }
  void finish() override { ++finishes; }
  std::uint64_t steps() const override { return 0; }
  double step_seconds() const override { return 0; }
  std::string label() const override { return "recorder"; }
};

}  // namespace

TEST(TrainingStepPipeline, StepRunsBetweenBeginAndEndAndIsFinishedOnce) {
  gpubench::TempDir tmp("dl-step");
  dl::DatasetSpec s;
  s.format = dl::Format::raw;
  s.seed = 3;
  s.record_bytes = 4096;
  s.samples = 40;
  s.samples_per_shard = 40;
  const auto d = dl::ensure_dataset(tmp.path(), s);
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  dl::PipelineConfig c;
  c.workers = 1;  // one worker: batches arrive in order
  c.batch_size = 16;
  c.step = std::chrono::microseconds(50000);  // ignored: the step given to run() replaces it
  c.max_batches = 2;
  dl::Pipeline p(reader, c);
  std::vector<std::string> calls;
  RecordingSink sink(calls);
  RecordingStep step(calls);
  const auto r = p.run(&sink, &step);
  EXPECT_EQ(r.batches, 2u);
  EXPECT_LT(r.wall_s, 0.05) << "the emulated 50 ms sleep ran although a step was given";
  EXPECT_EQ(calls,
            (std::vector<std::string>{"begin 0", "step 0", "end 0", "begin 1", "step 1", "end 1"}));
  EXPECT_EQ(step.finishes, 1);
}

namespace {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

RunResult run_suite(const gpubench::TempDir& tmp, const std::string& args,
                    const std::string& profile = "quick") {
  const fs::path bin = fs::path(GPUBENCH_BIN_DIR) / "gpubench-dataloader";
  const fs::path out = tmp.path() / "stdout.txt";
  const fs::path err = tmp.path() / "stderr.txt";
  fs::create_directories(tmp.path() / "data");
  const std::string cmd =
      "env GPUBENCH_PROFILE=" + profile + " GPUBENCH_DATA_DIR='" + (tmp.path() / "data").string() +
      "' GPUBENCH_DATALOADER_DATASET_MIB=8 GPUBENCH_DATALOADER_WORKERS=1,2 '" + bin.string() +
      "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = gpubench::read_file(out);
  r.err = gpubench::read_file(err);
  return r;
}

}  // namespace

// The 5 ms step cases through the real binary: without a GPU the consumer is the emulated step
// and the label says so and why; with one it is the GEMM. Either way the GPU-busy metrics are
// reported per worker count and agree with each other.
TEST(TrainingStepBinary, GpuBusyCasesReportTheConsumerAndItsIdleFraction) {
  gpubench::TempDir tmp("dl-step-e2e");
  const auto r =
      run_suite(tmp, "--benchmark_format=json --benchmark_filter='train/.*step_us:5000/'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const bool gpu = dl::gemm_step_unavailable_reason().empty();
  int cases = 0;
  for (const auto& b : doc.at("benchmarks")) {
    const std::string name = b.at("name").get<std::string>();
    if (b.value("run_type", "") == "aggregate") continue;
    ++cases;
    ASSERT_FALSE(b.value("error_occurred", false)) << name << ": " << b.value("error_message", "");
    const std::string label = b.value("label", "");
    if (gpu) {
      EXPECT_THAT(label, HasSubstr("consumer=gemm bf16")) << name;
    } else {
      EXPECT_THAT(
          label,
          HasSubstr("consumer=emulated (no GPU: " + dl::gemm_step_unavailable_reason() + ")"))
          << name;
    }
    const double step_ms = b.at("gpu_step_ms").get<double>();
    EXPECT_GE(step_ms, gpu ? 4.5 : 5.0) << name;  // calibrated within 10%; a sleep is never short
    EXPECT_NEAR(b.at("feed_limit_samples_per_s").get<double>(), 16 / (step_ms / 1e3), 1e-6 * 3200)
        << name;
    const double idle = b.at("gpu_idle_fraction").get<double>();
    EXPECT_GE(idle, 0) << name;
    EXPECT_LT(idle, 1) << name;
    // 8 MiB is 55 samples, 4 steps at batch 16: the wall time covers every step, so the pipeline
    // cannot deliver faster than the step consumes (1% for rounding).
    EXPECT_LE(b.at("samples_per_s").get<double>(),
              b.at("feed_limit_samples_per_s").get<double>() * 1.01)
        << name;
  }
  EXPECT_EQ(cases, 2) << "one case per worker count (1, 2)";
  // --gpubench_info says which consumer the GPU-busy cases get here.
  const auto info = run_suite(tmp, "--gpubench_info");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr(gpu ? "GPU-busy train and image step cases: GEMM step (cuBLAS: "
                                      : "GPU-busy train and image step cases: emulated step: " +
                                            dl::gemm_step_unavailable_reason()));
}

// Which GPU-busy cases each profile plans: quick only the 5 ms step at every worker count; outside
// quick also 20 and 100 ms at mid workers; the 10 ms emulated step they replace is gone.
TEST(TrainingStepBinary, ProfilesPlanTheStepCases) {
  gpubench::TempDir tmp("dl-step-list");
  auto train = [](int workers, int batch, const std::string& step) {
    return "dataloader/train/format:raw/path:pread/workers:" + std::to_string(workers) +
           "/record_bytes:150528/batch:" + std::to_string(batch) + "/step_us:" + step +
           "/order:sequential/cache:warm/";
  };
  auto lists = [](const RunResult& r, const std::string& name) {
    return r.out.find(name) != std::string::npos;
  };
  const auto quick = run_suite(tmp, "--benchmark_list_tests");
  ASSERT_EQ(quick.exit_code, 0) << quick.err;
  EXPECT_TRUE(lists(quick, train(1, 16, "5000")));
  EXPECT_TRUE(lists(quick, train(2, 16, "5000")));
  EXPECT_FALSE(lists(quick, "step_us:20000/"));
  EXPECT_FALSE(lists(quick, "step_us:100000/"));
  EXPECT_FALSE(lists(quick, "step_us:10000/"));
  const auto standard = run_suite(tmp, "--benchmark_list_tests", "standard");
  ASSERT_EQ(standard.exit_code, 0) << standard.err;
  for (const char* step : {"5000", "20000", "100000"}) {
    EXPECT_TRUE(lists(standard, train(2, 16, step))) << step;
  }
  EXPECT_TRUE(lists(standard, train(1, 16, "5000")));
  EXPECT_FALSE(lists(standard, train(1, 16, "20000")));
  EXPECT_FALSE(lists(standard, train(1, 16, "100000")));
  EXPECT_FALSE(lists(standard, train(2, 64, "5000")));
  EXPECT_FALSE(lists(standard, "step_us:10000/"));
  // JPEG input feeding the 5 ms step (issue 41 item 4): every worker count outside quick.
  auto image = [](int workers) {
    return "dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/workers:" +
           std::to_string(workers) + "/step_us:5000/memory:pinned/order:shuffled/cache:warm/";
  };
  EXPECT_TRUE(lists(standard, image(1)));
  EXPECT_TRUE(lists(standard, image(2)));
  EXPECT_FALSE(lists(quick,
                     "dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/"
                     "workers:1/step_us:"));
  EXPECT_FALSE(lists(quick, image(2)));
  const auto full = run_suite(tmp, "--benchmark_list_tests", "full");
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_TRUE(lists(full, image(1)));
  EXPECT_TRUE(lists(full, image(2)));
}

// The image step cases through the real binary (standard profile, workers 1 and 2): JPEG
// decode and augmentation on the CPU workers feed the 5 ms step; without a GPU it is the
// emulated step, said in the label, and there is no H2D copy. They report the image cases'
// metrics and the GPU-busy ones, consistent with each other.
TEST(TrainingStepBinary, ImageStepCasesFeedTheStepWithJpegInput) {
  gpubench::TempDir tmp("dl-image-step");
  const auto r = run_suite(
      tmp, "--benchmark_format=json --benchmark_filter='image/.*step_us:5000/'", "standard");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  std::string jpeg_reason;
  const bool codec = dl::JpegCodec::get(&jpeg_reason) != nullptr;
  const bool gpu = dl::gemm_step_unavailable_reason().empty();
  std::vector<std::string> cases;
  for (const auto& b : doc.at("benchmarks")) {
    if (b.value("run_type", "") == "aggregate") continue;
    const std::string name = b.at("name").get<std::string>();
    cases.push_back(name.substr(0, name.find("/iterations:")));
    if (!codec) {
      EXPECT_THAT(b.value("skip_message", b.value("error_message", "")), HasSubstr(jpeg_reason));
      continue;
    }
    ASSERT_FALSE(b.value("error_occurred", false)) << name << ": " << b.value("error_message", "");
    const std::string label = b.value("label", "");
    if (gpu) {
      EXPECT_THAT(label, HasSubstr("consumer=gemm bf16")) << name;
      EXPECT_THAT(label, HasSubstr("transfers_per_batch=1")) << name;
      EXPECT_GT(b.at("h2d_GB_per_s").get<double>(), 0) << name;
    } else {
      EXPECT_EQ(label, "consumer=emulated (no GPU: " + dl::gemm_step_unavailable_reason() + ")")
          << name;
      EXPECT_FALSE(b.contains("h2d_GB_per_s")) << name << ": no copy without a GPU";
    }
    for (const char* metric : {"images_per_s", "samples_per_s", "MB_per_s", "input_MB_per_s",
                               "cpu_cores_used", "decode_fraction", "batch_p50_us"}) {
      ASSERT_TRUE(b.contains(metric)) << name << " has no " << metric;
      EXPECT_GT(b.at(metric).get<double>(), 0) << name << " " << metric;
    }
    // 224x224x3 bf16 + a 4-byte label per image.
    EXPECT_NEAR(b.at("MB_per_s").get<double>() / b.at("images_per_s").get<double>(),
                (301056 + 4) / 1e6, 1e-6)
        << name;
    const double step_ms = b.at("gpu_step_ms").get<double>();
    EXPECT_GE(step_ms, gpu ? 4.5 : 5.0) << name;
    // 4 images a batch.
    EXPECT_NEAR(b.at("feed_limit_samples_per_s").get<double>(), 4 / (step_ms / 1e3), 1e-3) << name;
    const double idle = b.at("gpu_idle_fraction").get<double>();
    EXPECT_GE(idle, 0) << name;
    EXPECT_LT(idle, 1) << name;
    // The wall time covers every step: no faster than the step consumes (1% for rounding).
    EXPECT_LE(b.at("images_per_s").get<double>(),
              b.at("feed_limit_samples_per_s").get<double>() * 1.01)
        << name;
  }
  const std::string name =
      "dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/workers:W/step_us:5000/"
      "memory:pinned/order:shuffled/cache:warm";
  std::vector<std::string> expected;
  for (const char* w : {"1", "2"}) {
    expected.push_back(name.substr(0, name.find("workers:W")) + "workers:" + w +
                       name.substr(name.find("workers:W") + 9));
  }
  EXPECT_EQ(cases, expected);
}
