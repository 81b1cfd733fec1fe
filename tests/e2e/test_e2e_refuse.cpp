// Issue 23, items 14-20 ("Inputs accepted that should be refused"), against the real binary:
// every bad value or option exits 2 naming it, an output that cannot be written exits 3, doctor
// looks where the dataloader writes, and nothing of a killed gpubench outlives it.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::size_t run_count(const Workspace& ws) {
  const CliResult r = ws.run({"runs", "--format", "json", ws.db_arg()});
  return r.exit_code == 0 ? json::parse(r.out).size() : 0;
}

// A Google Benchmark file of one benchmark whose counter GB_per_s is `counter` (JSON text).
std::string gb_file_with_counter(const std::string& counter) {
  return R"({"context": {"date": "2026-12-02T16:00:00+00:00", "host_name": "fixture-host"},
             "benchmarks": [{"name": "copy/bytes:1024", "run_name": "copy/bytes:1024",
                             "run_type": "iteration", "repetition_index": 0, "iterations": 10,
                             "real_time": 100.0, "cpu_time": 99.0, "time_unit": "ns",
                             "GB_per_s": )" +
         counter + "}]}";
}

// ---- 14: out-of-range numbers and empty list items ------------------------------------------

TEST(E2eRefuse, NegativeRepetitionsAreRefusedAndNothingIsStored) {
  Workspace ws;
  for (const char* reps : {"-1", "0", "-7"}) {
    const CliResult r = ws.run({"run", "--suite", "fixture_ok", "--repetitions", reps});
    EXPECT_EQ(r.exit_code, 2) << reps << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "--repetitions must be at least 1")) << r.err;
    EXPECT_TRUE(contains(r.err, std::string("got ") + reps)) << r.err;
  }
  EXPECT_FALSE(fs::exists(ws.db()));
}

TEST(E2eRefuse, AnEmptyNameInASuiteListIsRefusedInsteadOfRunningEverySuite) {
  Workspace ws;
  for (const char* list : {",", "fixture_ok,", ",fixture_ok", "fixture_ok, ,fixture_fail"}) {
    const CliResult r = ws.run({"run", "--suite", list});
    EXPECT_EQ(r.exit_code, 2) << list << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "has an empty suite name")) << r.err;
  }
  EXPECT_FALSE(fs::exists(ws.db()));
  EXPECT_EQ(ws.run({"run", "--suite", "fixture_ok", "--repetitions", "2"}).exit_code, 0);
}

// ---- 15: malformed values are refused, never dropped ------------------------------------------

TEST(E2eRefuse, ACounterThatIsNotANumberIsRefusedNamingBenchmarkFieldAndValue) {
  Workspace ws;
  const fs::path file = ws.root() / "gb.json";
  for (const char* counter : {"[[1]]", "\"fast\"", "\"NaN\"", "null", "true", "{\"a\": 1}"}) {
    write_text(file, gb_file_with_counter(counter));
    const CliResult r = ws.run({"import", file.string()});
    EXPECT_EQ(r.exit_code, 2) << counter << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "copy/bytes:1024")) << r.err;
    EXPECT_TRUE(contains(r.err, "counter 'GB_per_s' is " + json::parse(counter).dump())) << r.err;
    EXPECT_FALSE(fs::exists(ws.db())) << counter;
  }
  // Google Benchmark's own non-finite tokens (bare NaN) stay importable, kept as invalid values.
  write_text(file, gb_file_with_counter("NaN"));
  const CliResult nan = ws.run({"import", file.string()});
  EXPECT_EQ(nan.exit_code, 0) << nan.err;
  EXPECT_TRUE(contains(nan.out, "1 invalid values kept aside")) << nan.out;
}

