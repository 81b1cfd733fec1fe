// Loader worker sizing (issue 41 item 5, compare/dataloader/worker_sizing.hpp): pipelines, the
// 95%-of-best rule, the multiple of the usable cores, the flags and the verdict against the "about
// 2x cores" advice, and the GPU-busy knee (issue 41 item 4) over the train cases' idle fraction.
// Rows are made up here (FIXTURE values), not measurements.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compare/dataloader/worker_sizing.hpp"
#include "compare/names.hpp"
#include "util/error.hpp"

namespace gpubench::compare {
namespace {

const std::string k_read = "dataloader/read/format:raw/path:pread/workers:";
const std::string k_read_rest = "/record_bytes:4096/batch:64/order:sequential/cache:warm";

results::ResultRow row(const std::string& name, const std::string& metric,
                       std::vector<double> values) {
  const results::ParsedName parsed = results::parse_benchmark_name(name, "");
  results::ResultRow r;
  r.suite = parsed.suite;
  r.benchmark = name;
  r.case_name = parsed.case_name;
  r.params = parsed.params;
  r.metric = metric;
  r.unit = metric == "images_per_s" ? "images/s" : "samples/s";
  r.values = std::move(values);
  return r;
}

std::string read_name(int workers) {
  return k_read + std::to_string(workers) + k_read_rest + "/iterations:3/manual_time";
}

WorkerSizing sizing_of(const std::vector<results::ResultRow>& rows, std::optional<int> cores,
                       bool recorded = true) {
  WorkerSizing s;
  s.run_id = 7;
  s.usable_cores = cores;
  s.cores_recorded = recorded && cores.has_value();
  s.pipelines = size_pipelines(rows);
  return s;
}

TEST(WorkerSizing, GroupsCasesByNameWithoutWorkersAndLeavesOthersOut) {
  const std::vector<results::ResultRow> rows = {
      row(read_name(1), "samples_per_s", {100}),
      row(read_name(2), "samples_per_s", {190}),
      row(read_name(2), "MB_per_s", {999}),  // another metric: not the pipeline's throughput
      row("dataloader/train/format:raw/path:pread/workers:1/record_bytes:4096/batch:64/"
          "step_us:1000/order:sequential/cache:warm",
          "samples_per_s", {50}),
      row("dataloader/ceiling/kind:memcpy/threads:2", "samples_per_s", {1}),  // no workers:
      row("memory/triad/workers:2", "samples_per_s", {1}),                    // another suite
  };
  const std::vector<PipelineSizing> p = size_pipelines(rows);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].pipeline, "dataloader/read/format:raw/path:pread" + k_read_rest);
  ASSERT_EQ(p[0].points.size(), 2u);
  EXPECT_EQ(p[0].points[1].workers, 2);
  EXPECT_DOUBLE_EQ(p[0].points[1].median, 190);
  EXPECT_EQ(p[0].metric, "samples_per_s");
  EXPECT_EQ(p[1].pipeline,
            "dataloader/train/format:raw/path:pread/record_bytes:4096/batch:64/step_us:1000/"
            "order:sequential/cache:warm");
}

TEST(WorkerSizing, AnswerIsTheSmallestCountAtNinetyFivePercentOfTheBestMedian) {
  // Medians 100, 191, 200: 191 >= 0.95 x 200 = 190, so 2 workers; the repetitions' median counts.
  std::vector<results::ResultRow> rows = {row(read_name(1), "samples_per_s", {100, 101, 99}),
                                          row(read_name(2), "samples_per_s", {191}),
                                          row(read_name(4), "samples_per_s", {200, 150, 210})};
  PipelineSizing p = size_pipelines(rows).at(0);
  EXPECT_EQ(p.best_workers, 4);
  EXPECT_EQ(p.answer_workers, 2);
  EXPECT_TRUE(p.best_at_largest);
  // Just below 95%: the best itself.
  rows[1] = row(read_name(2), "samples_per_s", {189});
  p = size_pipelines(rows).at(0);
  EXPECT_EQ(p.answer_workers, 4);
}

