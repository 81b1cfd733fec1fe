// Issue 38, end to end through the real CLI: GPU series paired by UUID in compare and accept
// after a GPU is lost (CUDA renumbers the GPUs after it), "last seen run N" from before the
// candidate, and `fleet` on the newest run of each host. FIXTURES: made-up 8-GPU "servers"
// (UUIDs GPU-FIXTURE-0000000N, "NVIDIA H200 (FIXTURE)") written as the memory suite's Google
// Benchmark JSON and imported; the numbers are invented, not measurements.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

std::string uuid_of(int gpu, const std::string& prefix = "GPU-FIXTURE-0000000") {
  return prefix + std::to_string(gpu);
}

// Each GPU has its own bandwidth (GPU g: 4000 + 10 g GB/s, repetitions +0, +2, ... +8), so a
// series held against another GPU's shows in the reference median it is held to.
double fixture_median(int gpu, double scale = 1.0) {
  return (4000.0 + 10.0 * gpu + 4.0) * scale;
}

struct ServerRun {
  std::string date;       // ISO 8601, the run's start
  std::vector<int> gpus;  // physical GPUs present; CUDA numbers them 0..n-1
  std::string host = "fixture-node-a";
  std::map<int, double> scale;  // physical GPU -> factor on its bandwidth
  bool with_uuids = true;       // false: the suite listed no devices (an older suite)
  std::string uuid_prefix = "GPU-FIXTURE-0000000";  // another host's GPUs have other UUIDs
};

// The memory suite's JSON for one run: two cases (device_copy, device_triad) on every GPU.
std::string memory_file(const ServerRun& run) {
  json devices = json::array();
  for (std::size_t i = 0; i < run.gpus.size() && run.with_uuids; ++i) {
    devices.push_back({{"index", i},
                       {"uuid", uuid_of(run.gpus[i], run.uuid_prefix)},
                       {"name", "NVIDIA H200 (FIXTURE)"},
                       {"pci_bus_id", "0000:" + std::to_string(10 + run.gpus[i]) + ":00.0"}});
  }
  const json metrics = json::array(
      {{{"name", "GB_per_s"}, {"unit", "GB/s"}, {"direction", "higher"}, {"role", "primary"}}});
  json doc;
  doc["context"] = {{"date", run.date},
                    {"host_name", run.host},
                    {"gpubench.suite", "memory"},
                    {"gpubench.metrics", metrics.dump()}};
  if (run.with_uuids) doc["context"]["gpubench.devices"] = devices.dump();
  doc["benchmarks"] = json::array();
  for (const char* op : {"device_copy", "device_triad"}) {
    for (std::size_t i = 0; i < run.gpus.size(); ++i) {
      const int gpu = run.gpus[i];
      const double scale = run.scale.count(gpu) ? run.scale.at(gpu) : 1.0;
      const std::string name = std::string("memory/") + op +
                               "/bytes:268435456/device:" + std::to_string(i) + "/manual_time";
      for (int rep = 0; rep < 5; ++rep) {
        const double gb_per_s = (4000.0 + 10.0 * gpu + rep * 2.0) * scale;
        doc["benchmarks"].push_back(iteration_entry({.name = name,
                                                     .repetition = rep,
                                                     .repetitions = 5,
                                                     .iterations = 20,
                                                     .real_time = 200.0 / scale,
                                                     .cpu_time = 10.0,
                                                     .time_unit = "us"},
                                                    {{"GB_per_s", gb_per_s}}));
      }
    }
  }
  return doc.dump(1);
}