TEST(E2eRefuse, AnExportedValueThatIsNotANumberIsRefusedNotSkipped) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok"}).exit_code, 0);
  const fs::path exported = ws.root() / "run.json";
  ASSERT_EQ(ws.run({"export", "1", "--format", "json", "-o", exported.string()}).exit_code, 0);
  const json original = json::parse(read_file(exported));
  std::size_t row = 0;
  while (row < original["results"].size() && original["results"][row]["values"].size() < 2) ++row;
  ASSERT_LT(row, original["results"].size());
  const std::string benchmark = original["results"][row]["benchmark"];
  const fs::path other_db = ws.root() / "other.db";
  // The table form (what export writes since issue 23): the samples table's value column.
  ASSERT_TRUE(original.contains("tables")) << "export writes the run's tables";
  const json& samples = original["tables"]["samples"];
  std::size_t value_column = 0;
  while (value_column < samples["columns"].size() && samples["columns"][value_column] != "value") {
    ++value_column;
  }
  ASSERT_LT(value_column, samples["columns"].size());
  ASSERT_GE(samples["rows"].size(), 2U);
  for (const json& bad : {json("12.5"), json(nullptr), json::array({1})}) {
    json results_form = original;  // as an export written before "tables" existed
    results_form.erase("tables");
    results_form["results"][row]["values"][1] = bad;
    json tables_form = original;
    tables_form["tables"]["samples"]["rows"][1][value_column] = bad;
    for (const json& doc : {results_form, tables_form}) {
      const fs::path file = ws.root() / "bad.json";
      write_text(file, doc.dump());
      const CliResult r = ws.run({"import", file.string(), "--db=" + other_db.string()});
      EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
      if (doc.contains("tables")) {
        EXPECT_TRUE(
            contains(r.err, "tables.samples.rows[1]: value is " + bad.dump() + ", not a number"))
            << r.err;
      } else {
        EXPECT_TRUE(contains(r.err, benchmark)) << r.err;
        EXPECT_TRUE(contains(r.err, "values[1] is " + bad.dump())) << r.err;
      }
      EXPECT_EQ(ws.run({"runs", "--format", "json", "--db=" + other_db.string()}).out.find("uuid"),
                std::string::npos);
    }
  }
}

// ---- 16: nothing to import ------------------------------------------------------------------

TEST(E2eRefuse, AnEmptyBenchmarksArrayIsRefusedAndNeverBecomesLatest) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok"}).exit_code, 0);
  const fs::path file = ws.root() / "empty.json";
  for (const char* text :
       {R"({"benchmarks": []})", R"({"context": {"host_name": "x"}, "benchmarks": []})"}) {
    write_text(file, text);
    const CliResult r = ws.run({"import", file.string()});
    EXPECT_EQ(r.exit_code, 2) << text << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "nothing to import")) << r.err;
  }
  EXPECT_EQ(run_count(ws), 1u);
  // Into a new database: no file is left behind either.
  const fs::path fresh = ws.root() / "fresh.db";
  EXPECT_EQ(ws.run({"import", file.string(), "--db=" + fresh.string()}).exit_code, 2);
  EXPECT_FALSE(fs::exists(fresh));
}

// ---- 17: tags trimmed, tags and notes capped ---------------------------------------------------

TEST(E2eRefuse, TagsAreStoredTrimmedAndSelectedWhateverTheSpaces) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", "--tag", " side = a "}).exit_code, 0);
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", "--tag", "side=b"}).exit_code, 0);
  const json runs = json::parse(ws.run({"runs", "--format", "json"}).out);
  bool found = false;
  for (const json& r : runs) found |= r["tags"].contains("side") && r["tags"]["side"] == "a";
  EXPECT_TRUE(found) << runs.dump();
  for (const char* sel : {"tag:side=a", "tag: side = a "}) {
    const CliResult c = ws.run({"compare", sel, "tag:side=b", "--fail-on", "never"});
    EXPECT_EQ(c.exit_code, 0) << sel << ": " << c.err;
  }
}