TEST(WorkerSizing, VerdictStatesTheMultipleOfTheUsableCoresAgainstTheAdvice) {
  // The best at 2 of 1, 2, 4 workers on 2 usable cores: 1.0x, fewer than the 2x advice.
  const std::vector<results::ResultRow> rows = {row(read_name(1), "samples_per_s", {100}),
                                                row(read_name(2), "samples_per_s", {200}),
                                                row(read_name(4), "samples_per_s", {198})};
  const WorkerSizing s = sizing_of(rows, 2);
  const PipelineSizing& p = s.pipelines.at(0);
  EXPECT_FALSE(p.best_at_largest);
  const std::string v = sizing_verdict(p, s);
  EXPECT_EQ(
      v.rfind("95% of best at 2 workers = 1.0x the 2 usable cores: fewer than the 2x advice", 0),
      0u)
      << v;
  EXPECT_NE(v.find("medians only (1 value at a count, fewer than the 3 an interval needs)"),
            std::string::npos)
      << v;
  EXPECT_EQ(v.find("may rise"), std::string::npos) << v;
  // On one usable core the same answer is 2.0x: about the advice; on half a core's worth (the
  // advice at 2 of 8 cores) fewer.
  EXPECT_NE(sizing_verdict(p, sizing_of(rows, 1)).find("= 2.0x the 1 usable cores: about the 2x"),
            std::string::npos);
  EXPECT_NE(sizing_verdict(p, sizing_of(rows, 8)).find("= 0.25x the 8 usable cores: fewer"),
            std::string::npos);
  // The host's logical CPUs when the run recorded no usable count, said so.
  EXPECT_NE(sizing_verdict(p, sizing_of(rows, 2, false)).find("1.0x the 2 logical CPUs"),
            std::string::npos);
  EXPECT_NE(sizing_verdict(p, sizing_of(rows, std::nullopt)).find("usable cores unknown"),
            std::string::npos);
}

TEST(WorkerSizing, BestAtTheLargestCountSaysItMayRiseAndHowToAsk) {
  const std::vector<results::ResultRow> rows = {row(read_name(1), "samples_per_s", {100}),
                                                row(read_name(2), "samples_per_s", {200})};
  const WorkerSizing s = sizing_of(rows, 2);
  const std::string v = sizing_verdict(s.pipelines.at(0), s);
  EXPECT_NE(v.find("95% of best at 2 workers = 1.0x the 2 usable cores: the 2x advice not checked; "
                   "best at the largest count measured (2): may rise with more workers: ask with "
                   "GPUBENCH_DATALOADER_WORKERS=1,2,4,8"),
            std::string::npos)
      << v;
  // A multiple already above 3x is "more" even though the best may still rise.
  const std::vector<results::ResultRow> many = {row(read_name(1), "samples_per_s", {10}),
                                                row(read_name(8), "samples_per_s", {100})};
  const WorkerSizing m = sizing_of(many, 2);
  EXPECT_NE(
      sizing_verdict(m.pipelines.at(0), m).find("= 4.0x the 2 usable cores: more than the 2x"),
      std::string::npos);
}

TEST(WorkerSizing, OneWorkerCountIsNotEnoughPoints) {
  const std::vector<results::ResultRow> rows = {row(read_name(2), "samples_per_s", {200, 201})};
  const WorkerSizing s = sizing_of(rows, 4);
  const PipelineSizing& p = s.pipelines.at(0);
  EXPECT_FALSE(p.enough_points);
  EXPECT_FALSE(p.best_at_largest);
  EXPECT_EQ(sizing_verdict(p, s), "not enough points (1 worker count measured: 2)");
  EXPECT_NE(advice_summary(s).find("1 with not enough points (measured at one worker count)"),
            std::string::npos);
  // Counted in the summary, not listed line by line.
  EXPECT_EQ(worker_sizing_lines(s).size(), 2u);
  EXPECT_TRUE(worker_sizing_json(s)["pipelines"][0]["answer_workers"].is_null());
}

