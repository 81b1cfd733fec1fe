// GPU identity (issue 11): results are tied to the GPU the suite named through its own
// gpubench.devices record (CUDA ordinal -> UUID), never to the run's GPU with the same index
// (NVML indices). Fixtures: made-up UUIDs and PCI ids, gemm-shaped Google Benchmark JSON.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "results/ingest/ingest_gpu.hpp"
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

using nlohmann::json;

// Four GPUs in NVML (PCI bus) order.
RunInfo four_gpu_run() {
  RunInfo info = testing::sample_run_info();
  info.gpus.clear();
  for (int i = 0; i < 4; ++i) {
    GpuInfo g;
    g.nvml_index = i;
    g.uuid = "GPU-0000000" + std::to_string(i) + "-fixture";
    g.pci_bus_id = "0000:" + std::to_string(10 + i) + ":00.0";
    g.name = "NVIDIA H100 80GB HBM3";
    info.gpus.push_back(g);
  }
  return info;
}

// A gemm-shaped document: one benchmark per CUDA ordinal, the suite's device record as the
// string Google Benchmark's AddCustomContext writes, two repetitions, an sm_clock_MHz state key.
json gemm_doc(const json& devices, const std::vector<int>& ordinals) {
  json doc;
  doc["context"] = {
      {"gpubench.suite", "gemm"},
      {"gpubench.metrics",
       json::array({{{"name", "TFLOP_per_s"}, {"unit", "TFLOP/s"}, {"direction", "higher"}}})
           .dump()},
      {"gpubench.devices", devices.dump()}};
  doc["benchmarks"] = json::array();
  for (int d : ordinals) {
    const std::string name = "gemm/bf16/m:8192/n:8192/k:8192/cache:hot/device:" + std::to_string(d);
    for (int rep = 0; rep < 2; ++rep) {
      doc["benchmarks"].push_back({{"name", name + "/manual_time"},
                                   {"run_name", name + "/manual_time"},
                                   {"run_type", "iteration"},
                                   {"repetition_index", rep},
                                   {"iterations", 10},
                                   {"real_time", 1000.0 + d},
                                   {"cpu_time", 5.0},
                                   {"time_unit", "us"},
                                   {"TFLOP_per_s", 700.0 + d},
                                   {"sm_clock_MHz", 1755.0 - d},
                                   {"window_start_s", 100.0 + rep},
                                   {"window_end_s", 100.5 + rep}});
    }
  }
  return doc;
}

class GpuIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_run = m_store.begin_run(four_gpu_run());
    m_suite_run = m_store.add_suite_run(m_run, testing::sample_suite_run("gemm"));
  }
  // CUDA ordinal -> UUID of the stored TFLOP_per_s rows.
  std::map<int, std::string> uuids_by_ordinal() {
    std::map<int, std::string> out;
    for (const ResultRow& r : m_store.get_results(m_run)) {
      if (r.metric != "TFLOP_per_s") continue;
      EXPECT_TRUE(r.device_index.has_value()) << r.benchmark;
      if (r.device_index) out[*r.device_index] = r.gpu_uuid;
    }
    return out;
  }
  TempDir m_dir{"gpubench-test-identity"};
  Store m_store = Store::open(m_dir.path() / "gpubench.db", OpenMode::read_write_create);
  int64_t m_run = 0;
  int64_t m_suite_run = 0;
};

TEST_F(GpuIdentityTest, OrdinalsMapThroughTheSuitesDeviceRecordNotTheRunsIndices) {
  // CUDA FASTEST_FIRST (or a mixed server) numbered the GPUs differently from NVML: ordinal 0 is
  // NVML's GPU 2, ordinal 1 NVML's GPU 0. The record lists them out of order.
  const json devices = json::array({{{"index", 1}, {"uuid", "GPU-00000000-fixture"}},
                                    {{"index", 0}, {"uuid", "GPU-00000002-fixture"}}});
  m_store.ingest_benchmark_json(m_suite_run, gemm_doc(devices, {0, 1}), "gemm");
  const auto got = uuids_by_ordinal();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got.at(0), "GPU-00000002-fixture");
  EXPECT_EQ(got.at(1), "GPU-00000000-fixture");
}

TEST_F(GpuIdentityTest, VisibleDevicesSubsetGetsTheVisibleGpusNotTheFirstOnes) {
  // CUDA_VISIBLE_DEVICES=2,3: the suite sees ordinals 0 and 1, which are NVML's GPUs 2 and 3.
  const json devices = json::array({{{"index", 0}, {"uuid", "GPU-00000002-fixture"}},
                                    {{"index", 1}, {"uuid", "GPU-00000003-fixture"}}});
  m_store.ingest_benchmark_json(m_suite_run, gemm_doc(devices, {0, 1}), "gemm");
  const auto got = uuids_by_ordinal();
  EXPECT_EQ(got.at(0), "GPU-00000002-fixture");
  EXPECT_EQ(got.at(1), "GPU-00000003-fixture");
  // The public view agrees, and names the ordinal and the PCI bus.
  Statement st = m_store.database().prepare(
      "SELECT DISTINCT cuda_ordinal, device_index, gpu_uuid, gpu_pci_bus_id FROM v_samples "
      "WHERE metric = 'TFLOP_per_s' ORDER BY cuda_ordinal");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.column_int64(0), 0);
  EXPECT_EQ(st.column_int64(1), 0);
  EXPECT_EQ(st.column_text(2), "GPU-00000002-fixture");
  EXPECT_EQ(st.column_text(3), "0000:12:00.0");
}

