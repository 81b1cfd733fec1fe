// Issue 36 "fixed algorithms" through the real CLI: `gpubench run` keeps the cuBLASLt choices of
// a run's gemm cases in the database, seeds the next run's scratch file with them where this
// machine's GPU model, driver and cuBLAS version are known and match (`--reselect-algos` skips
// that), export/import/merge carry them; `compare` of two imported Google Benchmark files whose
// gemm labels name different algorithms says so in the reason. The suite is a FIXTURE written by
// the test (a shell script acting as the gemm suite would with its scratch file); its algorithm
// bytes, labels and numbers are made up, not measurements.
#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e_support.hpp"
#include "results/algorithm_choices.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

constexpr const char* k_case = "gemm/cublaslt/dtype:bf16/m:1024/n:1024/k:1024/device:0";

// FIXTURE suite: one gemm-named case. Like the gemm suite it appends a choice for its case to the
// run's scratch file when it finds none there; it copies the file as it found it to
// $ALGOS_SEEN/seen.<execution> (or leaves none.<execution> when there was none).
void write_fixture_suite(const Workspace& ws) {
  const fs::path path = ws.suites() / "gpubench-fixture_algos";
  std::ofstream f(path);
  f << R"SH(#!/bin/sh
# FIXTURE suite written by tests/e2e/test_e2e_algorithms.cpp (not a benchmark).
out=""
for a in "$@"; do
  case "$a" in
    --gpubench_info)
      echo '{"suite":"fixture_algos","description":"FIXTURE: a gemm-named case","metrics":[],"runnable":true,"reason":"","notes":[]}'
      exit 0 ;;
    --benchmark_list_tests=true) echo "fixture_algos/case"; exit 0 ;;
    --benchmark_out=*) out="${a#--benchmark_out=}" ;;
  esac
done
[ -n "$out" ] || exit 0
key="gemm/cublaslt/dtype:bf16/m:1024/n:1024/k:1024/device:0"
file="$GPUBENCH_RUN_SCRATCH/gemm-algorithms.tsv"
n="${out%.json}"; n="${n##*.}"
if [ -n "$ALGOS_SEEN" ]; then
  if [ -e "$file" ]; then cp "$file" "$ALGOS_SEEN/seen.$n"; else : > "$ALGOS_SEEN/none.$n"; fi
fi
tab=$(printf '\t')
if ! grep -q "^$key$tab" "$file" 2>/dev/null; then
  printf '%s\t0000000000000017\t0000000000000014\t000000000000000f\t0000000000000001\t0000000000000000\t0000000000000000\t0000000000000000\t0000000000000000\t0.25\talgo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0 tied=1 timed=8/8\t\n' "$key" >> "$file"
fi
cat > "$out" <<JSON
{"context": {"date": "2026-12-02T16:00:00+00:00"}, "benchmarks": [
 {"name": "$key/iterations:2/manual_time", "run_name": "$key/iterations:2/manual_time",
  "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "iterations": 2,
  "real_time": 5.0, "cpu_time": 1.0, "time_unit": "us",
  "label": "compute=32F algo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0 tied=1 timed=8/8"}]}
JSON
)SH";
  f.close();
  fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
}

std::vector<results::AlgorithmChoiceRow> choices_of(const fs::path& db, int64_t run) {
  results::Store store = results::Store::open(db, results::OpenMode::read_only);
  return results::algorithm_choices_of_run(store, run);
}

bool known(const std::string& fact) {
  return !fact.empty() && fact != "unknown";
}

