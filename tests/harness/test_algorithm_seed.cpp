// gemm's cuBLASLt choices across runs (harness/run/algorithm_seed.hpp) against a real store and
// real scratch directories: kept after a run, seeded before the next on the same GPU model,
// driver and cuBLAS version, never on another or on an unknown fact, the newest first, with the
// run that searched each one as its origin. GPU names, versions and algorithm bytes are FIXTURES
// (made up), not measurements.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness/run/algorithm_seed.hpp"
#include "results/algorithm_choices.hpp"
#include "results/store.hpp"
#include "util/algorithm_file.hpp"
#include "util/fs.hpp"

namespace gpubench::harness {
namespace {

namespace fs = std::filesystem;
using algorithm_file::Choice;

results::GpuInfo gpu(const std::string& name, const std::string& bus) {
  results::GpuInfo g;
  g.name = name;
  g.pci_bus_id = bus;
  return g;
}

TEST(CaseGpuModel, OneModelEverywhereElseByPciOrder) {
  const std::vector<results::GpuInfo> same = {gpu("NVIDIA H200", "0000:3B:00.0"),
                                              gpu("NVIDIA H200", "0000:19:00.0")};
  EXPECT_EQ(case_gpu_model("gemm/x/device:1", same, {}), "NVIDIA H200");
  EXPECT_EQ(case_gpu_model("gemm/x", same, {{"CUDA_VISIBLE_DEVICES", "1"}}), "NVIDIA H200");
  // Mixed models: device:N is the N-th GPU in PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID).
  const std::vector<results::GpuInfo> mixed = {gpu("NVIDIA L40S", "0000:3B:00.0"),
                                               gpu("NVIDIA H100", "0000:19:00.0")};
  EXPECT_EQ(case_gpu_model("gemm/x/device:0/iterations:5/manual_time", mixed, {}), "NVIDIA H100");
  EXPECT_EQ(case_gpu_model("gemm/x/device:1", mixed, {}), "NVIDIA L40S");
  // Unless the GPUs are renumbered, the name gives no device, or it is not there: unknown.
  EXPECT_EQ(case_gpu_model("gemm/x/device:0", mixed, {{"CUDA_VISIBLE_DEVICES", "1,0"}}), "unknown");
  EXPECT_EQ(case_gpu_model("gemm/x", mixed, {}), "unknown");
  EXPECT_EQ(case_gpu_model("gemm/x/device:2", mixed, {}), "unknown");
  EXPECT_EQ(case_gpu_model("gemm/x/device:0", {}, {}), "unknown");
  EXPECT_EQ(case_gpu_model("gemm/x/device:0", {gpu("unknown", "unknown")}, {}), "unknown");
}

class AlgorithmSeed : public ::testing::Test {
 protected:
  TempDir m_dir{"gpubench-test-seed"};
  results::Store m_store =
      results::Store::open(m_dir.path() / "gpubench.db", results::OpenMode::read_write_create);
  int m_runs = 0;

  // A stored run on a server of two `model` GPUs with these versions; its scratch directory.
  struct Run {
    int64_t id = 0;
    std::string uuid;
    fs::path scratch;
  };
  Run begin(const std::string& model = "NVIDIA H200", const std::string& driver = "560.35.03",
            const std::string& cublas = "13.0.2") {
    results::RunInfo info;
    char day[40];
    std::snprintf(day, sizeof day, "2026-11-%02dT00:00:00Z", ++m_runs);  // later runs are newer
    info.started_at = day;
    info.gpus = {gpu(model, "0000:19:00.0"), gpu(model, "0000:3B:00.0")};
    info.gpus[0].uuid = "GPU-FIXTURE-" + std::to_string(m_runs) + "-0";
    info.gpus[1].uuid = "GPU-FIXTURE-" + std::to_string(m_runs) + "-1";
    info.gpus[1].nvml_index = 1;
    info.software.driver_version = driver;
    info.software.cublas_version = cublas;
    Run r;
    r.id = m_store.begin_run(info);
    r.uuid = m_store.get_run(r.id).run.uuid;
    r.scratch = m_dir.path() / ("scratch" + std::to_string(m_runs));
    fs::create_directories(r.scratch);
    return r;
  }