TEST_F(GpuIdentityTest, PciBusIdIsTheFallbackWhenTheUuidIsMissing) {
  // CUDA writes upper-case hex; NVML/sysfs lower case.
  const json devices = json::array({{{"index", 0}, {"uuid", ""}, {"pci_bus_id", "0000:13:00.0"}}});
  m_store.ingest_benchmark_json(m_suite_run, gemm_doc(devices, {0}), "gemm");
  EXPECT_EQ(uuids_by_ordinal().at(0), "GPU-00000003-fixture");
}

TEST(PciBusId, NormalisedWithTheWholeDomain) {
  EXPECT_EQ(normalized_pci_bus_id("0000:3B:00.0"), "0000:3b:00.0");      // CUDA
  EXPECT_EQ(normalized_pci_bus_id("00000000:3B:00.0"), "0000:3b:00.0");  // NVML
  EXPECT_EQ(normalized_pci_bus_id(" 0000:3b:00.0\n"), "0000:3b:00.0");   // sysfs, as read
  // A VMD domain (issue 37, allreduce review m10): its last 12 characters are domain 0's.
  EXPECT_EQ(normalized_pci_bus_id("10000:3B:00.0"), "10000:3b:00.0");
  EXPECT_EQ(normalized_pci_bus_id("00010000:3B:00.0"), "10000:3b:00.0");
  EXPECT_NE(normalized_pci_bus_id("10000:3b:00.0"), normalized_pci_bus_id("0000:3b:00.0"));
}

TEST_F(GpuIdentityTest, PciFallbackTellsAVmdDomainFromDomainZero) {
  // Fixture: the run's GPU 3 is 0000:13:00.0; the suite names 10000:13:00.0 (behind a VMD
  // controller) without a UUID. That is another GPU, not run GPU 3.
  const json vmd = json::array({{{"index", 0}, {"uuid", ""}, {"pci_bus_id", "10000:13:00.0"}}});
  m_store.ingest_benchmark_json(m_suite_run, gemm_doc(vmd, {0}), "gemm");
  EXPECT_NE(uuids_by_ordinal().at(0), "GPU-00000003-fixture");
  // NVML's 8-digit domain 0 is the same GPU.
  const int64_t again = m_store.add_suite_run(m_run, testing::sample_suite_run("gemm"));
  const json nvml = json::array({{{"index", 0}, {"uuid", ""}, {"pci_bus_id", "00000000:13:00.0"}}});
  m_store.ingest_benchmark_json(again, gemm_doc(nvml, {0}), "gemm");
  Statement st = m_store.database().prepare(
      "SELECT g.uuid FROM samples s JOIN gpu_devices g ON g.id = s.gpu_device_id "
      "WHERE s.suite_run_id = ?1 LIMIT 1");
  st.bind(1, again);
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.column_text(0), "GPU-00000003-fixture");
}

TEST_F(GpuIdentityTest, AnOrdinalWithoutARecordIsNeverJoinedByIndex) {
  m_store.ingest_benchmark_json(m_suite_run, gemm_doc(json::array(), {1}), "gemm");
  EXPECT_EQ(uuids_by_ordinal().at(1), "");  // unknown, not NVML GPU 1
  Statement st =
      m_store.database().prepare("SELECT count(*) FROM v_samples WHERE gpu_uuid IS NOT NULL");
  st.step();
  EXPECT_EQ(st.column_int64(0), 0);
}

TEST_F(GpuIdentityTest, ADuplicateOrdinalInTheRecordIsBadInput) {
  const json devices =
      json::array({{{"index", 0}, {"uuid", "GPU-a"}}, {{"index", 0}, {"uuid", "GPU-b"}}});
  try {
    m_store.ingest_benchmark_json(m_suite_run, gemm_doc(devices, {0}), "gemm");
    FAIL() << "accepted a device record naming ordinal 0 twice";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("twice"), std::string::npos) << e.what();
  }
}

