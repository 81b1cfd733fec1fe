// Loader worker sizing (issue 41 item 5) and the GPU-busy knee (item 4: the train pipeline's idle
// fraction per worker count) through the real CLI: `gpubench report` (text, Markdown, HTML, JSON)
// and `gpubench doctor` (text, JSON) on a FIXTURE database
// (tests/fixtures/reports/make_dataloader_workers.py: made-up numbers, imported into a real SQLite
// file), doctor without a database and with another host's run, and a real dataloader run of this
// machine (quick profile, GPUBENCH_DATALOADER_WORKERS=1,2, raw warm reads only; standard for the
// image step cases).
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

std::string this_host() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 && name[0] ? std::string(name) : "unknown";
}

// Writes the fixture for `host` into the workspace and imports it.
void import_fixture(const Workspace& ws, const std::string& host, int usable_cpus = 4) {
  harness::ProcessSpec spec;
  const fs::path file = ws.root() / "dataloader_workers.json";
  spec.argv = {"/usr/bin/env",
               "python3",
               (fs::path(GPUBENCH_SOURCE_DIR) / "tests/fixtures/reports/make_dataloader_workers.py")
                   .string(),
               "--out",
               file.string(),
               "--host",
               host,
               "--usable-cpus",
               std::to_string(usable_cpus)};
  spec.timeout_s = 60;
  const harness::ProcessResult made = harness::run_process(spec);
  ASSERT_EQ(made.exit_code.value_or(-1), 0) << made.stderr_tail;
  const CliResult r = ws.run({"import", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// The train pipeline's knee line (FIXTURE idle fractions: 0.375 at 1 worker, 0.016 at 2).
const char* k_knee =
    "GPU idle by workers: 1: 38%, 2: 2%: the GPU waits below 2 workers (1 worker: 8000 "
    "samples/s, 38% idle); busy from 2 workers (12600 samples/s)";

const char* k_read =
    "dataloader/read/format:raw/path:pread/record_bytes:150528/batch:64/order:sequential/"
    "cache:warm";

TEST(E2eWorkerSizing, ReportStatesEachPipelinesWorkerCountInEveryFormat) {
  Workspace ws;
  import_fixture(ws, "fixture-loader-a");
  const CliResult text = ws.run({"report", "1"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out,
                       "Loader workers (run 1, 4 usable cores): the smallest worker "
                       "count at 95% of each pipeline's best"))
      << text.out;
  EXPECT_TRUE(contains(text.out, std::string("  ") + k_read + "\n")) << text.out;
  EXPECT_TRUE(contains(text.out,
                       "    samples_per_s by workers: 1: 1000 (50.0%), 2: 1920 (96.0%), "
                       "4: 2000 (100%), 8: 1980 (99.0%)"))
      << text.out;
  // 5 repetitions a count: the answer with its range within the intervals; 0.5x of 4 cores.
  EXPECT_TRUE(contains(text.out,
                       "    95% of best at 2 workers (2 to 4 within 99% intervals) = "
                       "0.50x the 4 usable cores: fewer than the 2x advice\n"))
      << text.out;
  // train: the best at the largest count; h2d: one count; image: images_per_s, not samples_per_s.
  EXPECT_TRUE(contains(text.out,
                       "best at the largest count measured (2): may rise with more "
                       "workers: ask with GPUBENCH_DATALOADER_WORKERS=1,2,4,8,16"))
      << text.out;
  EXPECT_FALSE(contains(text.out, "dataloader/h2d/")) << text.out;  // one count: the summary's
  // The train pipeline's GPU-busy knee: a fourth line under its verdict; read has none.
  EXPECT_TRUE(contains(text.out,
                       "GPUBENCH_DATALOADER_WORKERS=1,2,4,8,16\n    " + std::string(k_knee) + "\n"))
      << text.out;
  EXPECT_EQ(text.out.find("GPU idle by workers"), text.out.rfind("GPU idle by workers"))
      << text.out;  // one pipeline has the metric
  EXPECT_TRUE(contains(text.out,
                       "    images_per_s by workers: 1: 300 (30.0%), 2: 580 (58.0%), "
                       "4: 900 (90.0%), 8: 1000 (100%)"))
      << text.out;
  EXPECT_TRUE(contains(text.out,
                       "95% of best at 8 workers = 2.0x the 4 usable cores: the 2x "
                       "advice not checked; best at the largest count measured (8)"))
      << text.out;
  EXPECT_TRUE(contains(text.out,
                       "  against the 'about 2x cores' advice, of 4 pipelines: 1 need fewer "
                       "(0.50x); 2 not checked (best at the largest count measured) (0.50x to "
                       "2.0x); 1 with not enough points (measured at one worker count)\n"))
      << text.out;

  const CliResult md = ws.run({"report", "1", "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(contains(md.out, "\n### Loader workers\n")) << md.out;
  EXPECT_TRUE(contains(md.out,
                       "| pipeline | throughput by workers (share of the best) | worker "
                       "count at 95% | GPU idle by workers, where it starts waiting |\n"
                       "|---|---|---|---|\n"))
      << md.out;
  EXPECT_TRUE(contains(md.out, std::string(" | ") + k_knee + " |\n")) << md.out;
  EXPECT_TRUE(contains(md.out, "advice | — |\n")) << md.out;  // read: no idle fraction

  const CliResult html = ws.run({"report", "1", "--format", "html"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_TRUE(contains(html.out, "<h2>Loader workers</h2>")) << html.out;
  EXPECT_TRUE(contains(html.out, "0.50x the 4 usable cores: fewer than the 2x advice")) << html.out;
  EXPECT_TRUE(contains(html.out, "<th>GPU idle by workers, where it starts waiting</th>"))
      << html.out;
  EXPECT_TRUE(contains(html.out, std::string("<td>") + k_knee + "</td>")) << html.out;

  const CliResult json = ws.run({"report", "1", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const nlohmann::json& w = doc.at("loader_workers");
  EXPECT_EQ(w.at("usable_cores"), 4);
  EXPECT_EQ(w.at("cores_recorded"), true);
  ASSERT_EQ(w.at("pipelines").size(), 4u);
  const nlohmann::json& read = w.at("pipelines").at(2);  // h2d, image, read, train by name
  EXPECT_EQ(read.at("pipeline"), k_read);
  EXPECT_EQ(read.at("answer_workers"), 2);
  EXPECT_EQ(read.at("answer_high"), 4);
  EXPECT_DOUBLE_EQ(read.at("multiple").get<double>(), 0.5);
  EXPECT_EQ(read.at("points").at(1).at("n"), 5);
  EXPECT_FALSE(read.at("points").at(1).at("ci_low").is_null());
  EXPECT_EQ(w.at("pipelines").at(0).at("verdict"),
            "not enough points (1 worker count measured: 2)");
  EXPECT_TRUE(read.at("gpu_busy").is_null());
  const nlohmann::json& train = w.at("pipelines").at(3);
  EXPECT_DOUBLE_EQ(train.at("points").at(0).at("gpu_idle_fraction").get<double>(), 0.375);
  EXPECT_DOUBLE_EQ(train.at("points").at(1).at("gpu_idle_fraction").get<double>(), 0.016);
  const nlohmann::json& busy = train.at("gpu_busy");
  EXPECT_EQ(busy.at("fed_workers"), 2);
  EXPECT_EQ(busy.at("waiting_workers"), 1);
  EXPECT_DOUBLE_EQ(busy.at("waiting_per_s").get<double>(), 8000);
  EXPECT_EQ(busy.at("emulated"), false);
  EXPECT_EQ(busy.at("text"), k_knee);
}

TEST(E2eWorkerSizing, ReportOfARunWithoutUsableCpusSaysLogicalCpus) {
  Workspace ws;
  import_fixture(ws, "fixture-loader-a", 0);  // the context key left out, as runs before it
  const CliResult r = ws.run({"report", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "8 logical CPUs (the run recorded no usable count)")) << r.out;
  EXPECT_TRUE(contains(r.out, "= 0.25x the 8 logical CPUs")) << r.out;
}

TEST(E2eWorkerSizing, DoctorStatesUsableCoresAndTheNewestRunOfThisHost) {
  Workspace ws;
  // No database yet: how to get the sizing.
  CliResult r = ws.run({"doctor"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  EXPECT_TRUE(
      contains(r.out, "Loader workers (a fact of this host, not a check)\n  usable cores: "))
      << r.out;
  EXPECT_TRUE(contains(r.out, "no database '" + ws.db().string() +
                                  "': `gpubench run --suite "
                                  "dataloader` measures"))
      << r.out;
  // Another host's run is not this machine's.
  import_fixture(ws, "fixture-other-host");
  r = ws.run({"doctor"});
  EXPECT_TRUE(contains(r.out, "no dataloader run of host " + this_host() + " in '")) << r.out;
  // This host's run: the sizing from it.
  import_fixture(ws, this_host());
  r = ws.run({"doctor"});
  EXPECT_TRUE(contains(r.out, "newest dataloader run of this host: run 2 (")) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "  against the 'about 2x cores' advice, of 4 pipelines: 1 need "
                       "fewer (0.50x);"))
      << r.out;
  EXPECT_TRUE(contains(r.out, std::string("    ") + k_read +
                                  ": 95% of best at 2 workers (2 to 4 within 99% intervals) = "
                                  "0.50x the 4 usable cores: fewer than the 2x advice"))
      << r.out;
  EXPECT_TRUE(contains(r.out, std::string("\n      ") + k_knee + "\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "each pipeline's figures: gpubench report 2")) << r.out;
  r = ws.run({"doctor", "--format", "json"});
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  const nlohmann::json& w = doc.at("loader_workers");
  EXPECT_GE(w.at("usable_cores").get<int>(), 1);
  EXPECT_EQ(w.at("sizing").at("run"), 2);
  EXPECT_TRUE(w.at("why_none").is_null());
  EXPECT_FALSE(doc.at("checks").empty());  // the checks are unchanged beside it
}

TEST(E2eWorkerSizing, RealDataloaderRunOfThisMachine) {
  if (!fs::exists(fs::path(GPUBENCH_BIN_DIR) / "gpubench-dataloader")) {
    GTEST_SKIP() << "gpubench-dataloader not built";
  }
  Workspace ws;
  fs::create_directories(ws.root() / "data");
  // Raw warm reads through pread, 1 and 2 workers: the quick profile's worker sweep at its
  // smallest (a few seconds; the dataset is generated into the workspace).
  const CliResult run =
      ws.run({"run", "--suite", "dataloader", "--profile", "quick", "--filter",
              "dataloader/read/format:raw/path:pread/workers:[0-9]+/record_bytes:[0-9]{6,}/.*"
              "order:sequential/cache:warm"},
             {{"GPUBENCH_DATALOADER_WORKERS", "1,2"},
              {"GPUBENCH_DATA_DIR", (ws.root() / "data").string()}},
             600);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const CliResult r = ws.run({"report", "1", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json w = nlohmann::json::parse(r.out).at("loader_workers");
  // The suite recorded its usable CPUs, and each pipeline has both counts measured.
  EXPECT_EQ(w.at("cores_recorded"), true) << w.dump(1);
  EXPECT_GE(w.at("usable_cores").get<int>(), 1);
  ASSERT_FALSE(w.at("pipelines").empty()) << w.dump(1);
  for (const nlohmann::json& p : w.at("pipelines")) {
    EXPECT_EQ(p.at("points").size(), 2u) << p.dump(1);
    EXPECT_EQ(p.at("enough_points"), true);
    const int answer = p.at("answer_workers").get<int>();
    EXPECT_TRUE(answer == 1 || answer == 2) << p.dump(1);
    EXPECT_EQ(p.at("best_at_largest"), p.at("best_workers") == 2);
  }
  const CliResult doctor =
      ws.run({"doctor"}, {{"GPUBENCH_DATA_DIR", (ws.root() / "data").string()}});
  EXPECT_TRUE(contains(doctor.out, "newest dataloader run of this host: run 1 (")) << doctor.out;
}

TEST(E2eWorkerSizing, RealTrainRunStatesWhereTheStepWaits) {
  if (!fs::exists(fs::path(GPUBENCH_BIN_DIR) / "gpubench-dataloader")) {
    GTEST_SKIP() << "gpubench-dataloader not built";
  }
  Workspace ws;
  fs::create_directories(ws.root() / "data");
  // The 5 ms step at 1 and 2 workers (quick: 12 batches an epoch, a few seconds): the GEMM step
  // on a GPU, the emulated one without.
  const CliResult run = ws.run({"run", "--suite", "dataloader", "--profile", "quick", "--filter",
                                "dataloader/train/format:raw/path:pread/workers:[0-9]+/.*"
                                "step_us:5000/.*"},
                               {{"GPUBENCH_DATALOADER_WORKERS", "1,2"},
                                {"GPUBENCH_DATA_DIR", (ws.root() / "data").string()}},
                               600);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const CliResult r = ws.run({"report", "1", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json w = nlohmann::json::parse(r.out).at("loader_workers");
  ASSERT_FALSE(w.at("pipelines").empty()) << w.dump(1);
  for (const nlohmann::json& p : w.at("pipelines")) {
    ASSERT_EQ(p.at("points").size(), 2u) << p.dump(1);
    for (const nlohmann::json& point : p.at("points")) {
      const double idle = point.at("gpu_idle_fraction").get<double>();
      EXPECT_GE(idle, 0.0);
      EXPECT_LE(idle, 1.0);
    }
    const nlohmann::json& busy = p.at("gpu_busy");
    ASSERT_FALSE(busy.is_null()) << p.dump(1);
    EXPECT_TRUE(busy.at("fed").get<bool>() || busy.at("waits").get<bool>());
    const std::string text = busy.at("text");
    EXPECT_EQ(text.rfind(busy.at("emulated").get<bool>() ? "step idle by workers: 1: "
                                                         : "GPU idle by workers: 1: ",
                         0),
              0u)
        << text;
  }
  const CliResult shown = ws.run({"report", "1"});
  EXPECT_TRUE(contains(shown.out, "idle by workers: 1: ")) << shown.out;
}

// JPEG input feeding the 5 ms step (issue 41 item 4), standard profile, 1 and 2 workers: the
// report's knee line for the image pipeline, in images/s (the GEMM step on a GPU, the emulated
// one without).
TEST(E2eWorkerSizing, RealImageStepRunStatesWhereTheStepWaitsInImagesPerSecond) {
  const fs::path suite = fs::path(GPUBENCH_BIN_DIR) / "gpubench-dataloader";
  if (!fs::exists(suite)) GTEST_SKIP() << "gpubench-dataloader not built";
  Workspace ws;
  fs::create_directories(ws.root() / "data");
  const CliResult run =
      ws.run({"run", "--suite", "dataloader", "--profile", "standard", "--executions", "2",
              "--repetitions", "1", "--filter",
              "dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/workers:[0-9]+/"
              "step_us:5000/.*"},
             {{"GPUBENCH_DATALOADER_WORKERS", "1,2"},
              {"GPUBENCH_DATA_DIR", (ws.root() / "data").string()}},
             600);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  if (contains(run.out + run.err, "libturbojpeg.so.0 not found")) {
    GTEST_SKIP() << "no libturbojpeg here: the image cases were skipped";
  }
  const CliResult r = ws.run({"report", "1", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json w = nlohmann::json::parse(r.out).at("loader_workers");
  ASSERT_EQ(w.at("pipelines").size(), 1u) << w.dump(1);
  const nlohmann::json& p = w.at("pipelines").at(0);
  EXPECT_EQ(p.at("pipeline"),
            "dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/step_us:5000/"
            "memory:pinned/order:shuffled/cache:warm");
  EXPECT_EQ(p.at("metric"), "images_per_s");
  ASSERT_EQ(p.at("points").size(), 2u) << p.dump(1);
  for (const nlohmann::json& point : p.at("points")) {
    const double idle = point.at("gpu_idle_fraction").get<double>();
    EXPECT_GE(idle, 0.0);
    EXPECT_LE(idle, 1.0);
  }
  const nlohmann::json& busy = p.at("gpu_busy");
  ASSERT_FALSE(busy.is_null()) << p.dump(1);
  EXPECT_TRUE(busy.at("fed").get<bool>() || busy.at("waits").get<bool>());
  const std::string text = busy.at("text");
  EXPECT_EQ(text.rfind(busy.at("emulated").get<bool>() ? "step idle by workers: 1: "
                                                       : "GPU idle by workers: 1: ",
                       0),
            0u)
      << text;
  EXPECT_TRUE(contains(text, " images/s")) << text;
  const CliResult shown = ws.run({"report", "1"});
  EXPECT_TRUE(contains(shown.out, text)) << shown.out;
}

}  // namespace
}  // namespace gpubench::e2e
