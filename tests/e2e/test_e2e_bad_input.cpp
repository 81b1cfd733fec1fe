// Every bad input from issue 2 against the real binary: each gives a clear message naming the
// cause and the fix, a non-zero exit, and loses nothing already stored.
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "e2e_faults_support.hpp"
#include "e2e_support.hpp"
#include "results/ingest/ingest.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

// A raw SQLite connection for the tests that tamper with or lock the database (one class with
// the fault tests: e2e_faults_support.hpp).
using RawDb = FaultDb;

std::size_t run_count(const Workspace& ws) {
  const CliResult r = ws.run({"runs", "--format", "json", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out).size() : 0;
}

// Messages follow "gpubench: error: <what> (<why>; <what to do>)".
void expect_error_shape(const CliResult& r) {
  EXPECT_TRUE(contains(r.err, "gpubench: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, " (")) << r.err;
  EXPECT_TRUE(contains(r.err, "; ")) << r.err;
}

TEST(E2eBadInput, MissingDatabaseForReading) {
  Workspace ws;
  for (const char* cmd : {"runs", "show", "export"}) {
    SCOPED_TRACE(cmd);
    std::vector<std::string> args = {cmd};
    if (std::string(cmd) != "runs") args.push_back("latest");
    args.push_back(ws.db_arg());
    const CliResult r = ws.run(args);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_TRUE(contains(r.err, ws.db().filename().string())) << r.err;
    expect_error_shape(r);
    EXPECT_FALSE(fs::exists(ws.db()));  // reading never creates it
  }
}

TEST(E2eBadInput, DatabaseInMissingDirectory) {
  Workspace ws;
  const fs::path db = ws.root() / "no/such/dir/results.db";
  const CliResult r = ws.run({"run", "--suite", "fixture_ok", "--db", db.string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "no/such/dir")) << r.err;
  expect_error_shape(r);
}

TEST(E2eBadInput, UnreadableDatabasePath) {
  Workspace ws;
  // A directory where the database should be: unreadable as a database even for root.
  const fs::path dir_db = ws.root() / "dir.db";
  fs::create_directory(dir_db);
  const CliResult r = ws.run({"runs", "--db", dir_db.string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "dir.db")) << r.err;
  expect_error_shape(r);
  if (geteuid() != 0) {  // root reads anything; permissions only bite for other users
    ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
    fs::permissions(ws.db(), fs::perms::none);
    const CliResult denied = ws.run({"runs", ws.db_arg()});
    fs::permissions(ws.db(), fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_NE(denied.exit_code, 0);
    expect_error_shape(denied);
  }
}

TEST(E2eBadInput, NotASqliteFileIsLeftAlone) {
  Workspace ws;
  const std::string content = "this is a text file, not a database\n";
  write_file_atomic(ws.db(), content);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--suite", "fixture_ok"},
        {"runs"},
        {"import", (fixture_dir() / "foreign_gb.json").string()}}) {
    std::vector<std::string> a = args;
    a.push_back(ws.db_arg());
    const CliResult r = ws.run(a);
    // The store reports this as bad input (2); either way it must be a clean, non-zero failure.
    EXPECT_TRUE(r.exit_code == 2 || r.exit_code == 3) << r.exit_code << r.err;
    EXPECT_TRUE(contains(r.err, "results.db")) << r.err;
    EXPECT_TRUE(contains(r.err, "not SQLite")) << r.err;
    expect_error_shape(r);
    EXPECT_EQ(read_file(ws.db()), content);
  }
}

TEST(E2eBadInput, DatabaseFromANewerGpubenchIsRefusedUnchanged) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  {
    RawDb raw(ws.db());
    raw.exec("UPDATE meta SET value = '999' WHERE key IN ('schema_version', 'compatible_version')");
  }
  const std::string before = read_file(ws.db());
  for (const char* cmd : {"run", "runs"}) {
    std::vector<std::string> args = {cmd, ws.db_arg()};
    if (std::string(cmd) == "run") args = {"run", "--suite", "fixture_ok", ws.db_arg()};
    const CliResult r = ws.run(args);
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_TRUE(contains(r.err, "newer gpubench")) << r.err;
    EXPECT_TRUE(contains(r.err, "999")) << r.err;
    expect_error_shape(r);
  }
  EXPECT_EQ(read_file(ws.db()), before);
  RawDb raw(ws.db());
  EXPECT_EQ(raw.scalar("SELECT count(*) FROM runs"), "1");
}

TEST(E2eBadInput, LockedDatabaseFailsCleanlyOrWaits) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  {
    RawDb holder(ws.db());
    holder.exec("BEGIN EXCLUSIVE");
    const CliResult r = ws.run({"run", "--suite", "fixture_ok", ws.db_arg()},
                               {{"GPUBENCH_BUSY_TIMEOUT_MS", "300"}});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "locked")) << r.err;
    expect_error_shape(r);
    holder.exec("ROLLBACK");
  }
  EXPECT_EQ(run_count(ws), 1u);
  // With the default wait, a second writer proceeds once the lock goes away.
  RawDb holder(ws.db());
  holder.exec("BEGIN EXCLUSIVE");
  auto second = std::async(std::launch::async, [&] {
    return ws.run({"run", "--suite", "fixture_ok", ws.db_arg()});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  holder.exec("COMMIT");
  const CliResult r = second.get();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(run_count(ws), 2u);
  EXPECT_EQ(holder.scalar("PRAGMA integrity_check"), "ok");
}

// A bad --tag, an empty --db and a database that is not one are reported as what they are,
// never as a file that "is not valid JSON", with their own exit codes; nothing is stored.
TEST(E2eBadInput, ImportArgumentAndDatabaseErrorsAreNotTheFiles) {
  Workspace ws;
  const std::string file = (fixture_dir() / "foreign_gb.json").string();
  CliResult r = ws.run({"import", file, "--tag", "bad", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "bad tag 'bad'")) << r.err;
  EXPECT_FALSE(contains(r.err, "not valid JSON")) << r.err;
  EXPECT_FALSE(fs::exists(ws.db()));
  r = ws.run({"import", file, "--db", ""});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--db is empty")) << r.err;
  EXPECT_FALSE(contains(r.err, "not valid JSON")) << r.err;
  const fs::path corrupt = ws.root() / "corrupt.db";
  write_file_atomic(corrupt, "this is not a database\n");
  r = ws.run({"import", file, "--db", corrupt.string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.err, "not a gpubench database")) << r.err;
  EXPECT_FALSE(contains(r.err, "not valid JSON")) << r.err;
  EXPECT_EQ(read_file(corrupt), "this is not a database\n");
}

TEST(E2eBadInput, ImportOfAForeignFile) {
  Workspace ws;
  const CliResult r = ws.run({"import", (fixture_dir() / "foreign_gb.json").string(), "--tag",
                              "source=foreign", ws.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "imported")) << r.out;
  const json detail = json::parse(ws.run({"show", "latest", "--format", "json", ws.db_arg()}).out);
  EXPECT_EQ(detail["run"]["status"], "complete");
  EXPECT_EQ(detail["run"]["started_at"], "2026-11-30T08:15:02.000Z");  // +01:00 -> UTC
  EXPECT_EQ(detail["environment"]["host"]["hostname"], "fixture-foreign-host");
  bool found = false;
  for (const auto& row : detail["results"]) {
    if (row["benchmark"] == "BM_Sort/1024" && row["metric"] == "sorted_elems") {
      found = true;
      EXPECT_EQ(row["direction"], "unknown");  // no gpubench.metrics in a foreign file
      EXPECT_EQ(row["values"].size(), 2u);
    }
  }
  EXPECT_TRUE(found) << detail.dump(1);
}

TEST(E2eBadInput, BadImportFilesChangeNothing) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  const std::string before = read_file(ws.db());
  const std::string full = read_file(fixture_dir() / "foreign_gb.json");
  struct Case {
    const char* name;
    std::string content;
    const char* why;
  };
  const Case cases[] = {
      {"truncated.json", full.substr(0, full.size() / 2), "not valid JSON"},
      {"text.json", "hello, this is not JSON\n", "not valid JSON"},
      {"empty.json", "", "not valid JSON"},
      {"object.json", R"({"results": [1, 2, 3]})", "not Google Benchmark output"},
      {"array.json", R"([{"name": "x"}])", "not Google Benchmark output"},
      {"wrongtype.json", R"({"benchmarks": {"name": "x"}})", "not Google Benchmark output"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path file = ws.root() / c.name;
    write_file_atomic(file, c.content);
    const CliResult r = ws.run({"import", file.string(), ws.db_arg()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, c.name)) << r.err;
    EXPECT_TRUE(contains(r.err, c.why)) << r.err;
    EXPECT_TRUE(contains(r.err, "--benchmark_out_format=json")) << r.err;
    expect_error_shape(r);
  }
  // A bad entry half-way through a streamed file: the entries already stored roll back.
  {
    nlohmann::json doc = results::parse_benchmark_json(full, "foreign_gb.json");
    ASSERT_GE(doc["benchmarks"].size(), 2u);
    doc["benchmarks"][1]["time_unit"] = "fortnights";
    const fs::path file = ws.root() / "badunit.json";
    // Context first, as Google Benchmark writes it, so the entries stream in before the bad one.
    write_file_atomic(file, "{\"context\": " + doc["context"].dump() +
                                ", \"benchmarks\": " + doc["benchmarks"].dump() + "}");
    const CliResult r = ws.run({"import", file.string(), ws.db_arg()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "badunit.json")) << r.err;
    EXPECT_TRUE(contains(r.err, "fortnights")) << r.err;
    EXPECT_TRUE(contains(r.err, "the database was not changed")) << r.err;
    expect_error_shape(r);
  }
  const CliResult missing = ws.run({"import", (ws.root() / "nope.json").string(), ws.db_arg()});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_TRUE(contains(missing.err, "nope.json")) << missing.err;
  EXPECT_EQ(read_file(ws.db()), before);
  EXPECT_EQ(run_count(ws), 1u);
  // A bad import against a database that does not exist yet does not create it.
  const fs::path fresh = ws.root() / "fresh.db";
  EXPECT_EQ(
      ws.run({"import", (ws.root() / "text.json").string(), "--db", fresh.string()}).exit_code, 2);
  EXPECT_FALSE(fs::exists(fresh));
  // Nor does one that fails after its entries started streaming in.
  for (const char* name : {"truncated.json", "badunit.json"}) {
    const CliResult r = ws.run({"import", (ws.root() / name).string(), "--db", fresh.string()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_FALSE(fs::exists(fresh)) << name << ": " << r.err;
    EXPECT_FALSE(fs::exists(fresh.string() + "-wal")) << name;
  }
}

TEST(E2eBadInput, UnknownRunIds) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  for (const char* id : {"999", "latest~5", "deadbeef-0000", "garbage"}) {
    SCOPED_TRACE(id);
    for (const char* cmd : {"show", "export"}) {
      const CliResult r = ws.run({cmd, id, ws.db_arg()});
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_TRUE(contains(r.err, id)) << r.err;
      expect_error_shape(r);
    }
  }
  EXPECT_EQ(run_count(ws), 1u);
}

}  // namespace
}  // namespace gpubench::e2e
