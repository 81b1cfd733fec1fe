// Issue 40 end to end through the real CLI: `gpubench peers` and the peers section of `report` on
// one database holding a gpubench run of a made-up 2-GPU server (a `gpubench export` document:
// allreduce, transfer, gemm and memory rows) and peer runs of the same host imported as the Google
// Benchmark JSON that results/peers' readers and the bundle's PyTorch script write (names of the
// shared scheme: nccl-tests/..., nvbandwidth/..., pytorch/...), plus an older nccl-tests run, a
// peer run of other GPUs and one of another host. Every value is a FIXTURE invented here, never a
// measurement; the expected ratios are computed here from the same numbers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "e2e_support.hpp"
#include "util/fs.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

const std::string k_host = "h200-peers-FIXTURE";
const std::string k_uuid0 = "GPU-peers-FIXTURE-0";
const std::string k_uuid1 = "GPU-peers-FIXTURE-1";
const std::string k_ar = "allreduce/allreduce/dtype:fp32/mode:out_of_place/bytes:67108864/ranks:2";
const std::string k_h2d =
    "transfer/host_to_device_memcpy_ce/dir:h2d/memory:pinned/engine:ce/"
    "numa:local/bytes:";
const std::string k_gemm = "gemm/cublaslt/dtype:bf16/m:8192/n:8192/k:8192/layout:tn/cache:hot";

json result(const std::string& suite, int suite_run, const std::string& name,
            const std::string& metric, const std::string& unit, std::vector<double> values,
            int device = -1) {
  json r = {{"suite", suite}, {"suite_run", suite_run}, {"benchmark", name}, {"metric", metric},
            {"unit", unit},   {"direction", "higher"},  {"role", "primary"}, {"values", values}};
  if (device >= 0) r["device_index"] = device;
  return r;
}

// The gpubench run: an export of a run of the FIXTURE server.
json gpubench_run() {
  json gpus = json::array();
  for (int g = 0; g < 2; ++g) {
    gpus.push_back({{"nvml_index", g},
                    {"uuid", g == 0 ? k_uuid0 : k_uuid1},
                    {"name", "NVIDIA H200 (FIXTURE)"},
                    {"pci_bus_id", "00000000:1" + std::to_string(g) + ":00.0"}});
  }
  json results = json::array(
      {result("allreduce", 1, k_ar, "busbw_GB_per_s", "GB/s", {100, 101, 102, 103, 104}),
       result("transfer", 2, k_h2d + "67108864/device:0", "GB_per_s", "GB/s",
              {53.0, 53.2, 53.1, 52.9, 53.3}, 0),
       result("transfer", 2, k_h2d + "268435456/device:0", "GB_per_s", "GB/s",
              {55.0, 55.2, 55.1, 54.9, 55.3}, 0),
       result("transfer", 2, k_h2d + "268435456/device:1", "GB_per_s", "GB/s",
              {50.0, 50.2, 50.1, 49.9, 50.3}, 1),
       result("gemm", 3, k_gemm + "/device:0", "TFLOP_per_s", "TFLOP/s", {700, 702, 704, 701, 703},
              0)});
  return {{"run",
           {{"uuid", "0e7c2a51-0000-4000-8000-000000000040"},
            {"started_at", "2026-12-05T07:00:00Z"},
            {"finished_at", "2026-12-05T08:00:00Z"},
            {"status", "complete"}}},
          {"environment", {{"host", {{"hostname", k_host}}}, {"gpus", gpus}}},
          {"suites", json::array({{{"id", 1}, {"suite", "allreduce"}, {"status", "ok"}},
                                  {{"id", 2}, {"suite", "transfer"}, {"status", "ok"}},
                                  {{"id", 3}, {"suite", "gemm"}, {"status", "ok"}}})},
          {"results", results}};
}

// A peer's Google Benchmark document as results/peers and pytorch_peer.py write it.
json peer_doc(const std::string& suite, const std::string& host, const std::string& date,
              const json& devices, const json& entries) {
  const json metrics = json::array(
      {{{"name", "busbw_GB_per_s"}, {"unit", "GB/s"}, {"direction", "higher"}, {"role", "primary"}},
       {{"name", "GB_per_s"}, {"unit", "GB/s"}, {"direction", "higher"}, {"role", "primary"}},
       {{"name", "TFLOP_per_s"},
        {"unit", "TFLOP/s"},
        {"direction", "higher"},
        {"role", "primary"}}});
  return {{"context",
           {{"host_name", host},
            {"date", date},
            {"gpubench.suite", suite},
            {"gpubench.metrics", metrics.dump()},
            {"gpubench.devices", devices.dump()},
            {"peer.tool", suite}}},
          {"benchmarks", entries}};
}