void import(const Workspace& ws, const std::string& file, const ServerRun& run) {
  const fs::path path = ws.root() / file;
  write_file_atomic(path, memory_file(run));
  const CliResult r = ws.run({"import", path.string(), ws.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
}

ServerRun server(const std::string& date, const std::vector<int>& gpus) {
  ServerRun run;
  run.date = date;
  run.gpus = gpus;
  return run;
}

const std::vector<int> k_all = {0, 1, 2, 3, 4, 5, 6, 7};
const std::vector<int> k_lost_3 = {0, 1, 2, 4, 5, 6, 7};  // GPU 3 gone: 4..7 become device:3..6

// The lost-GPU scenario of the issue: run 1 the golden reference, run 2 a healthy run, run 3 the
// candidate without GPU 3, run 4 a healthy rerun that started after the candidate (imported
// last, so the highest id).
void lost_gpu_store(const Workspace& ws) {
  import(ws, "golden.json", server("2026-12-01T07:00:00+00:00", k_all));
  import(ws, "healthy.json", server("2026-12-02T07:00:00+00:00", k_all));
  import(ws, "lost3.json", server("2026-12-03T07:00:00+00:00", k_lost_3));
  import(ws, "rerun.json", server("2026-12-04T07:00:00+00:00", k_all));
  const CliResult b = ws.run({"baseline", "set", "golden", "1", ws.db_arg()});
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
}

// The CUDA number a candidate benchmark name carries ("device:3" -> 3).
int device_of(const std::string& benchmark) {
  std::smatch m;
  const std::regex re("device:([0-9]+)");
  return std::regex_search(benchmark, m, re) ? std::stoi(m[1]) : -1;
}

TEST(E2eGpuPairing, AcceptAfterALostGpuHoldsEachGpuToItselfAndNamesTheLostOneOnce) {
  Workspace ws;
  lost_gpu_store(ws);

  // --all: every check's line, passing ones too (issue 39: counted by default).
  const CliResult text =
      ws.run({"accept", "3", "--against", "baseline:golden", "--all", ws.db_arg()});
  EXPECT_EQ(text.exit_code, 1) << text.out << text.err;
  // The newest run before the candidate saw GPU 3 last, not the rerun that started after it.
  EXPECT_TRUE(contains(text.out, "HARDWARE incomplete: expected 8 GPUs, found 7 (missing " +
                                     uuid_of(3) + ", last seen run 2)"))
      << text.out;
  std::istringstream lines(text.out);
  std::size_t missing = 0, checks = 0;
  for (std::string line; std::getline(lines, line);) {
    if (contains(line, "MISSING ")) {
      ++missing;
      EXPECT_TRUE(contains(line, "lost with its GPU: " + uuid_of(3) +
                                     " (device:3 in the reference, bus 0000:13:00.0)"))
          << line;
      EXPECT_FALSE(contains(line, "device:7")) << "GPU 7 is there, as device:6: " << line;
    }
    // "  PASS memory/device_copy/.../device:3/manual_time GB_per_s on gpu3 (GPU-..., bus ...)"
    std::smatch m;
    if (std::regex_search(line, m,
                          std::regex("^  (PASS|FAIL|MARGINAL) (\\S+) \\S+ on gpu([0-9]+) "
                                     "\\((GPU-[A-Z0-9-]+),"))) {
      ++checks;
      const int cuda = std::stoi(m[3]);
      EXPECT_EQ(device_of(m[2]), cuda) << line;
      EXPECT_EQ(m[4].str(), uuid_of(k_lost_3.at(static_cast<std::size_t>(cuda)))) << line;
    }
  }
  EXPECT_EQ(missing, 1u) << "the lost GPU once, not once per series:\n" << text.out;
  EXPECT_EQ(checks, 14u) << "2 cases x 7 GPUs:\n" << text.out;

  // Each check is held to the reference median of the same GPU (GPU g: 4000 + 10 g + 4 GB/s):
  // by CUDA index GPU-...4 (the candidate's device:3) was held to GPU-...3's 4034.
  const CliResult js =
      ws.run({"accept", "3", "--against", "baseline:golden", "--format", "json", ws.db_arg()});
  EXPECT_EQ(js.exit_code, 1) << js.out << js.err;
  const json doc = json::parse(js.out);
  std::size_t paired = 0;
  for (const json& c : doc.at("checks")) {
    if (c.at("metric") != "GB_per_s") continue;
    const std::string uuid = c.at("gpu_uuid");
    const int gpu = uuid.back() - '0';
    EXPECT_EQ(c.at("gpu_uuid"), uuid_of(k_lost_3.at(device_of(c.at("benchmark")))));
    EXPECT_NEAR(c.at("reference").get<double>(), fixture_median(gpu), 1e-9) << c;
    EXPECT_EQ(c.at("outcome"), "PASS") << c;
    ++paired;
  }
  EXPECT_EQ(paired, 14u) << js.out;
  ASSERT_EQ(doc.at("missing").size(), 1u) << doc.at("missing");
  EXPECT_TRUE(contains(doc.at("missing")[0].at("reason"), uuid_of(3)));
  EXPECT_TRUE(contains(doc.at("missing")[0].at("reason"), "2 series in the reference"))
      << doc.at("missing");
}

TEST(E2eGpuPairing, CompareAfterALostGpuPairsByUuidAndSaysSo) {
  Workspace ws;
  lost_gpu_store(ws);
  const CliResult js = ws.run({"compare", "1", "3", "--format", "json", ws.db_arg()});
  EXPECT_EQ(js.exit_code, 1) << "a lost GPU fails: " << js.out << js.err;
  const json doc = json::parse(js.out);
  EXPECT_EQ(doc.at("gpu_pairing"), "GPU series paired by GPU UUID");
  EXPECT_TRUE(doc.at("removed").empty()) << doc.at("removed");
  EXPECT_TRUE(doc.at("added").empty()) << doc.at("added");
  std::size_t missing = 0, paired = 0;
  for (const json& e : doc.at("results")) {
    if (e.at("verdict") == "missing") {
      ++missing;
      EXPECT_EQ(e.at("base").at("gpu_uuid"), uuid_of(3)) << e;
      EXPECT_EQ(device_of(e.at("benchmark")), 3) << e;
      EXPECT_TRUE(contains(e.at("reason"), uuid_of(3) + " (device:3 on base)")) << e;
      continue;
    }
    ++paired;
    EXPECT_EQ(e.at("base").at("gpu_uuid"), e.at("candidate").at("gpu_uuid")) << e;
    // Named as the base named the GPU: its number there, whatever the candidate's was.
    EXPECT_EQ(e.at("base").at("gpu_uuid"), uuid_of(device_of(e.at("benchmark")))) << e;
    if (e.at("metric") == "GB_per_s") {
      EXPECT_EQ(e.at("verdict"), "unchanged") << e;
    }
  }
  // GPU 3's two cases, each with GB_per_s and real_time.
  EXPECT_EQ(missing, 4u) << js.out;
  EXPECT_EQ(paired, 28u) << js.out;

  // --all: every series' row (issue 39: secondary metrics are counted by default).
  const CliResult text = ws.run({"compare", "1", "3", "--all", ws.db_arg()});
  EXPECT_TRUE(contains(text.out, "GPUs:      GPU series paired by GPU UUID")) << text.out;
  // The base's gpu4 is the candidate's gpu3: the row says which GPU it is.
  EXPECT_TRUE(contains(text.out, "gpu4 = " + uuid_of(4) + " (candidate gpu3)")) << text.out;
  // The lost GPU's rows, and only they, are missing: named by its UUID, as the base named it
  // (the why on its own line under its row).
  std::istringstream lines(text.out);
  std::size_t lost_rows = 0;
  std::string row;
  for (std::string line; std::getline(lines, line); row = line) {
    if (!contains(line, "lost with")) continue;
    ++lost_rows;
    EXPECT_TRUE(contains(row, "/device:3 ")) << row;
    EXPECT_TRUE(contains(line, uuid_of(3) + " (device:3 on base)")) << line;
  }
  EXPECT_EQ(lost_rows, 4u) << text.out;
}

TEST(E2eGpuPairing, WithoutUuidsCompareFallsBackToTheCudaIndexAndSaysSo) {
  Workspace ws;
  import(ws, "golden.json", server("2026-12-01T07:00:00+00:00", k_all));
  ServerRun old_suite = server("2026-12-02T07:00:00+00:00", k_all);
  old_suite.with_uuids = false;
  import(ws, "old_suite.json", old_suite);
  const CliResult js = ws.run({"compare", "1", "2", "--format", "json", ws.db_arg()});
  ASSERT_EQ(js.exit_code, 0) << js.out << js.err;
  const std::string note = json::parse(js.out).at("gpu_pairing");
  EXPECT_TRUE(contains(note, "paired by CUDA index (device:N), not by GPU UUID: candidate run 2"))
      << note;
  const CliResult text = ws.run({"compare", "1", "2", ws.db_arg()});
  EXPECT_TRUE(contains(text.out, "GPUs:      GPU series paired by CUDA index")) << text.out;
}

TEST(E2eGpuPairing, FleetUsesTheNewestRunOfEachHostByDefault) {
  Workspace ws;
  // Host A: two healthy runs, then the newest with GPU 5 at 85%; host B: one healthy run. Over
  // every run GPU 5's median is its healthy value and hides it.
  import(ws, "a1.json", server("2026-12-01T07:00:00+00:00", k_all));
  import(ws, "a2.json", server("2026-12-02T07:00:00+00:00", k_all));
  ServerRun a3 = server("2026-12-03T07:00:00+00:00", k_all);
  a3.scale = {{5, 0.85}};
  import(ws, "a3.json", a3);
  ServerRun b1 = server("2026-12-02T08:00:00+00:00", k_all);
  b1.host = "fixture-node-b";
  b1.uuid_prefix = "GPU-FIXTURE-B000000";
  import(ws, "b1.json", b1);

  const CliResult newest = ws.run({"fleet", "--format", "json", ws.db_arg()});
  EXPECT_EQ(newest.exit_code, 1) << newest.out << newest.err;
  const json doc = json::parse(newest.out);
  EXPECT_EQ(doc.at("runs"), json::array({3, 4}));
  ASSERT_EQ(doc.at("outliers").size(), 1u) << doc.at("outliers");
  EXPECT_EQ(doc.at("outliers")[0].at("uuid"), uuid_of(5));
  EXPECT_EQ(doc.at("outliers")[0].at("host"), "fixture-node-a");
  const CliResult text = ws.run({"fleet", ws.db_arg()});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_TRUE(
      contains(text.out,
               "Fleet: 2 runs (3-4) on 2 hosts, fixture-node-a, fixture-node-b (the newest run of "
               "each host;"))
      << text.out;

  const CliResult last2 = ws.run({"fleet", "--last", "2", "--format", "json", ws.db_arg()});
  EXPECT_EQ(last2.exit_code, 1) << last2.out;
  EXPECT_EQ(json::parse(last2.out).at("runs"), json::array({2, 3, 4}));

  // Every run, as before issue 38: the slow newest run is outvoted by the two healthy ones.
  const CliResult all = ws.run({"fleet", "--all-runs", "--format", "json", ws.db_arg()});
  EXPECT_EQ(all.exit_code, 0) << all.out << all.err;
  EXPECT_EQ(json::parse(all.out).at("runs"), json::array({1, 2, 3, 4}));

  EXPECT_EQ(ws.run({"fleet", "--last", "0", ws.db_arg()}).exit_code, 2);
  const CliResult both = ws.run({"fleet", "--last", "2", "--all-runs", ws.db_arg()});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.err, "--last and --all-runs")) << both.err;
}