TEST(E2eRefuse, TagsAndNotesOverFourKibAreRefused) {
  Workspace ws;
  const std::string big(5000, 'x');
  const CliResult tag = ws.run({"run", "--suite", "fixture_ok", "--tag", "k=" + big});
  EXPECT_EQ(tag.exit_code, 2) << tag.err;
  EXPECT_TRUE(contains(tag.err, "tag too long (5002 bytes")) << tag.err;
  EXPECT_LT(tag.err.size(), 1000u);  // the message does not repeat the 5000 bytes
  const CliResult note = ws.run({"run", "--suite", "fixture_ok", "--note", big});
  EXPECT_EQ(note.exit_code, 2) << note.err;
  EXPECT_TRUE(contains(note.err, "--note too long (5000 bytes")) << note.err;
  EXPECT_FALSE(fs::exists(ws.db()));
  const std::string at_cap(4096 - 2, 'y');
  EXPECT_EQ(ws.run({"run", "--suite", "fixture_ok", "--tag", "k=" + at_cap}).exit_code, 0);
}

// ---- 18: -o that cannot be written exits 3; devices are written in place ------------------------

TEST(E2eRefuse, OutputToAFullDeviceExitsThreeForEveryCommandAndLeavesTheNodeAlone) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok"}).exit_code, 0);
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok"}).exit_code, 0);
  // A link to /dev/full: a rename would replace the link (and, as root, /dev/full itself).
  const fs::path full = ws.root() / "full-link";
  fs::create_symlink("/dev/full", full);
  const std::vector<std::vector<std::string>> commands = {
      {"export", "1", "--format", "json"},
      {"export", "1", "--format", "csv"},
      {"compare", "1", "2", "--fail-on", "never"},
      {"compare", "1", "2", "--format", "html", "--fail-on", "never"},
      {"report", "1", "--format", "html"},
      {"accept", "2", "--against", "1"}};
  for (std::vector<std::string> args : commands) {
    args.insert(args.end(), {"-o", full.string()});
    const CliResult r = ws.run(args);
    EXPECT_EQ(r.exit_code, 3) << args[0] << " " << args[3] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "cannot write '" + full.string() + "'")) << r.err;
    EXPECT_TRUE(fs::is_symlink(full)) << args[0];
  }
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // A link to a regular file is written through, the link kept.
  const fs::path target = ws.root() / "target.json";
  const fs::path link = ws.root() / "link.json";
  write_text(target, "old");
  fs::create_symlink(target, link);
  ASSERT_EQ(ws.run({"export", "1", "--format", "json", "-o", link.string()}).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(json::accept(read_file(target)));
}

// ---- 19: doctor looks at the dataloader's directory ------------------------------------------

TEST(E2eRefuse, DoctorChecksTheDataloadersCacheDirectoryThroughItsNearestParent) {
  Workspace ws;
  const fs::path cache = ws.root() / "xdg-cache";  // does not exist: the nearest parent does
  const CliResult r = ws.run({"doctor", "--format", "json"},
                             {{"XDG_CACHE_HOME", cache.string()}, {"GPUBENCH_DATA_DIR", ""}});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  const json doc = json::parse(r.out);
  std::string value;
  for (const json& c : doc["checks"]) {
    if (c["name"] == "storage.free_space") value = c["value"];
  }
  EXPECT_TRUE(contains(value, (cache / "gpubench").string())) << value;
  EXPECT_TRUE(contains(value, "nearest existing parent")) << value;
  EXPECT_TRUE(contains(value, fs::canonical(ws.root()).string())) << value;
}