TEST(WorkerSizing, SkippedFailedAndSlowedSamplesAreNoFigure) {
  std::vector<results::ResultRow> rows = {row(read_name(1), "samples_per_s", {100}),
                                          row(read_name(2), "samples_per_s", {}),
                                          row(read_name(4), "samples_per_s", {500, 150})};
  rows[1].status = results::BenchmarkStatus::skipped;
  rows[2].throttled = {1, 0};  // the 500 was under a thermal or hardware slowdown
  const PipelineSizing p = size_pipelines(rows).at(0);
  ASSERT_EQ(p.points.size(), 2u);
  EXPECT_EQ(p.points[1].workers, 4);
  EXPECT_DOUBLE_EQ(p.points[1].median, 150);
  EXPECT_EQ(p.answer_workers, 4);
  // A pipeline with nothing measured (every count skipped) is none.
  rows = {row(read_name(1), "samples_per_s", {})};
  rows[0].status = results::BenchmarkStatus::skipped;
  EXPECT_TRUE(size_pipelines(rows).empty());
}

TEST(WorkerSizing, ImageCasesUseImagesPerSecond) {
  const std::string image =
      "dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/workers:";
  const std::string rest = "/order:shuffled/cache:warm";
  const std::vector<results::ResultRow> rows = {
      row(image + "1" + rest, "samples_per_s", {900}),  // would make 1 worker the best
      row(image + "2" + rest, "samples_per_s", {100}),
      row(image + "1" + rest, "images_per_s", {100}),
      row(image + "2" + rest, "images_per_s", {300})};
  const PipelineSizing p = size_pipelines(rows).at(0);
  EXPECT_EQ(p.metric, "images_per_s");
  EXPECT_EQ(p.best_workers, 2);
  EXPECT_EQ(p.answer_workers, 2);
}

TEST(WorkerSizing, IntervalsFromRepetitionsGiveTheAnswerARange) {
  // 5 repetitions a count. 2 workers: median 192 of 200 (96%) but spread +-10%, so its 99%
  // interval reaches below 95%: the answer is 2, within the intervals 2 to 4. 1 worker is far
  // below (its interval never reaches 95%).
  const std::vector<results::ResultRow> rows = {
      row(read_name(1), "samples_per_s", {100, 101, 99, 100, 102}),
      row(read_name(2), "samples_per_s", {172, 212, 192, 180, 205}),
      row(read_name(4), "samples_per_s", {200, 201, 199, 200, 202})};
  const WorkerSizing s = sizing_of(rows, 4);
  const PipelineSizing& p = s.pipelines.at(0);
  ASSERT_TRUE(p.intervals);
  EXPECT_EQ(p.answer_workers, 2);
  EXPECT_EQ(p.answer_low, 2);
  EXPECT_EQ(p.answer_high, 4);
  ASSERT_TRUE(p.points[1].ci_low && p.points[1].ci_high);
  EXPECT_LT(*p.points[1].ci_low, 0.95);
  EXPECT_GT(*p.points[1].ci_high, 0.95);
  EXPECT_LT(*p.points[0].ci_high, 0.95);
  EXPECT_NE(sizing_verdict(p, s).find("at 2 workers (2 to 4 within 99% intervals)"),
            std::string::npos)
      << sizing_verdict(p, s);
  // Tight repetitions at 2 workers: the range closes onto the answer.
  const std::vector<results::ResultRow> tight = {
      row(read_name(1), "samples_per_s", {100, 101, 99, 100, 102}),
      row(read_name(2), "samples_per_s", {196, 197, 196, 198, 197}),
      row(read_name(4), "samples_per_s", {200, 201, 199, 200, 202})};
  const PipelineSizing t = size_pipelines(tight).at(0);
  EXPECT_EQ(t.answer_low, 2);
  EXPECT_EQ(t.answer_high, 2);
}

