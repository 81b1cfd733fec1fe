// The image cases end to end: `gpubench run --suite dataloader` (the real CLI, the real suite
// binary as its child process) into a temp SQLite database, then the database read back. With
// libturbojpeg the image cases are stored with their metrics; without it they are stored as
// skipped with the codec's reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "suites/dataloader/jpeg_codec.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

// Every row of `sql` as its columns' text.
std::vector<std::vector<std::string>> query(const fs::path& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  std::vector<std::vector<std::string>> rows;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << db;
    sqlite3_close(handle);
    return rows;
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sqlite3_errmsg(handle) << ": " << sql;
  } else {
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const auto* text = sqlite3_column_text(stmt, i);
        row.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
      }
      rows.push_back(std::move(row));
    }
  }
  sqlite3_finalize(stmt);
  sqlite3_close(handle);
  return rows;
}

// The case name of a stored benchmark name (Google Benchmark appends /iterations:N/manual_time).
std::string case_of(const std::string& stored) {
  return stored.substr(0, stored.find("/iterations:"));
}

// Runs `gpubench run` on the image cases of a tiny quick profile (`env`: more NAME=value
// assignments); returns its exit code.
int run_image_cases(const gpubench::TempDir& tmp, const fs::path& db, std::string& output,
                    const std::string& env = "") {
  fs::create_directories(tmp.path() / "data");
  const fs::path bin_dir = GPUBENCH_BIN_DIR;
  const fs::path log = tmp.path() / "run.txt";
  const std::string cmd =
      "env CI=1 " + env + " GPUBENCH_SUITE_PATH='" + bin_dir.string() + "' GPUBENCH_DATA_DIR='" +
      (tmp.path() / "data").string() +
      "' GPUBENCH_DATALOADER_DATASET_MIB=8 GPUBENCH_DATALOADER_WORKERS=1,2 '" +
      (bin_dir / "gpubench").string() + "' --db='" + db.string() +
      "' run --suite dataloader --profile quick --executions 2 --repetitions 1 --filter "
      "'dataloader/image/format:wds/size:500x375/.*(workers:1/order:shuffled/cache:warm|"
      "order:sequential/cache:cold)' >'" +
      log.string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  output = gpubench::read_file(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST(ImagePipelineE2e, RunStoresTheImageCasesWithTheirMetricsOrTheCodecsSkip) {
  gpubench::TempDir tmp("dl-image-e2e");
  const fs::path db = tmp.path() / "results.db";
  std::string output;
  ASSERT_EQ(run_image_cases(tmp, db, output), 0) << output;
  const auto outcomes = query(db,
                              "SELECT b.name, o.status, o.message FROM benchmark_outcomes o "
                              "JOIN benchmarks b ON b.id = o.benchmark_id "
                              "WHERE b.name LIKE 'dataloader/image/%' ORDER BY b.name");
  const std::string seq =
      "dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/workers:2/"
      "order:sequential/cache:cold";
  const std::string one =
      "dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/workers:1/"
      "order:shuffled/cache:warm";
  std::map<std::string, int> cases;
  for (const auto& row : outcomes) cases[case_of(row[0])] += 1;
  EXPECT_EQ(cases, (std::map<std::string, int>{{one, 2}, {seq, 2}})) << output;

  std::string reason;
  if (gpubench::dataloader::JpegCodec::get(&reason) == nullptr) {
    // No codec here: each is stored skipped, with the reason the codec gives.
    for (const auto& row : outcomes) {
      EXPECT_EQ(row[1], "skipped") << row[0];
      EXPECT_THAT(row[2], HasSubstr(reason)) << row[0];
    }
    return;
  }
  for (const auto& row : outcomes) EXPECT_EQ(row[1], "ok") << row[0] << ": " << row[2];
  const auto values = query(db,
                            "SELECT b.name, m.name, MIN(s.value), MAX(s.value), COUNT(*) "
                            "FROM samples s JOIN benchmarks b ON b.id = s.benchmark_id "
                            "JOIN metrics m ON m.id = s.metric_id "
                            "WHERE b.name LIKE 'dataloader/image/%' AND s.kind = 'iteration' "
                            "GROUP BY b.name, m.name");
  std::map<std::string, std::map<std::string, std::pair<double, double>>> got;
  for (const auto& row : values) {
    got[case_of(row[0])][row[1]] = {std::stod(row[2]), std::stod(row[3])};
    EXPECT_EQ(row[4], "2") << row[0] << " " << row[1] << ": one sample per execution";
  }
  for (const std::string& name : {one, seq}) {
    ASSERT_TRUE(got.count(name)) << name << "\n" << output;
    const auto& m = got[name];
    for (const char* metric : {"images_per_s", "samples_per_s", "MB_per_s", "input_MB_per_s",
                               "cpu_cores_used", "batch_p50_us"}) {
      ASSERT_TRUE(m.count(metric)) << name << " has no " << metric;
      EXPECT_GT(m.at(metric).first, 0) << name << " " << metric;
    }
    // Decoding is part of the work and never all of it (reading and augmenting are the rest).
    EXPECT_GT(m.at("decode_fraction").first, 0) << name;
    EXPECT_LT(m.at("decode_fraction").second, 1) << name;
    // 224x224x3 bf16 + a 4-byte label per image.
    EXPECT_NEAR(m.at("MB_per_s").first / m.at("images_per_s").first, (301056 + 4) / 1e6, 1e-6);
  }
  EXPECT_TRUE(got[seq].count("resident_fraction")) << "the cold case reports what stayed cached";
}

// Without libturbojpeg (only an empty directory searched) the image cases are stored as skipped
// with the codec's reason, and the run still succeeds.
TEST(ImagePipelineE2e, WithoutLibturbojpegTheImageCasesAreStoredSkippedWithTheReason) {
  gpubench::TempDir tmp("dl-image-e2e-nojpeg");
  fs::create_directories(tmp.path() / "nolibs");
  const fs::path db = tmp.path() / "results.db";
  std::string output;
  ASSERT_EQ(run_image_cases(tmp, db, output,
                            "GPUBENCH_TURBOJPEG_LIBS_ONLY=1 GPUBENCH_TURBOJPEG_LIBS='" +
                                (tmp.path() / "nolibs").string() + "'"),
            0)
      << output;
  const auto outcomes = query(db,
                              "SELECT b.name, o.status, o.message FROM benchmark_outcomes o "
                              "JOIN benchmarks b ON b.id = o.benchmark_id "
                              "WHERE b.name LIKE 'dataloader/image/%'");
  ASSERT_EQ(outcomes.size(), 4u) << output;  // 2 cases x 2 executions
  for (const auto& row : outcomes) {
    EXPECT_EQ(row[1], "skipped") << row[0];
    EXPECT_THAT(row[2], HasSubstr("libturbojpeg.so.0 not found")) << row[0];
    EXPECT_THAT(row[2], HasSubstr((tmp.path() / "nolibs").string())) << row[0];
  }
  EXPECT_TRUE(query(db,
                    "SELECT 1 FROM samples s JOIN benchmarks b ON b.id = s.benchmark_id "
                    "WHERE b.name LIKE 'dataloader/image/%'")
                  .empty());
}