TEST(E2eRefuse, DoctorHoldsTheFreeSpaceToWhatTheProfilesDataloaderWrites) {
  Workspace ws;
  const fs::path data = ws.root() / "data";  // empty: every dataset is still to be generated
  fs::create_directories(data);              // a given directory must exist (the dataloader's rule)
  const CliResult r = ws.run({"doctor", "--profile", "quick", "--format", "json"},
                             {{"GPUBENCH_DATA_DIR", data.string()}});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  const json doc = json::parse(r.out);
  std::string value;
  for (const json& c : doc["checks"]) {
    if (c["name"] == "storage.free_space") value = c["value"];
  }
  EXPECT_TRUE(contains(value, "the quick profile's datasets not cached yet need")) << value;
  EXPECT_FALSE(contains(value, "need 0 B")) << value;
  const CliResult bad = ws.run({"doctor", "--profile", "huge"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_TRUE(contains(bad.err, "unknown profile 'huge'")) << bad.err;
}

TEST(E2eRefuse, DoctorFailsWhenTheDataloaderNeedsMoreThanTheDiskHolds) {
  Workspace ws;
  // FIXTURE dataloader (found first on GPUBENCH_SUITE_PATH): its plan says it writes 1 EiB.
  const fs::path suite = ws.suites() / "gpubench-dataloader";
  fs::remove(suite);
  write_text(suite, R"(#!/bin/sh
for a in "$@"; do
  case "$a" in
    --gpubench_plan)
      echo '{"suite":"dataloader","gpus":0,"cases":[],"estimated_s":1,"disk_bytes":1152921504606846976,"assumptions":"FIXTURE"}'
      exit 0 ;;
  esac
done
exit 1
)");
  ::chmod(suite.c_str(), 0755);
  fs::create_directories(ws.root() / "data");
  const CliResult r = ws.run({"doctor", "--profile", "full", "--format", "json"},
                             {{"GPUBENCH_DATA_DIR", (ws.root() / "data").string()}});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = json::parse(r.out);
  int seen = 0;
  for (const json& c : doc["checks"]) {
    if (c["name"] != "storage.free_space") continue;
    ++seen;
    EXPECT_EQ(c["status"], "fail") << c.dump();
    EXPECT_TRUE(contains(c["value"].get<std::string>(),
                         "the full profile's datasets not cached yet need 1024 PiB"))
        << c.dump();
  }
  EXPECT_EQ(seen, 1) << r.out;
}

// ---- 20: nothing outlives a killed gpubench ---------------------------------------------------

// The fixture's `sleep` still runs: its /proc/PID/stat names it and is not a zombie (a PID
// reused by another program does not count).
bool sleep_running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string id, comm, state;
  if (!(in >> id >> comm >> state)) return false;
  return comm == "(sleep)" && state != "Z";
}

// Waits up to 5 s for the fixture's sleep to end; kills it when it did not (no leftover).
bool survives(pid_t pid, std::string& stat) {
  for (int i = 0; i < 100 && sleep_running(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!sleep_running(pid)) return false;
  std::getline(std::ifstream("/proc/" + std::to_string(pid) + "/stat"), stat);
  ::kill(pid, SIGKILL);
  return true;
}

// `gpubench run --suite <suite>` in the background, killed with SIGKILL once the fixture suite's
// child has written its PID to `pid_file`.
harness::ProcessResult run_and_kill_once_child_is_up(const Workspace& ws, const std::string& suite,
                                                     const fs::path& pid_file) {
  harness::ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c",
               "\"$GB\" run --suite \"$SUITE\" & gb=$!; n=0; "
               "while [ ! -s \"$FIXTURE_SPAWN_PID\" ] && [ $n -lt 300 ]; do sleep 0.05; "
               "n=$((n+1)); done; kill -9 $gb; wait $gb; exit 0"};
  spec.env = {
      {"GB", gpubench_binary().string()},       {"SUITE", suite},
      {"FIXTURE_SPAWN_PID", pid_file.string()}, {"GPUBENCH_SUITE_PATH", ws.suites().string()},
      {"GPUBENCH_DB", ws.db().string()},        {"CI", "1"}};
  spec.timeout_s = 60;
  return harness::run_process(spec);
}

TEST(E2eRefuse, ASuitesChildProcessesDieWhenGpubenchIsKilled) {
  Workspace ws;
  // FIXTURE suite (written by this test): starts a background child, as a launcher starts ranks,
  // and waits for it.
  const fs::path suite = ws.suites() / "gpubench-fixture_spawn";
  write_text(suite, R"(#!/bin/sh
for a in "$@"; do
  case "$a" in
    --gpubench_info)
      echo '{"suite":"fixture_spawn","description":"FIXTURE: starts a child","metrics":[],"runnable":true,"reason":"","notes":[]}'
      exit 0 ;;
    --benchmark_list_tests=true) echo "fixture_spawn/forever"; exit 0 ;;
  esac