TEST(WorkerSizing, LinesAndSummaryCoverEveryPipeline) {
  const std::vector<results::ResultRow> rows = {
      row(read_name(1), "samples_per_s", {100}), row(read_name(2), "samples_per_s", {200}),
      row(read_name(4), "samples_per_s", {199}),
      row("dataloader/h2d/format:raw/path:pread/workers:2/record_bytes:4096/batch:64/step_us:1000/"
          "memory:pinned/order:sequential/cache:warm",
          "samples_per_s", {80})};
  const WorkerSizing s = sizing_of(rows, 2);
  const std::vector<std::string> lines = worker_sizing_lines(s);
  ASSERT_EQ(lines.size(), 1u + 3 + 1);  // the h2d pipeline's one count is in the summary only
  EXPECT_EQ(lines[0].rfind("Loader workers (run 7, 2 usable cores): ", 0), 0u) << lines[0];
  EXPECT_EQ(lines.back(),
            "  against the 'about 2x cores' advice, of 2 pipelines: 1 need fewer (1.0x); 1 with "
            "not enough points (measured at one worker count)");
  EXPECT_TRUE(worker_sizing_lines(sizing_of({}, 2)).empty());
  const nlohmann::json j = worker_sizing_json(s);
  EXPECT_EQ(j["schema"], "gpubench.loader_workers/1");
  EXPECT_EQ(j["usable_cores"], 2);
  EXPECT_DOUBLE_EQ(j["pipelines"][1]["multiple"].get<double>(), 1.0);
}

TEST(GpuBusyKnee, NamesTheWorkerCountWhereTheGpuStartsWaiting) {
  // Synthetic points (fixture): 1 worker feeds 1900 samples/s to a GPU saturated at 3200.
  const auto knee =
      find_gpu_busy_knee({{4, 3190, 0.01}, {1, 1900, 0.41}, {2, 3150, 0.04}, {8, 3195, 0.005}});
  ASSERT_TRUE(knee.fed);
  EXPECT_EQ(knee.fed_workers, 2);
  EXPECT_DOUBLE_EQ(knee.fed_samples_per_s, 3150);
  ASSERT_TRUE(knee.waits);
  EXPECT_EQ(knee.waiting_workers, 1);
  EXPECT_DOUBLE_EQ(knee.waiting_samples_per_s, 1900);
  EXPECT_EQ(describe_knee(knee),
            "the GPU waits below 2 workers (1 worker: 1900 samples/s, 41% idle); busy from 2 "
            "workers (3150 samples/s)");
  // Exactly 5% idle is still busy; just above is waiting.
  EXPECT_EQ(find_gpu_busy_knee({{1, 100, 0.05}}).fed_workers, 1);
  EXPECT_FALSE(find_gpu_busy_knee({{1, 100, 0.0501}}).fed);
}

TEST(GpuBusyKnee, BusyPointBelowAWaitingOneDoesNotCount) {
  // Noise: 1 worker looked busy, 2 did not; the GPU is only fed from 4.
  const auto knee = find_gpu_busy_knee({{1, 100, 0.02}, {2, 150, 0.30}, {4, 300, 0.01}});
  EXPECT_EQ(knee.fed_workers, 4);
  EXPECT_EQ(knee.waiting_workers, 2);
  EXPECT_DOUBLE_EQ(knee.waiting_idle_fraction, 0.30);
}