  // The run's gemm suite: cases `ok` ran (their names as Google Benchmark writes them), `failed`
  // reported an error.
  void ran(const Run& r, const std::vector<std::string>& ok,
           const std::vector<std::string>& failed = {}) {
    nlohmann::json doc = {{"context", {{"date", "2026-12-01T00:00:00+00:00"}}},
                          {"benchmarks", nlohmann::json::array()}};
    for (const std::string& c : ok) {
      const std::string name = c + "/iterations:2/manual_time";
      doc["benchmarks"].push_back({{"name", name},
                                   {"run_name", name},
                                   {"run_type", "iteration"},
                                   {"iterations", 2},
                                   {"real_time", 10.0},
                                   {"cpu_time", 1.0},
                                   {"time_unit", "us"}});
    }
    for (const std::string& c : failed) {
      const std::string name = c + "/iterations:2/manual_time";
      doc["benchmarks"].push_back({{"name", name},
                                   {"run_name", name},
                                   {"run_type", "iteration"},
                                   {"iterations", 0},
                                   {"real_time", 0},
                                   {"cpu_time", 0},
                                   {"time_unit", "us"},
                                   {"error_occurred", true},
                                   {"error_message", "validation failed (fixture)"}});
    }
    results::SuiteRunInfo s;
    s.suite = "gemm";
    m_store.ingest_benchmark_json(m_store.add_suite_run(r.id, s), doc, "gemm");
  }

  // A choice the gemm suite searched and appended to the run's file.
  static void searched(const Run& r, const std::string& key, std::uint64_t word,
                       const std::string& description) {
    Choice c;
    c.bytes[0] = word;
    c.description = description;
    c.median_call_ms = 0.125;
    ASSERT_TRUE(algorithm_file::append_choice(r.scratch / algorithm_file::k_file_name, key, c));
  }

  static std::map<std::string, Choice> file_of(const Run& r) {
    return algorithm_file::read_choices(r.scratch / algorithm_file::k_file_name);
  }
};

TEST_F(AlgorithmSeed, ARunsChoicesAreKeptAndTheNextRunReusesThem) {
  const Run first = begin();
  EXPECT_EQ(seed_algorithms(m_store, first.id, first.scratch), 0u);  // nothing stored yet
  EXPECT_FALSE(fs::exists(first.scratch / algorithm_file::k_file_name));
  searched(first, "gemm/x/device:0", 1, "algo=23 tile=20 stages=15 splitk=1");
  searched(first, "gemm/x/device:1", 2, "algo=24");
  searched(first, "gemm/failed/device:0", 3, "algo=5");
  ran(first, {"gemm/x/device:0", "gemm/x/device:1"}, {"gemm/failed/device:0"});
  EXPECT_EQ(keep_algorithms(m_store, first.id, first.scratch), 2u);
  const auto kept = results::algorithm_choices_of_run(m_store, first.id);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].benchmark, "gemm/x/device:0");
  EXPECT_EQ(kept[0].gpu_model, "NVIDIA H200");
  EXPECT_EQ(kept[0].driver_version, "560.35.03");
  EXPECT_EQ(kept[0].cublas_version, "13.0.2");
  EXPECT_EQ(kept[0].description, "algo=23 tile=20 stages=15 splitk=1");
  EXPECT_EQ(kept[0].origin_run_uuid, "");  // searched by its own run
  EXPECT_EQ(kept[0].median_call_ms, std::optional<double>(0.125));

