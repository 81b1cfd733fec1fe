// Issue 38, end to end through the real CLI on a real SQLite file: `accept` records its verdict on
// the run (tag gpubench.accept), a run that FAILed leaves later run-to-run noise and `history`
// until `history include` or a later PASS; `--no-record` and a read-only database record nothing.
// FIXTURES: a made-up 8-GPU server (UUIDs GPU-FIXTURE-0000000N, "NVIDIA H200 (FIXTURE)") written
// as the memory suite's Google Benchmark JSON and imported, one file per run; the numbers are
// invented, not measurements.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

// FIXTURE: run `night` (its date) of the memory suite on 8 GPUs: GPU i's bandwidth is
// (4000 + 2 x repetition + i) GB/s x `level` (x `gpu3` for GPU 3) over 5 repetitions.
std::string memory_run(int night, double level, double gpu3) {
  json devices = json::array();
  for (int i = 0; i < 8; ++i) {
    devices.push_back({{"index", i},
                       {"uuid", "GPU-FIXTURE-0000000" + std::to_string(i)},
                       {"name", "NVIDIA H200 (FIXTURE)"},
                       {"pci_bus_id", "0000:" + std::to_string(10 + i) + ":00.0"}});
  }
  const json metrics = json::array(
      {{{"name", "GB_per_s"}, {"unit", "GB/s"}, {"direction", "higher"}, {"role", "primary"}}});
  char date[40];
  std::snprintf(date, sizeof date, "2026-12-%02dT07:00:00+00:00", night);
  json doc;
  doc["context"] = {{"date", date},
                    {"host_name", "fixture-server-a"},
                    {"gpubench.suite", "memory"},
                    {"gpubench.metrics", metrics.dump()},
                    {"gpubench.devices", devices.dump()}};
  doc["benchmarks"] = json::array();
  for (int i = 0; i < 8; ++i) {
    const double scale = level * (i == 3 ? gpu3 : 1.0);
    const std::string name =
        "memory/device_triad/bytes:268435456/device:" + std::to_string(i) + "/manual_time";
    for (int rep = 0; rep < 5; ++rep) {
      doc["benchmarks"].push_back(
          iteration_entry({.name = name,
                           .repetition = rep,
                           .repetitions = 5,
                           .iterations = 20,
                           .real_time = 200.0 / scale,
                           .cpu_time = 10.0,
                           .time_unit = "us"},
                          {{"GB_per_s", (4000.0 + rep * 2.0 + i) * scale}}));
    }
  }
  return doc.dump(1);
}