// Issue 38: history and run-to-run noise follow the GPU's UUID across a lost GPU. FIXTURE: runs
// 1-7 on 8 GPUs, runs 8-10 without GPU 3 (GPU-...4 is device:3 there); GPU 4 is 10% slower than
// the others in every run, each run has a jitter of ~0.1%. By CUDA index, device:3's history
// would hold GPU-...3's level before the loss and GPU-...4's after it.
TEST(E2eGpuPairing, HistoryAndNoiseFollowTheGpuUuidAfterALostGpu) {
  Workspace ws;
  const double levels[] = {1.000,  1.002,  0.998,  1.001,  0.999,
                           1.0015, 0.9985, 1.0005, 0.9995, 1.001};
  for (int night = 1; night <= 10; ++night) {
    ServerRun run = server(
        "2026-12-" + std::string(night < 10 ? "0" : "") + std::to_string(night) + "T07:00:00+00:00",
        night <= 7 ? k_all : k_lost_3);
    for (int g : k_all) run.scale[g] = levels[night - 1] * (g == 4 ? 0.9 : 1.0);
    import(ws, "night" + std::to_string(night) + ".json", run);
  }

  // `history`: the series shown as the newest runs' device:3 is GPU-...4's, every run of it.
  const CliResult hist = ws.run({"history", "all", "--format", "json", "--metric", "GB_per_s",
                                 "--benchmark", "device_triad", ws.db_arg()});
  ASSERT_EQ(hist.exit_code, 0) << hist.out << hist.err;
  const json doc = json::parse(hist.out);
  std::size_t shown = 0;
  for (const json& series : doc.at("series")) {
    if (series.at("device") != "gpu3" || !contains(series.at("group"), "7x")) continue;
    ++shown;
    EXPECT_EQ(series.at("points").size(), 10u) << "GPU-...4's runs before the loss too: " << series;
    for (const json& p : series.at("points")) {
      EXPECT_NEAR(p.at("median").get<double>(), fixture_median(4, 0.9), 0.01 * 4044) << p;
    }
    EXPECT_TRUE(series.at("changes").empty()) << series;
  }
  EXPECT_EQ(shown, 1u) << hist.out;

  // Run-to-run noise of the candidate's device:3 (base run 9, candidate run 10): GPU-...4's runs,
  // as device:4 before the loss and device:3 after it, and the output says so.
  const CliResult acc = ws.run({"--wide", "accept", "10", "--against", "9", "--all", ws.db_arg()});
  // It fails on GPU-...4 being 10% slower than its siblings, not on its own check.
  EXPECT_EQ(acc.exit_code, 1) << acc.out << acc.err;
  EXPECT_TRUE(contains(acc.out, "(14 pass, 0 marginal, 0 fail of 14 checks; 2 sibling outlier"))
      << acc.out;
  std::istringstream lines(acc.out);
  std::size_t device3 = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!contains(line, "/device:3/") || contains(line, "OUTLIER")) continue;
    ++device3;
    EXPECT_EQ(line.rfind("  PASS ", 0), 0u) << line;
    EXPECT_TRUE(contains(
        line, "run-to-run noise from 9 runs of history (" + uuid_of(4) + "'s own runs, by UUID)"))
        << line;
  }
  EXPECT_EQ(device3, 2u) << acc.out;
  const CliResult cmp = ws.run({"compare", "9", "10", "--format", "json", ws.db_arg()});
  for (const json& e : json::parse(cmp.out).at("results")) {
    if (e.at("metric") != "GB_per_s" || !contains(e.at("benchmark"), "/device:3/")) continue;
    EXPECT_TRUE(contains(e.at("noise_source"), "history (9 runs: " + uuid_of(4) + "'s own runs"))
        << e;
  }
}

}  // namespace
}  // namespace gpubench::e2e