  // The next run on the same model, driver and library starts with them.
  const Run second = begin();
  EXPECT_EQ(seed_algorithms(m_store, second.id, second.scratch), 2u);
  const auto seeded = file_of(second);
  ASSERT_EQ(seeded.size(), 2u);
  EXPECT_EQ(seeded.at("gemm/x/device:0").bytes[0], 1u);
  EXPECT_EQ(seeded.at("gemm/x/device:0").description, "algo=23 tile=20 stages=15 splitk=1");
  EXPECT_EQ(seeded.at("gemm/x/device:0").origin, "history:" + first.uuid);
  EXPECT_EQ(seeded.at("gemm/x/device:1").bytes[0], 2u);
  // It used them: kept with it, naming the run that searched them.
  ran(second, {"gemm/x/device:0", "gemm/x/device:1"});
  EXPECT_EQ(keep_algorithms(m_store, second.id, second.scratch), 2u);
  EXPECT_EQ(results::algorithm_choices_of_run(m_store, second.id)[0].origin_run_uuid, first.uuid);
  // A third run still names the run that searched them, not the one that reused them.
  const Run third = begin();
  EXPECT_EQ(seed_algorithms(m_store, third.id, third.scratch), 2u);
  EXPECT_EQ(file_of(third).at("gemm/x/device:0").origin, "history:" + first.uuid);
}

TEST_F(AlgorithmSeed, OnlyTheSameModelDriverAndLibraryAreSeeded) {
  const Run first = begin();
  searched(first, "gemm/x/device:0", 1, "algo=1");
  ran(first, {"gemm/x/device:0"});
  ASSERT_EQ(keep_algorithms(m_store, first.id, first.scratch), 1u);
  for (const Run& other :
       {begin("NVIDIA H100"), begin("NVIDIA H200", "570.10.01"),
        begin("NVIDIA H200", "560.35.03", "13.1.0"), begin("NVIDIA H200", "unknown"),
        begin("NVIDIA H200", "560.35.03", "unknown"), begin("unknown")}) {
    EXPECT_EQ(seed_algorithms(m_store, other.id, other.scratch), 0u) << other.id;
    EXPECT_FALSE(fs::exists(other.scratch / algorithm_file::k_file_name)) << other.id;
  }
}

// The newest matching choice of each case wins: a newer run on another GPU model is passed over
// for an older one on this model; a search after a failed check (or --reselect-algos) is newest.
TEST_F(AlgorithmSeed, TheNewestMatchingChoiceOfEachCaseIsSeeded) {
  const Run old_run = begin();
  searched(old_run, "gemm/x/device:0", 1, "algo=1");
  searched(old_run, "gemm/y/device:0", 10, "algo=10");
  ran(old_run, {"gemm/x/device:0", "gemm/y/device:0"});
  keep_algorithms(m_store, old_run.id, old_run.scratch);
  const Run research = begin();  // e.g. --reselect-algos: searched again, x only
  searched(research, "gemm/x/device:0", 2, "algo=2");
  ran(research, {"gemm/x/device:0"});
  keep_algorithms(m_store, research.id, research.scratch);
  const Run elsewhere = begin("NVIDIA H100");  // the newest, but another model
  searched(elsewhere, "gemm/x/device:0", 7, "algo=7");
  ran(elsewhere, {"gemm/x/device:0"});
  keep_algorithms(m_store, elsewhere.id, elsewhere.scratch);

  const Run next = begin();
  ASSERT_EQ(seed_algorithms(m_store, next.id, next.scratch), 2u);
  const auto seeded = file_of(next);
  EXPECT_EQ(seeded.at("gemm/x/device:0").bytes[0], 2u);
  EXPECT_EQ(seeded.at("gemm/x/device:0").origin, "history:" + research.uuid);
  EXPECT_EQ(seeded.at("gemm/y/device:0").bytes[0], 10u);
  EXPECT_EQ(seeded.at("gemm/y/device:0").origin, "history:" + old_run.uuid);
  // A seeded choice that failed cublasLtMatmulAlgoCheck was searched again (appended): the run
  // keeps the new one as its own search.
  searched(next, "gemm/y/device:0", 11, "algo=11");
  ran(next, {"gemm/x/device:0", "gemm/y/device:0"});
  keep_algorithms(m_store, next.id, next.scratch);
  const auto kept = results::algorithm_choices_of_run(m_store, next.id);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].origin_run_uuid, research.uuid);
  EXPECT_EQ(kept[1].description, "algo=11");
  EXPECT_EQ(kept[1].origin_run_uuid, "");
}

}  // namespace
}  // namespace gpubench::harness
