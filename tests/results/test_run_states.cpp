// Run states (issue 10): liveness locks, abandoned runs, a suite's results as one transaction,
// all-or-nothing imports, and the v2 schema's widened status check.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <thread>

#include "helpers.hpp"
#include "results/liveness.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::load_fixture;
using testing::sample_run_info;
using testing::sample_suite_run;

class RunStatesTest : public ::testing::Test {
 protected:
  fs::path db_path() const { return m_dir.path() / "runs.db"; }
  std::string scalar(Store& store, const std::string& sql) {
    Statement st = store.database().prepare(sql);
    return st.step() ? st.column_text(0) : std::string();
  }
  TempDir m_dir{"gpubench-test-run-states"};
};

TEST_F(RunStatesTest, LiveRunIsNotAbandonedDeadRunIs) {
  std::optional<Store> owner(Store::open(db_path(), OpenMode::read_write_create));
  const int64_t run = owner->begin_run(sample_run_info());
  owner->add_suite_run(run, sample_suite_run());
  const std::string uuid = scalar(*owner, "SELECT uuid FROM runs");
  const fs::path lock = run_lock_path(db_path(), uuid);
  EXPECT_TRUE(fs::exists(lock));
  {
    // Another writer while the owner lives: the run stays running.
    Store other = Store::open(db_path(), OpenMode::read_write);
    EXPECT_EQ(scalar(other, "SELECT status FROM runs"), "running");
    EXPECT_FALSE(other.list_runs()[0].owner_gone);
  }
  owner.reset();  // the owner goes away without finishing (as a killed process would)
  {
    Store reader = Store::open(db_path(), OpenMode::read_only);
    const RunRow row = reader.list_runs()[0];
    EXPECT_EQ(row.status, RunStatus::running);  // readers never write...
    EXPECT_TRUE(row.owner_gone);                // ...but see the owner is gone
  }
  Store writer = Store::open(db_path(), OpenMode::read_write);
  EXPECT_EQ(scalar(writer, "SELECT status FROM runs"), "abandoned");
  EXPECT_NE(scalar(writer, "SELECT status_reason FROM runs").find("no longer held"),
            std::string::npos);
  EXPECT_EQ(scalar(writer, "SELECT count(*) FROM suite_runs"), "1");  // finished suites kept
  EXPECT_FALSE(fs::exists(lock));
  EXPECT_EQ(writer.list_runs()[0].status, RunStatus::abandoned);
}

TEST_F(RunStatesTest, FinishedRunReleasesItsLock) {
  Store store = Store::open(db_path(), OpenMode::read_write_create);
  const int64_t run = store.begin_run(sample_run_info());
  const fs::path lock = run_lock_path(db_path(), scalar(store, "SELECT uuid FROM runs"));
  store.finish_run(run, RunStatus::complete);
  EXPECT_FALSE(fs::exists(lock));
}

TEST_F(RunStatesTest, RunWithoutOwnerRecordIsAbandoned) {
  {
    Store store = Store::open(db_path(), OpenMode::read_write_create);
    store.begin_run(sample_run_info());
    store.database().exec("DELETE FROM run_liveness");  // as a gpubench 1.x run would be
  }
  Store store = Store::open(db_path(), OpenMode::read_write);
  EXPECT_EQ(scalar(store, "SELECT status FROM runs"), "abandoned");
}

TEST_F(RunStatesTest, SuiteResultsAreOneTransaction) {
  Store store = Store::open(db_path(), OpenMode::read_write_create);
  const int64_t run = store.begin_run(sample_run_info());
  // A document that fails half way (an unknown time unit in its second entry): nothing stays.
  json doc = load_fixture("gb171_repetitions.json");
  ASSERT_GE(doc["benchmarks"].size(), 2u);
  doc["benchmarks"][1]["time_unit"] = "parsec";
  TelemetrySample t;
  t.nvml_index = 0;
  EXPECT_THROW(store.store_suite(run, sample_suite_run(), &doc, "memory", {t}), Error);
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM suite_runs"), "0");
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM samples"), "0");
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM telemetry"), "0");
  const StoredSuite ok = store.store_suite(run, sample_suite_run(), nullptr, "memory", {t});
  EXPECT_FALSE(ok.ingested);
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM telemetry"), "1");
}

TEST_F(RunStatesTest, ImportIsAllOrNothing) {
  Store store = Store::open(db_path(), OpenMode::read_write_create);
  json doc = load_fixture("gb171_repetitions.json");
  doc["benchmarks"][1]["time_unit"] = "parsec";
  int64_t run = 0;
  EXPECT_THROW(store.import_run(sample_run_info(), sample_suite_run(), doc, "memory", run), Error);
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM runs"), "0");
  EXPECT_EQ(scalar(store, "SELECT count(*) FROM benchmarks"), "0");
  const StoredSuite s = store.import_run(sample_run_info(), sample_suite_run(),
                                         load_fixture("gb171_repetitions.json"), "memory", run);
  EXPECT_GT(s.summary.samples, 0);
  EXPECT_EQ(scalar(store, "SELECT status FROM runs"), "complete");
}

TEST_F(RunStatesTest, StatusCheckStillRefusesUnknownStates) {
  Store store = Store::open(db_path(), OpenMode::read_write_create);
  const int64_t run = store.begin_run(sample_run_info());
  store.finish_run(run, RunStatus::abandoned);
  EXPECT_THROW(store.database().exec("UPDATE runs SET status = 'bogus'"), Error);
  EXPECT_EQ(scalar(store, "PRAGMA integrity_check"), "ok");
}

TEST_F(RunStatesTest, LockWaitGivesUpWhenInterrupted) {
  static int signals = 0;
  set_busy_interrupt_counter([] { return signals; });
  Store holder = Store::open(db_path(), OpenMode::read_write_create);
  Store waiter = Store::open(db_path(), OpenMode::read_write, 60000);
  Transaction hold(holder.database());
  std::thread interrupter([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ++signals;
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(waiter.begin_run(sample_run_info()), Error);
  interrupter.join();
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  set_busy_interrupt_counter(nullptr);
  EXPECT_LT(waited, 10.0);  // not the 60 s timeout
}

}  // namespace
}  // namespace gpubench::results