TEST(GpuBusyKnee, BusyAtFewerWorkersButWaitingAgainAtTheMostIsNotEveryCount) {
  // As measured on a 2-core machine: 3 and 4 workers compete with the consumer for the cores.
  const auto knee =
      find_gpu_busy_knee({{1, 3017, 0.03}, {2, 3001, 0.02}, {3, 2900, 0.08}, {4, 2869, 0.08}});
  EXPECT_FALSE(knee.fed);
  EXPECT_EQ(knee.busy_at_fewer_workers, 1);
  EXPECT_EQ(knee.waiting_workers, 4);
  const std::string text = describe_knee(knee);
  EXPECT_EQ(text.find("every worker count"), std::string::npos) << text;
  EXPECT_EQ(text.rfind("the GPU is busy at 1 worker (3017 samples/s, 3% idle) but waits again at "
                       "more (4 workers: ",
                       0),
            0u)
      << text;
  EXPECT_EQ(find_gpu_busy_knee({{1, 100, 0.9}, {2, 190, 0.8}}).busy_at_fewer_workers, 0);
}

TEST(GpuBusyKnee, AlwaysWaitingAndNeverWaiting) {
  const auto starved = find_gpu_busy_knee({{1, 100, 0.9}, {2, 190, 0.8}});
  EXPECT_FALSE(starved.fed);
  EXPECT_EQ(starved.waiting_workers, 2);
  EXPECT_EQ(describe_knee(starved).rfind("the GPU waits at every worker count", 0), 0u);
  const auto fed = find_gpu_busy_knee({{1, 100, 0.01}, {2, 100, 0.0}});
  EXPECT_TRUE(fed.fed);
  EXPECT_FALSE(fed.waits);
  EXPECT_EQ(fed.fed_workers, 1);
  EXPECT_NE(describe_knee(fed).find("never waits"), std::string::npos);
}

TEST(GpuBusyKnee, RejectsBadPoints) {
  EXPECT_THROW((void)find_gpu_busy_knee({}), Error);
  EXPECT_THROW((void)find_gpu_busy_knee({{2, 1, 0.1}, {2, 1, 0.2}}), Error);
  EXPECT_THROW((void)find_gpu_busy_knee({{0, 1, 0.1}}), Error);
}

// The train cases' gpu_idle_fraction (FIXTURE values) pooled by worker count beside
// samples_per_s: the median idle a count, and the knee over them in the lines and the JSON.
const std::string k_train = "dataloader/train/format:raw/path:pread/workers:";
const std::string k_train_rest =
    "/record_bytes:4096/batch:64/step_us:5000/order:sequential/cache:warm";

std::string train_name(int workers) {
  return k_train + std::to_string(workers) + k_train_rest + "/manual_time";
}