void import_run(const Workspace& ws, int night, double level, double gpu3 = 1.0) {
  const fs::path path = ws.root() / ("night" + std::to_string(night) + ".json");
  write_file_atomic(path, memory_run(night, level, gpu3));
  const CliResult r = ws.run({"import", path.string(), ws.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
}

// The line of `text` holding `part` (outputs are asked for with --wide: one line per check).
std::string line_with(const std::string& text, const std::string& part) {
  const std::size_t at = text.find(part);
  if (at == std::string::npos) return "";
  const std::size_t begin = text.rfind('\n', at);
  const std::size_t end = text.find('\n', at);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end == std::string::npos ? std::string::npos : end - begin - 1);
}

// Runs 1-7: a healthy server (run 1 the golden baseline, jitter ~0.15%); run 8: GPU 3 at 93%,
// which FAILs acceptance; run 9: a healthy rerun.
void failed_then_healthy(const Workspace& ws) {
  const double levels[] = {1.000, 1.002, 0.998, 1.001, 0.999, 1.0015, 0.9985};
  for (int night = 1; night <= 7; ++night) import_run(ws, night, levels[night - 1]);
  ASSERT_EQ(ws.run({"baseline", "set", "golden", "1", ws.db_arg()}).exit_code, 0);
  import_run(ws, 8, 1.0, 0.93);
  import_run(ws, 9, 1.0005);
}

// The healthy rerun's device:0 check: how many runs of history its noise came from.
std::string device0_history(const Workspace& ws) {
  // --all: the passing checks' reasons too (issue 39: counted by default).
  const CliResult acc = ws.run({"--wide", "accept", "9", "--against", "baseline:golden", "--strict",
                                "--no-record", "--all", ws.db_arg()});
  EXPECT_EQ(acc.exit_code, 0) << acc.out << acc.err;
  return line_with(acc.out, "device:0");
}

TEST(E2eAcceptRecord, AFailedRunLeavesLaterHistoryUntilIncludedOrPassed) {
  Workspace ws;
  failed_then_healthy(ws);
  const CliResult failed =
      ws.run({"--wide", "accept", "8", "--against", "baseline:golden", ws.db_arg()});
  ASSERT_EQ(failed.exit_code, 1) << failed.out << failed.err;

  // Recorded on the run, shown by `runs` and `show`.
  const CliResult runs = ws.run({"runs", "--format", "json", ws.db_arg()});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  bool seen = false;
  for (const json& r : json::parse(runs.out)) {
    if (r["id"] != 8) continue;
    seen = true;
    const std::string verdict = r["tags"].value("gpubench.accept", "");
    EXPECT_EQ(verdict.rfind("FAIL against baseline:golden at 20", 0), 0u) << runs.out;
    EXPECT_EQ(r["history_excluded"], "failed acceptance: " + verdict) << runs.out;
  }
  EXPECT_TRUE(seen) << runs.out;
  const CliResult show = ws.run({"show", "8", ws.db_arg()});
  EXPECT_TRUE(contains(show.out, "gpubench.accept=FAIL against baseline:golden at ")) << show.out;
  EXPECT_TRUE(contains(show.out, "excluded from history: failed acceptance: FAIL against"))
      << show.out;

  // The healthy rerun's noise leaves run 8 out: runs 1-7, not 1-8.
  EXPECT_TRUE(contains(device0_history(ws), "from 7 runs of history")) << device0_history(ws);
  const CliResult hist = ws.run({"history", "all", ws.db_arg()});
  EXPECT_EQ(hist.exit_code, 0) << hist.err;
  EXPECT_TRUE(contains(hist.out,
                       "excluded from history: run 8 (failed acceptance: FAIL against "
                       "baseline:golden at "))
      << hist.out;

  // `history include` brings it back, and a later FAIL leaves it out again.
  const CliResult inc = ws.run({"history", "include", "8", ws.db_arg()});
  EXPECT_EQ(inc.exit_code, 0) << inc.err;
  EXPECT_TRUE(contains(device0_history(ws), "from 8 runs of history")) << device0_history(ws);
  EXPECT_EQ(ws.run({"accept", "8", "--against", "baseline:golden", ws.db_arg()}).exit_code, 1);
  EXPECT_TRUE(contains(device0_history(ws), "from 7 runs of history")) << device0_history(ws);

  // A later PASS (here of its healthy GPU 0 against itself) counts: the newest verdict decides.
  const CliResult pass =
      ws.run({"accept", "8", "--against", "8", "--filter", "device:0/", ws.db_arg()});
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  EXPECT_TRUE(contains(device0_history(ws), "from 8 runs of history")) << device0_history(ws);
  const CliResult show_pass = ws.run({"show", "8", "--format", "json", ws.db_arg()});
  const json shown = json::parse(show_pass.out);
  EXPECT_EQ(shown["run"]["history_excluded"], json()) << show_pass.out;
  // `runs` shows the newest of the three verdicts only, as its JSON does.
  const std::string runs_text = ws.run({"--wide", "runs", ws.db_arg()}).out;
  const std::string row8 = line_with(runs_text, "gpubench.accept=");
  EXPECT_TRUE(contains(row8, "gpubench.accept=PASS against 8")) << runs_text;
  EXPECT_FALSE(contains(row8, "FAIL against")) << runs_text;
}

TEST(E2eAcceptRecord, NoRecordRecordsNothing) {
  Workspace ws;
  failed_then_healthy(ws);
  const CliResult unrecorded =
      ws.run({"--wide", "accept", "8", "--against", "baseline:golden", "--no-record", ws.db_arg()});
  ASSERT_EQ(unrecorded.exit_code, 1) << unrecorded.out << unrecorded.err;
  EXPECT_TRUE(contains(device0_history(ws), "from 8 runs of history")) << device0_history(ws);
}

// A database that cannot be written is accepted from; stderr says the verdict was not kept.
TEST(E2eAcceptRecord, AReadOnlyDatabaseIsAcceptedFromWithANote) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can write a file of mode 0444";
  Workspace ws;
  failed_then_healthy(ws);
  const std::string db = ws.db().string();
  ASSERT_EQ(::chmod(db.c_str(), 0444), 0);
  const CliResult ro = ws.run({"accept", "8", "--against", "baseline:golden", ws.db_arg()});
  EXPECT_EQ(ro.exit_code, 1) << ro.out << ro.err;
  EXPECT_TRUE(contains(ro.err, "gpubench: note: verdict not recorded")) << ro.err;
  ASSERT_EQ(::chmod(db.c_str(), 0644), 0);
  EXPECT_TRUE(contains(device0_history(ws), "from 8 runs of history")) << device0_history(ws);
}

}  // namespace
}  // namespace gpubench::e2e