TEST(E2eAlgorithms, ARunKeepsItsChoicesAndTheNextOneStartsFromThem) {
  Workspace ws;
  write_fixture_suite(ws);
  auto run = [&](const std::string& tag, std::vector<std::string> extra) {
    const fs::path seen = ws.root() / tag;
    fs::create_directories(seen);
    std::vector<std::string> args = {"run", "--suite",   "fixture_algos", "--executions",
                                     "2",   "--profile", "quick",         ws.db_arg()};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = ws.run(args, {{"ALGOS_SEEN", seen.string()}});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return seen;
  };
  const fs::path first = run("first", {});
  // The first execution found no choice and searched; the second found the first's.
  EXPECT_TRUE(fs::exists(first / "none.1"));
  ASSERT_TRUE(fs::exists(first / "seen.2"));
  EXPECT_NE(read_file(first / "seen.2").find(k_case), std::string::npos);

  const auto kept = choices_of(ws.db(), 1);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].benchmark, k_case);
  EXPECT_EQ(kept[0].description,
            "algo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0 tied=1 "
            "timed=8/8");
  EXPECT_EQ(kept[0].algorithm.substr(0, 32), "00000000000000170000000000000014");
  EXPECT_EQ(kept[0].origin_run_uuid, "");
  const results::RunDetail detail = [&] {
    results::Store store = results::Store::open(ws.db(), results::OpenMode::read_only);
    return store.get_run(1);
  }();
  EXPECT_EQ(kept[0].driver_version, detail.info.software.driver_version);
  EXPECT_EQ(kept[0].cublas_version, detail.info.software.cublas_version);

  // The next run starts from the stored choice where this machine's facts are known (a GPU
  // server); where they are not (this build machine has no GPU), nothing can match.
  const bool facts_known =
      known(kept[0].gpu_model) && known(kept[0].driver_version) && known(kept[0].cublas_version);
  const fs::path second = run("second", {});
  if (facts_known) {
    ASSERT_TRUE(fs::exists(second / "seen.1"));
    EXPECT_NE(read_file(second / "seen.1").find("history:" + detail.run.uuid), std::string::npos);
    const auto reused = choices_of(ws.db(), 2);
    ASSERT_EQ(reused.size(), 1u);
    EXPECT_EQ(reused[0].origin_run_uuid, detail.run.uuid);
  } else {
    EXPECT_TRUE(fs::exists(second / "none.1"));
    EXPECT_EQ(choices_of(ws.db(), 2).size(), 1u);
  }
  // --reselect-algos: never seeded, searched again; its choice is the newest.
  const fs::path third = run("third", {"--reselect-algos"});
  EXPECT_TRUE(fs::exists(third / "none.1"));
  ASSERT_EQ(choices_of(ws.db(), 3).size(), 1u);
  EXPECT_EQ(choices_of(ws.db(), 3)[0].origin_run_uuid, "");

  // A plan runs nothing, so --reselect-algos has nothing to do there: refused, not ignored.
  const CliResult plan =
      ws.run({"run", "--plan", "--reselect-algos", "--suite", "fixture_algos", ws.db_arg()});
  EXPECT_EQ(plan.exit_code, 2) << plan.out << plan.err;
  EXPECT_TRUE(contains(plan.err, "--reselect-algos does not go with --plan")) << plan.err;

  // Export and import, and merging the database, keep each run's choices.
  const fs::path exported = ws.root() / "run1.json";
  ASSERT_EQ(
      ws.run({"export", "1", "--format", "json", "-o", exported.string(), ws.db_arg()}).exit_code,
      0);
  const fs::path imported = ws.root() / "imported.db";
  const CliResult imp = ws.run({"import", exported.string(), "--db", imported.string()});
  ASSERT_EQ(imp.exit_code, 0) << imp.out << imp.err;
  const auto carried = choices_of(imported, 1);
  ASSERT_EQ(carried.size(), 1u);
  EXPECT_EQ(carried[0].algorithm, kept[0].algorithm);
  EXPECT_EQ(carried[0].run_uuid, detail.run.uuid);
  const fs::path merged = ws.root() / "merged.db";
  const CliResult merge = ws.run({"import", ws.db().string(), "--db", merged.string()});
  ASSERT_EQ(merge.exit_code, 0) << merge.out << merge.err;
  for (int64_t r = 1; r <= 3; ++r) EXPECT_EQ(choices_of(merged, r).size(), 1u) << r;
}

// A gemm-shaped Google Benchmark file (FIXTURE: made-up numbers and labels): two cases, the first
// labelled with `algo_4096`'s algorithm, the second always with algo=23.
std::string gemm_file(const std::string& algo_4096, double scale) {
  json doc;
  doc["context"] = {{"date", "2026-12-03T07:00:00+00:00"}, {"gpubench.suite", "gemm"}};
  doc["benchmarks"] = json::array();
  for (const char* m : {"4096", "8192"}) {
    const std::string name = std::string("gemm/cublaslt/dtype:bf16/m:") + m + "/n:" + m +
                             "/k:" + m + "/device:0/iterations:10/manual_time";
    const std::string algo =
        std::string(m) == "4096" ? algo_4096 : "algo=23 tile=20 stages=15 splitk=1 swizzle=0";
    for (int rep = 0; rep < 5; ++rep) {
      json e = iteration_entry({.name = name,
                                .repetition = rep,
                                .repetitions = 5,
                                .iterations = 10,
                                .real_time = 229.0 / scale + rep * 0.1,
                                .cpu_time = 10.0,
                                .time_unit = "us"},
                               {{"TFLOP_per_s", 600.0 * scale + rep * 0.3}});
      e["label"] = "compute=32F " + algo + " rank=0 tied=1 timed=8/8 calls_per_sample=200";
      doc["benchmarks"].push_back(e);
    }
  }
  return doc.dump(1);
}

TEST(E2eAlgorithms, CompareSaysWhenTheSidesRanDifferentAlgorithms) {
  Workspace ws;
  const fs::path a = ws.root() / "gemm_a.json";
  const fs::path b = ws.root() / "gemm_b.json";
  write_file_atomic(a, gemm_file("algo=23 tile=20 stages=15 splitk=1 swizzle=0", 1.0));
  write_file_atomic(b, gemm_file("algo=31 tile=18 stages=8 splitk=2 swizzle=1", 1.1));
  for (const fs::path& f : {a, b}) {
    const CliResult r = ws.run({"import", f.string(), ws.db_arg()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  const std::string note =
      "different cuBLASLt algorithm: algo=23 tile=20 stages=15 splitk=1 swizzle=0 vs algo=31 "
      "tile=18 stages=8 splitk=2 swizzle=1";
  const CliResult text = ws.run({"compare", "1", "2", "--history", "0", ws.db_arg()});
  ASSERT_TRUE(text.exit_code == 0 || text.exit_code == 1) << text.out << text.err;
  EXPECT_TRUE(contains(text.out, note)) << text.out;
  const CliResult machine =
      ws.run({"compare", "1", "2", "--history", "0", "--format", "json", ws.db_arg()});
  ASSERT_TRUE(machine.exit_code == 0 || machine.exit_code == 1) << machine.err;
  int said = 0;
  int entries = 0;
  const json doc = json::parse(machine.out);
  for (const json& e : doc["results"]) {
    ++entries;
    const bool changed = e["benchmark"].get<std::string>().find("m:4096") != std::string::npos;
    const std::string reason = e["reason"].get<std::string>();
    EXPECT_EQ(reason.find(note) != std::string::npos, changed) << e.dump();
    said += changed ? 1 : 0;
  }
  EXPECT_GT(entries, 0) << machine.out;
  EXPECT_GT(said, 0) << machine.out;
}

}  // namespace
}  // namespace gpubench::e2e