TEST_F(GpuIdentityTest, SmClockIsSampleStateNotAMetric) {
  const json devices = json::array({{{"index", 0}, {"uuid", "GPU-00000001-fixture"}}});
  m_store.ingest_benchmark_json(m_suite_run, gemm_doc(devices, {0}), "gemm");
  Statement metrics = m_store.database().prepare(
      "SELECT count(*) FROM metrics WHERE lower(name) LIKE '%clock%' OR name LIKE 'window%'");
  metrics.step();
  EXPECT_EQ(metrics.column_int64(0), 0);
  Statement st = m_store.database().prepare(
      "SELECT sm_clock_mhz, window_start_s, window_end_s FROM samples s JOIN metrics m ON "
      "m.id = s.metric_id WHERE m.name = 'TFLOP_per_s' ORDER BY repetition");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.column_double(0), 1755.0);
  EXPECT_EQ(st.column_double(1), 100.0);
  EXPECT_EQ(st.column_double(2), 100.5);
}

// A v1 database held GPU samples with only their CUDA ordinal; v1's view joined them to the run's
// GPU of the same (NVML) index. Migration ties them to the GPU whose UUID the suite recorded for
// that ordinal, and leaves samples without such a record unknown rather than index-joined.
TEST(GpuIdentityMigration, V1SamplesAreTiedByTheSuitesRecordNotByIndex) {
  TempDir dir("gpubench-test-identity-migration");
  const auto path = dir.path() / "v1.db";
  {
    Database raw = Database::open(path, Access::read_write_create, 1000);
    schema::migrations().at(0).apply(raw);
    raw.exec(R"sql(
INSERT INTO meta(key, value) VALUES ('schema_version', '1'), ('compatible_version', '1');
INSERT INTO hosts(id, fingerprint, hostname, cpu_model, kernel, os, governor, arch)
  VALUES (1, 'h', 'old-host', 'cpu', 'k', 'os', 'g', 'x86_64');
INSERT INTO software_envs(id, fingerprint, driver_version, cuda_driver_version,
  cuda_runtime_version, cublas_version, nccl_version, kernel, compiler, gpubench_version, git_sha,
  git_dirty) VALUES (1, 's', 'd', 'c', 'r', 'b', 'n', 'k', 'cc', 'v', 'g', 'false');
INSERT INTO configurations(id, fingerprint, profile, env, clocks_locked)
  VALUES (1, 'c', 'quick', '{}', 'unknown');
INSERT INTO runs(id, uuid, status, started_at, user, argv, host_id, software_env_id,
  configuration_id) VALUES (1, 'run-1', 'complete', '2026-01-01T00:00:00Z', 'u', '[]', 1, 1, 1);
INSERT INTO gpu_devices(id, fingerprint, uuid, name, pci_bus_id, compute_capability, ecc)
  VALUES (10, 'g0', 'GPU-NVML-0', 'NVIDIA H100', '0000:10:00.0', '9.0', 'on'),
         (11, 'g1', 'GPU-NVML-1', 'NVIDIA H100', '0000:11:00.0', '9.0', 'on');
INSERT INTO run_gpus(run_id, device_index, gpu_device_id) VALUES (1, 0, 10), (1, 1, 11);
INSERT INTO suite_runs(id, run_id, suite, executable, argv, started_at, finished_at, duration_s,
  status, context) VALUES
  (1, 1, 'gemm', 'gpubench-gemm', '[]', 'a', 'b', 1, 'ok',
   '{"gpubench.devices": "[{\"index\":0,\"uuid\":\"GPU-NVML-1\"}]"}'),
  (2, 1, 'other', 'x', '[]', 'a', 'b', 1, 'ok', '{}');
INSERT INTO benchmarks(id, name, suite, case_name, params) VALUES (1, 'gemm/x/device:0', 'gemm', 'x', '{}');
INSERT INTO metrics(id, name, unit, direction) VALUES (1, 'TFLOP_per_s', 'TFLOP/s', 'higher');
INSERT INTO samples(suite_run_id, benchmark_id, metric_id, device_index, kind, value)
  VALUES (1, 1, 1, 0, 'iteration', 700), (2, 1, 1, 0, 'iteration', 1);
)sql");
  }
  Store store = Store::open(path, OpenMode::read_write);
  Statement st = store.database().prepare(
      "SELECT suite_run_id, gpu_uuid, cuda_ordinal FROM v_samples ORDER BY suite_run_id");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.column_text(1), "GPU-NVML-1");  // v1's view said GPU-NVML-0 (same index)
  EXPECT_EQ(st.column_int64(2), 0);
  ASSERT_TRUE(st.step());
  EXPECT_TRUE(st.is_null(1)) << "no record of ordinal 0 in that suite: unknown, not NVML GPU 0";
  // The v3 step filled the per-run series medians of the samples already stored.
  Statement m = store.database().prepare(
      "SELECT suite_run_id, device_index, n, median FROM series_medians ORDER BY suite_run_id");
  ASSERT_TRUE(m.step());
  EXPECT_EQ(m.column_int64(0), 1);
  EXPECT_EQ(m.column_int64(1), 0);
  EXPECT_EQ(m.column_int64(2), 1);
  EXPECT_EQ(m.column_double(3), 700);
  ASSERT_TRUE(m.step());
  EXPECT_EQ(m.column_double(3), 1);
  EXPECT_FALSE(m.step());
}

}  // namespace
}  // namespace gpubench::results