done
sleep 300 &
echo $! > "$FIXTURE_SPAWN_PID"
wait
)");
  ::chmod(suite.c_str(), 0755);
  const fs::path pid_file = ws.root() / "child.pid";
  const harness::ProcessResult r = run_and_kill_once_child_is_up(ws, "fixture_spawn", pid_file);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_tail;
  ASSERT_TRUE(fs::exists(pid_file));
  std::string stat;
  EXPECT_FALSE(survives(std::stoi(read_file(pid_file)), stat))
      << "the suite's child outlived gpubench's kill -9: " << stat << "\n"
      << r.stderr_tail;
}

// FIXTURE suite (written by the tests below): its child leaves the process group with setsid,
// as an MPI launcher's daemon does, writes its PID, and runs `sleep 300`; the suite then waits
// for it (`wait`) or exits at once (`exit`).
fs::path write_setsid_suite(const Workspace& ws, const std::string& then) {
  const fs::path suite = ws.suites() / "gpubench-fixture_setsid";
  write_text(suite, R"(#!/bin/sh
for a in "$@"; do
  case "$a" in
    --gpubench_info)
      echo '{"suite":"fixture_setsid","description":"FIXTURE: a child in a session of its own","metrics":[],"runnable":true,"reason":"","notes":[]}'
      exit 0 ;;
    --benchmark_list_tests=true) echo "fixture_setsid/forever"; exit 0 ;;
  esac
done
setsid sh -c 'echo $$ > "$FIXTURE_SPAWN_PID.tmp"; mv "$FIXTURE_SPAWN_PID.tmp" "$FIXTURE_SPAWN_PID"; exec sleep 300' &
while [ ! -s "$FIXTURE_SPAWN_PID" ]; do sleep 0.05; done
)" + then + "\n");
  ::chmod(suite.c_str(), 0755);
  return suite;
}

TEST(E2eRefuse, AChildThatLeftTheSuitesProcessGroupDiesWhenGpubenchIsKilled) {
  Workspace ws;
  write_setsid_suite(ws, "wait");
  const fs::path pid_file = ws.root() / "child.pid";
  const harness::ProcessResult r = run_and_kill_once_child_is_up(ws, "fixture_setsid", pid_file);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_tail;
  ASSERT_TRUE(fs::exists(pid_file)) << r.stderr_tail;
  std::string stat;
  EXPECT_FALSE(survives(std::stoi(read_file(pid_file)), stat))
      << "a child in a session of its own outlived gpubench's kill -9: " << stat;
}

TEST(E2eRefuse, AChildThatLeftTheSuitesProcessGroupDiesWhenTheSuiteEnds) {
  Workspace ws;
  write_setsid_suite(ws, "exit 1");
  const fs::path pid_file = ws.root() / "child.pid";
  const CliResult r = ws.run({"run", "--suite", "fixture_setsid", ws.db_arg()},
                             {{"FIXTURE_SPAWN_PID", pid_file.string()}});
  EXPECT_EQ(r.exit_code, 3) << r.err;  // the suite failed (exit 1): stored as failed
  ASSERT_TRUE(fs::exists(pid_file)) << r.err;
  std::string stat;
  EXPECT_FALSE(survives(std::stoi(read_file(pid_file)), stat))
      << "a child in a session of its own outlived its suite's end: " << stat;
}

// Defect 9: descendants that start with a cleared environment (env -i, sudo's env_reset, su -)
// carry no GPUBENCH_TAG_ and were left running, re-parented to init. FIXTURE suite: two such
// `sleep 300`s, one left by `setsid env -i ... &`, one by a subshell that exits at once; each
// writes its PID (passed as an argument: the environment is gone). The suite then waits or
// exits 0.
fs::path write_env_clearing_suite(const Workspace& ws, const std::string& then) {
  const fs::path suite = ws.suites() / "gpubench-fixture_envclear";
  write_text(suite, R"(#!/bin/sh
for a in "$@"; do
  case "$a" in
    --gpubench_info)
      echo '{"suite":"fixture_envclear","description":"FIXTURE: children with a cleared environment","metrics":[],"runnable":true,"reason":"","notes":[]}'
      exit 0 ;;
    --benchmark_list_tests=true) echo "fixture_envclear/forever"; exit 0 ;;
  esac