TEST(GpuBusyKnee, PoolsTheIdleFractionPerWorkerCountAndStatesTheKnee) {
  std::vector<results::ResultRow> rows = {
      row(train_name(1), "samples_per_s", {8000, 7950, 8050}),
      row(train_name(1), "gpu_idle_fraction", {0.37, 0.375, 0.38}),
      row(train_name(2), "samples_per_s", {12600, 12550, 12650}),
      row(train_name(2), "gpu_idle_fraction", {0.02, 0.0, 0.012}),  // 0: a busy GPU, a value
      row(train_name(4), "samples_per_s", {12700, 12690, 12710}),
      row(train_name(4), "gpu_idle_fraction", {0.0, 0.0, 0.0}),
  };
  const WorkerSizing s = sizing_of(rows, 4);
  ASSERT_EQ(s.pipelines.size(), 1u);  // the idle rows join the pipeline, not one of their own
  const PipelineSizing& p = s.pipelines[0];
  EXPECT_EQ(p.metric, "samples_per_s");
  ASSERT_EQ(p.points.size(), 3u);
  EXPECT_DOUBLE_EQ(p.points[0].gpu_idle_fraction.value_or(-1), 0.375);
  EXPECT_DOUBLE_EQ(p.points[1].gpu_idle_fraction.value_or(-1), 0.012);
  EXPECT_DOUBLE_EQ(p.points[2].gpu_idle_fraction.value_or(-1), 0.0);
  ASSERT_TRUE(p.knee);
  EXPECT_EQ(p.knee->fed_workers, 2);
  EXPECT_EQ(p.knee->waiting_workers, 1);
  EXPECT_FALSE(p.knee->emulated);
  const std::string knee =
      "GPU idle by workers: 1: 38%, 2: 1%, 4: 0%: the GPU waits below 2 workers (1 worker: 8000 "
      "samples/s, 38% idle); busy from 2 workers (12600 samples/s)";
  EXPECT_EQ(knee_text(p), knee);
  const std::vector<std::string> lines = worker_sizing_lines(s);
  ASSERT_EQ(lines.size(), 6u);  // heading, name, points, verdict, knee, summary
  EXPECT_EQ(lines[4], "    " + knee);
  const nlohmann::json j = worker_sizing_json(s);
  const nlohmann::json& busy = j["pipelines"][0]["gpu_busy"];
  EXPECT_EQ(busy["fed_workers"], 2);
  EXPECT_EQ(busy["waiting_workers"], 1);
  EXPECT_DOUBLE_EQ(busy["waiting_per_s"].get<double>(), 8000);
  EXPECT_DOUBLE_EQ(busy["waiting_idle_fraction"].get<double>(), 0.375);
  EXPECT_EQ(busy["text"], knee);
  EXPECT_DOUBLE_EQ(j["pipelines"][0]["points"][0]["gpu_idle_fraction"].get<double>(), 0.375);

  // A pipeline without the metric (a read case) has no knee, no fourth line, null in the JSON.
  const WorkerSizing r = sizing_of(
      {row(read_name(1), "samples_per_s", {100}), row(read_name(2), "samples_per_s", {190})}, 4);
  EXPECT_FALSE(r.pipelines.at(0).knee);
  EXPECT_EQ(knee_text(r.pipelines[0]), "");
  EXPECT_EQ(worker_sizing_lines(r).size(), 5u);
  EXPECT_TRUE(worker_sizing_json(r)["pipelines"][0]["gpu_busy"].is_null());
  EXPECT_TRUE(worker_sizing_json(r)["pipelines"][0]["points"][0]["gpu_idle_fraction"].is_null());
}

TEST(GpuBusyKnee, EmulatedStepSaysSoAndOutOfRangeIdleIsNoFigure) {
  std::vector<results::ResultRow> rows = {
      row(train_name(1), "samples_per_s", {8000}),
      row(train_name(1), "gpu_idle_fraction", {0.5, 1.5}),  // 1.5: no fraction, left out
      row(train_name(2), "samples_per_s", {9000}),
      row(train_name(2), "gpu_idle_fraction", {0.3}),
  };
  rows[1].label = rows[3].label = "consumer=emulated (no GPU: fixture reason)";
  const WorkerSizing s = sizing_of(rows, 4);
  const PipelineSizing& p = s.pipelines.at(0);
  EXPECT_DOUBLE_EQ(p.points.at(0).gpu_idle_fraction.value_or(-1), 0.5);
  ASSERT_TRUE(p.knee);
  EXPECT_TRUE(p.knee->emulated);
  EXPECT_EQ(knee_text(p),
            "step idle by workers: 1: 50%, 2: 30%: the emulated step (no GPU) waits at every "
            "worker count measured (up to 2 workers: 9000 samples/s, 30% idle): the input "
            "pipeline is the bottleneck");
}

// compare/names.hpp: shared by peers/, dataloader/ and render/.
TEST(CompareNames, ShortHostAndRunControlParams) {
  EXPECT_EQ(short_host("Node1.Example.com"), "node1");
  EXPECT_EQ(short_host("node1"), "node1");
  EXPECT_NE(short_host("node1"), short_host("node10.example.com"));
  for (const char* key : {"iterations", "repeats", "min_time", "min_warmup_time", "manual_time",
                          "real_time", "process_time"}) {
    EXPECT_TRUE(is_run_control_param(key)) << key;
  }
  EXPECT_FALSE(is_run_control_param("workers"));
  EXPECT_FALSE(is_run_control_param("batch"));
}

}  // namespace
}  // namespace gpubench::compare