json entries(const std::string& name, const std::string& metric, const std::vector<double>& v) {
  json out = json::array();
  for (std::size_t i = 0; i < v.size(); ++i) {
    out.push_back(iteration_entry(
        {name, static_cast<int64_t>(i), static_cast<int64_t>(v.size()), 1, 1000, 0, "us"},
        {{metric, v[i]}}));
  }
  return out;
}

json devices(const std::vector<std::string>& uuids) {
  json out = json::array();
  for (std::size_t i = 0; i < uuids.size(); ++i) {
    out.push_back({{"index", i}, {"uuid", uuids[i]}, {"name", "NVIDIA H200 (FIXTURE)"}});
  }
  return out;
}

class E2ePeers : public ::testing::Test {
 protected:
  void SetUp() override {
    import(gpubench_run(), "gpubench_run.json");
    const std::string nccl =
        "nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/bytes:67108864/ranks:2";
    // An older nccl-tests run (110 GB/s): the newest one (105) is the one lined up.
    import(peer_doc("nccl-tests", k_host, "2026-12-04T09:00:00+00:00", devices({k_uuid0, k_uuid1}),
                    entries(nccl, "busbw_GB_per_s", {110})),
           "nccl_old.json");
    json ar = entries(nccl, "busbw_GB_per_s", {105});
    for (const json& e : entries("nccl-tests/allreduce/dtype:fp32/op:sum/mode:in_place/"
                                 "bytes:67108864/ranks:2",
                                 "busbw_GB_per_s", {104})) {
      ar.push_back(e);
    }
    import(peer_doc("nccl-tests", k_host, "2026-12-05T09:00:00+00:00", devices({k_uuid0, k_uuid1}),
                    ar),
           "nccl.json");
    // nvbandwidth with the GPUs in the other order (CUDA_VISIBLE_DEVICES=1,0) and no buffer size
    // in its output: its dst:0 is gpubench's device 1, against gpubench's largest size.
    import(
        peer_doc("nvbandwidth", k_host, "2026-12-05T09:10:00+00:00", devices({k_uuid1, k_uuid0}),
                 entries("nvbandwidth/host_to_device_memcpy_ce/src:host/dst:0", "GB_per_s", {51})),
        "nvbandwidth.json");
    // PyTorch, 5 repetitions each: intervals.
    json torch = entries("pytorch/matmul/dtype:bf16/m:8192/n:8192/k:8192/device:0", "TFLOP_per_s",
                         {690, 694, 692, 691, 693});
    for (const json& e : entries("pytorch/copy/h2d/memory:pinned/bytes:268435456/device:0",
                                 "GB_per_s", {54.0, 54.2, 54.1, 53.9, 54.3})) {
      torch.push_back(e);
    }
    import(peer_doc("pytorch", k_host, "2026-12-05T09:20:00+00:00", devices({k_uuid0}), torch),
           "pytorch.json");
    // Same host, GPUs of another server (a moved disk): left out, named.
    import(peer_doc("bandwidthTest", k_host, "2026-12-05T09:30:00+00:00",
                    devices({"GPU-elsewhere-FIXTURE"}),
                    entries("bandwidthTest/h2d/memory:pinned/bytes:268435456/device:0", "GB_per_s",
                            {40})),
           "bandwidthtest.json");
    // Another host: not a peer of this run at all.
    import(peer_doc("nccl-tests", "other-host-FIXTURE", "2026-12-05T09:40:00+00:00",
                    devices({"GPU-other-FIXTURE-0", "GPU-other-FIXTURE-1"}),
                    entries(nccl, "busbw_GB_per_s", {10})),
           "nccl_other.json");
  }
  void import(const json& doc, const std::string& file) {
    const fs::path path = m_ws.root() / file;
    write_file_atomic(path, doc.dump());
    if (const char* keep = std::getenv("GPUBENCH_FIXTURE_OUT")) {
      write_file_atomic(fs::path(keep) / file, doc.dump(1));
    }
    const CliResult r = m_ws.run({"import", path.string(), m_ws.db_arg()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  CliResult gb(std::vector<std::string> args,
               const std::vector<std::pair<std::string, std::string>>& env = {}) {
    args.push_back(m_ws.db_arg());
    return m_ws.run(args, env);
  }
  Workspace m_ws;
};

const json& line_of(const json& doc, const std::string& peer_suite, const std::string& own) {
  for (const json& l : doc.at("lines")) {
    if (l["peer"]["suite"] == peer_suite && l["gpubench"]["benchmark"] == own) return l;
  }
  ADD_FAILURE() << "no line " << peer_suite << " / " << own << " in " << doc.dump(1);
  static const json none;
  return none;
}

TEST_F(E2ePeers, PeersLinesUpTheNewestPeerRunOfEachToolOnTheSameHostAndGpus) {
  const CliResult r = gb({"peers", "1", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "gpubench.peers/1");
  EXPECT_EQ(doc["host"], k_host);
  // Runs: 1 gpubench, 2 old nccl-tests, 3 nccl-tests, 4 nvbandwidth, 5 pytorch, 6 bandwidthTest
  // (other GPUs), 7 another host.
  std::vector<int64_t> runs;
  for (const json& u : doc["peer_runs"]) runs.push_back(u["run"]);
  EXPECT_EQ(runs, (std::vector<int64_t>{6, 5, 4, 3})) << doc["peer_runs"].dump(1);
  EXPECT_EQ(doc["peer_runs"][0]["left_out"],
            "other GPUs (UUID GPU-elsewhere-FIXTURE is not in the run)");
  ASSERT_EQ(doc["lines"].size(), 4u) << doc.dump(1);

  const json& ar = line_of(doc, "nccl-tests", k_ar);
  EXPECT_EQ(ar["peer"]["run"], 3);
  EXPECT_DOUBLE_EQ(ar["ratio"].get<double>(), 102.0 / 105.0);  // medians: nccl-tests has 1 value
  EXPECT_TRUE(ar["ci_low"].is_null());

  const json& nvb = line_of(doc, "nvbandwidth", k_h2d + "268435456/device:1");
  EXPECT_EQ(nvb["gpu"], "1");
  EXPECT_DOUBLE_EQ(nvb["ratio"].get<double>(), 50.1 / 51.0);
  EXPECT_NE(nvb["note"].get<std::string>().find("states no buffer size"), std::string::npos);

  const json& mm = line_of(doc, "pytorch", k_gemm + "/device:0");
  ASSERT_FALSE(mm["ci_low"].is_null());
  EXPECT_LT(mm["ci_low"].get<double>(), mm["ratio"].get<double>());
  EXPECT_GT(mm["ci_high"].get<double>(), mm["ratio"].get<double>());
  // 10 TFLOP/s apart with a spread of 4 a side: the interval lies above 1.
  EXPECT_NEAR(mm["ratio"].get<double>(), 702.0 / 692.0, 1e-6);  // geometric means
  EXPECT_GT(mm["ci_low"].get<double>(), 1.0);

  const json& h2d = line_of(doc, "pytorch", k_h2d + "268435456/device:0");
  EXPECT_NEAR(h2d["ratio"].get<double>(), 55.1 / 54.1, 1e-6);
}

TEST_F(E2ePeers, TextHonoursColumnsAndReportHasAPeersSection) {
  const CliResult text = gb({"peers", "1"}, {{"COLUMNS", "100"}});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_LE(longest_line(text.out), 100u) << text.out;
  EXPECT_TRUE(contains(
      text.out, "peers of run 1 (host h200-peers-FIXTURE): 3 peer run(s) of this host lined up, 4"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "left out, other GPUs")) << text.out;
  EXPECT_TRUE(contains(text.out, "0.971")) << text.out;  // 102 / 105
  EXPECT_TRUE(contains(text.out, "nccl-tests reports the mean")) << text.out;
  if (const char* keep = std::getenv("GPUBENCH_FIXTURE_OUT")) {
    write_file_atomic(fs::path(keep) / "peers.txt", text.out);
  }

  // A peer run is no gpubench run to line up: refused, naming it.
  const CliResult peer_run = gb({"peers", "3"});
  EXPECT_EQ(peer_run.exit_code, 2);
  EXPECT_TRUE(contains(peer_run.err, "run 3 is a peer run (nccl-tests)")) << peer_run.err;

  const CliResult report = gb({"report", "1"}, {{"COLUMNS", "100"}});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_LE(longest_line(report.out), 100u) << report.out;
  const std::size_t at = report.out.find("Peers (imported outputs of other tools on this host");
  ASSERT_NE(at, std::string::npos) << report.out;
  EXPECT_TRUE(contains(report.out.substr(at), "nvbandwidth run 4 [")) << report.out;
  if (const char* keep = std::getenv("GPUBENCH_FIXTURE_OUT")) {
    write_file_atomic(fs::path(keep) / "report.txt", report.out);
  }
  const CliResult report_json = gb({"report", "1", "--format", "json"});
  ASSERT_EQ(report_json.exit_code, 0) << report_json.err;
  EXPECT_EQ(json::parse(report_json.out)["peers"]["lines"].size(), 4u);
  // A peer run's own report has no peers section.
  const CliResult peer_report = gb({"report", "3"});
  ASSERT_EQ(peer_report.exit_code, 0) << peer_report.err;
  EXPECT_FALSE(contains(peer_report.out, "Peers (")) << peer_report.out;
}

TEST_F(E2ePeers, AHostWithoutPeerRunsSaysWhatToImport) {
  Workspace other;
  const fs::path path = other.root() / "run.json";
  write_file_atomic(path, gpubench_run().dump());
  ASSERT_EQ(other.run({"import", path.string(), other.db_arg()}).exit_code, 0);
  const CliResult r = other.run({"peers", other.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "no peer run of this host; import an nccl-tests")) << r.out;
  const CliResult report = other.run({"report", "latest", other.db_arg()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_FALSE(contains(report.out, "Peers (")) << report.out;
  const CliResult bad = other.run({"peers", "--format", "xml", other.db_arg()});
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
}

}  // namespace
}  // namespace gpubench::e2e

namespace gpubench::e2e {
namespace {

// A real nccl-tests output (tests/fixtures/peers/nccl-tests/: superbench's all_reduce_perf log of
// 8 A100-40GB in one process, "on localhost") imported by `gpubench import`'s nccl-tests reader,
// beside a FIXTURE gpubench allreduce run of that host (invented values).
TEST(E2ePeersNcclTests, ARealAllReducePerfOutputLinesUpWithTheAllreduceSuite) {
  Workspace ws;
  const std::string base = "allreduce/allreduce/dtype:fp32/mode:";
  json results = json::array();
  for (const std::string mode : {"out_of_place", "in_place"}) {
    results.push_back(result("allreduce", 1, base + mode + "/bytes:67108864/ranks:8",
                             "busbw_GB_per_s", "GB/s", {195, 196, 197}));
  }
  const json run = {
      {"run",
       {{"uuid", "0e7c2a51-0000-4000-8000-000000000042"},
        {"started_at", "2026-12-05T07:00:00Z"},
        {"finished_at", "2026-12-05T08:00:00Z"},
        {"status", "complete"}}},
      {"environment", {{"host", {{"hostname", "localhost"}}}}},
      {"suites", json::array({{{"id", 1}, {"suite", "allreduce"}, {"status", "ok"}}})},
      {"results", results}};
  const fs::path path = ws.root() / "run.json";
  write_file_atomic(path, run.dump());
  ASSERT_EQ(ws.run({"import", path.string(), ws.db_arg()}).exit_code, 0);
  const fs::path log = fs::path(GPUBENCH_SOURCE_DIR) /
                       "tests/fixtures/peers/nccl-tests/superbench-nccl_allreduce-a100x8.log";
  const CliResult imported = ws.run({"import", log.string(), ws.db_arg()});
  ASSERT_EQ(imported.exit_code, 0) << imported.out << imported.err;

  const CliResult r = ws.run({"peers", "1", "--format", "json", ws.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc["lines"].size(), 2u) << doc.dump(1);
  for (const json& l : doc["lines"]) {
    EXPECT_EQ(l["peer"]["suite"], "nccl-tests");
    const bool out_of_place =
        l["gpubench"]["benchmark"].get<std::string>().find("out_of_place") != std::string::npos;
    // The log's busbw at 67108864 bytes: 200.91 out of place, 201.82 in place.
    const double peer = out_of_place ? 200.91 : 201.82;
    EXPECT_DOUBLE_EQ(l["peer"]["median"].get<double>(), peer);
    EXPECT_DOUBLE_EQ(l["ratio"].get<double>(), 196.0 / peer);
    EXPECT_NE(l["peer"]["benchmark"].get<std::string>().find("op:sum"), std::string::npos);
  }
  const CliResult text = ws.run({"peers", "1", ws.db_arg()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  if (const char* keep = std::getenv("GPUBENCH_FIXTURE_OUT")) {
    write_file_atomic(fs::path(keep) / "peers_nccl.txt", text.out);
  }
}

}  // namespace
}  // namespace gpubench::e2e