done
child='echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; exec sleep 300'
setsid env -i /bin/sh -c "$child" sh "$FIXTURE_SPAWN_PID.1" &
(setsid env -i /bin/sh -c "$child" sh "$FIXTURE_SPAWN_PID.2" &)
while [ ! -s "$FIXTURE_SPAWN_PID.1" ] || [ ! -s "$FIXTURE_SPAWN_PID.2" ]; do sleep 0.05; done
echo up > "$FIXTURE_SPAWN_PID"
)" + then + "\n");
  ::chmod(suite.c_str(), 0755);
  return suite;
}

// gpubench started by /bin/sh through std::system, not run_process: the test itself is no
// subreaper, so what gpubench leaves is re-parented to init and found alive.
int system_with_env(const std::vector<std::pair<std::string, std::string>>& env,
                    const std::string& command) {
  std::string line;
  for (const auto& [k, v] : env) line += k + "='" + v + "' ";
  const int status = std::system((line + "/bin/sh -c '" + command + "'").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(E2eRefuse, ChildrenWithAClearedEnvironmentDieWithTheSuite) {
  for (const char* how : {"kill -9", "kill -TERM", "suite exits 0"}) {
    SCOPED_TRACE(how);
    Workspace ws;
    const bool exits = std::string(how) == "suite exits 0";
    write_env_clearing_suite(ws, exits ? "exit 0" : "sleep 300");
    const fs::path pid_file = ws.root() / "child.pid";
    const std::string signal = exits ? "" : std::string(how).substr(5);
    // Run gpubench in the background until the children are up; then signal it (or let the
    // suite end), and wait for gpubench.
    const int rc = system_with_env(
        {{"GB", gpubench_binary().string()},
         {"FIXTURE_SPAWN_PID", pid_file.string()},
         {"GPUBENCH_SUITE_PATH", ws.suites().string()},
         {"GPUBENCH_DB", ws.db().string()},
         {"CI", "1"}},
        "\"$GB\" run --suite fixture_envclear >/dev/null 2>&1 & gb=$!; n=0; "
        "while [ ! -s \"$FIXTURE_SPAWN_PID\" ] && [ $n -lt 300 ]; do sleep 0.05; n=$((n+1)); "
        "done; " +
            (exits ? std::string() : "kill " + signal + " $gb; ") + "wait $gb; exit 0");
    ASSERT_EQ(rc, 0);
    for (const char* n : {".1", ".2"}) {
      const fs::path child = pid_file.string() + n;
      ASSERT_TRUE(fs::exists(child)) << child;
      std::string stat;
      EXPECT_FALSE(survives(std::stoi(read_file(child)), stat))
          << "a child started with `env -i` outlived gpubench (" << how << "): " << stat;
    }
  }
}

TEST(E2eRefuse, AKilledImportsTempDirIsRemovedByTheNextImport) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok"}).exit_code, 0);
  const fs::path exported = ws.root() / "run.json";
  ASSERT_EQ(ws.run({"export", "1", "--format", "json", "-o", exported.string()}).exit_code, 0);
  const fs::path tmp = ws.root() / "tmp";
  fs::create_directories(tmp);
  // FIXTURES: what a killed import leaves (its lock file, no one holding it) and what a live one
  // has (the lock held, here by this test).
  const fs::path dead = tmp / "gpubench-import.AAAAAA";
  const fs::path live = tmp / "gpubench-import.BBBBBB";
  for (const fs::path& d : {dead, live}) {
    fs::create_directories(d);
    write_text(d / "run.db", "staged");
    write_text(d / ".gpubench-lock", "");
  }
  const int held = ::open((live / ".gpubench-lock").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);
  const CliResult r = ws.run({"import", exported.string(), "--db=" + (ws.root() / "b.db").string()},
                             {{"TMPDIR", tmp.string()}});
  ::close(held);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  std::size_t left = 0;
  for (const auto& e : fs::directory_iterator(tmp)) left += e.path() != live;
  EXPECT_EQ(left, 0u) << "the import's own temp dir was left behind";
}

}  // namespace
}  // namespace gpubench::e2e
