// Issue 43 (run, options, signals, selections) against the real binary: option values that meant
// "not given" or "off" (an empty value, --gpus -1, --z inf), run-only options given to a plan, a
// file-size limit (SIGXFSZ), and `run --until-decided` reruns that became `latest`.
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "e2e_faults_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

void expect_bad_input(const CliResult& r, const std::string& words, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.out << r.err;
  EXPECT_TRUE(contains(r.err, words)) << what << ": " << r.err;
}

// Defect 13: an empty value silently meant the default or "off" (`--expect-gpus "$UNSET"`
// turned the hardware gate off). The CLI-wide walk over every option is in
// tests/harness/test_cli_common.cpp; these are the report's reproducers.
TEST(E2eOptions, EmptyOptionValuesAreRefused) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  const fs::path doc = ws.root() / "gb.json";
  write_file_atomic(doc, fixture_doc(ok_rows()));
  const std::vector<std::vector<std::string>> commands = {
      {"run", "--suite", "fixture_ok", "--expect-gpus", ""},
      {"run", "--suite", "fixture_ok", "--until-decided", ""},
      {"run", "--plan", "--gpus", ""},
      {"doctor", "--expect-gpus", ""},
      {"doctor", "--data-dir", ""},
      {"accept", "1", "--against", "1", "--expect-gpus", ""},
      {"fleet", "--suite", ""},
      {"models", "--reference", ""},
      {"import", doc.string(), "--suite", ""}};
  for (std::vector<std::string> args : commands) {
    const std::string what = args[0] + " " + args[args.size() - 2];
    args.push_back(ws.db_arg());
    expect_bad_input(ws.run(args), "empty value for " + args[args.size() - 3], what);
  }
  EXPECT_EQ(json::parse(ws.run({"runs", "--format", "json", ws.db_arg()}).out).size(), 1u)
      << "nothing ran or was imported";
}

// Defects 12 and 14: -1 was --gpus's hidden "not given"; inf and 1e308 turned fleet's outlier
// gate and the suite timeout off; --gpus 100000 took a suite minutes to refuse (exit 3).
TEST(E2eOptions, OutOfRangeNumbersAreRefused) {
  Workspace ws;
  for (const char* gpus : {"-1", "-2", "100000", "2147483647"}) {
    expect_bad_input(ws.run({"run", "--plan", "--gpus", gpus}), "--gpus must be 0 to 256", gpus);
  }
  expect_bad_input(ws.run({"run", "--gpus", "-1", "--suite", "fixture_ok", ws.db_arg()}),
                   "--gpus needs --plan", "--gpus -1 without --plan");
  EXPECT_FALSE(fs::exists(ws.db())) << "--gpus -1 ran";
  for (const char* z : {"inf", "1e308", "101"}) {
    expect_bad_input(ws.run({"fleet", "--z", z, ws.db_arg()}), "invalid --z", z);
  }
  for (const char* s : {"inf", "1e308", "nan"}) {
    expect_bad_input(ws.run({"run", "--suite", "fixture_ok", "--timeout-per-suite", s}),
                     "--timeout-per-suite must be a positive number of seconds", s);
    expect_bad_input(ws.run({"suites", "--timeout", s}), "--timeout must be a positive", s);
  }
}

// Minor: --plan accepted run-only options and ignored them.
TEST(E2eOptions, APlanRefusesRunOnlyOptions) {
  Workspace ws;
  const std::vector<std::vector<std::string>> extras = {{"--until-decided", "1"},
                                                        {"--expect-gpus", "1"},
                                                        {"--launcher", "mpirun -np 2"},
                                                        {"--require-ready"},
                                                        {"--tag", "a=b"}};
  for (const auto& extra : extras) {
    std::vector<std::string> args = {"run", "--plan", "--suite", "fixture_ok"};
    args.insert(args.end(), extra.begin(), extra.end());
    expect_bad_input(ws.run(args), extra[0] + " does not go with --plan", extra[0]);
  }
  const CliResult help = ws.run({"run", "--help"});
  EXPECT_TRUE(contains(help.out, "129/130/143 interrupted")) << help.out;
}

// Defect 4: an --until-decided rerun (a few benchmarks, tagged until_decided=<first run>) became
// `latest` and tag:'s newest run, so `compare baseline:nightly latest` judged the partial rerun.
// A candidate lacking whole suites of the base says so.
TEST(E2eOptions, RerunsAreNotLatestAndMissingSuitesAreNamed) {
  Workspace ws;
  const fs::path doc = ws.root() / "fake.json";
  write_file_atomic(doc, fixture_doc({fixture_row("fixture_fake/case", 0, 100),
                                      fixture_row("fixture_fake/case", 1, 101),
                                      fixture_row("fixture_fake/case", 2, 102)}));
  const std::vector<std::pair<std::string, std::string>> fake = {{"FAKE_JSON", doc.string()}};
  ASSERT_EQ(
      ws.run({"run", "--suite", "fixture_ok,fixture_fake", "--tag", "ci=n", ws.db_arg()}, fake)
          .exit_code,
      0);
  // What run_until_decided stores for a rerun of fixture_ok's benchmarks.
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", "--tag", "ci=n", "--tag", "until_decided=1",
                    ws.db_arg()})
                .exit_code,
            0);
  for (const char* sel : {"latest", "tag:ci=n", "tag:ci"}) {
    const CliResult r = ws.run({"compare", "1", sel, ws.db_arg()});
    EXPECT_EQ(r.exit_code, 2) << sel << ": " << r.out << r.err;  // run 1 both: nothing to say
    EXPECT_TRUE(contains(r.err, "share run")) << sel << ": " << r.err;
  }
  const CliResult show = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(json::parse(show.out).at("run").at("id"), 1) << show.out;
  // The rerun asked for by its tag: the base's fixture_fake is not in it, and compare says so.
  const CliResult cmp = ws.run({"compare", "1", "tag:until_decided=1", ws.db_arg()});
  EXPECT_TRUE(contains(cmp.out, "PROBLEM candidate lacks suite fixture_fake of the base"))
      << cmp.out;
}

// Defect 11: a file-size limit (ulimit -f, as CI runners set) killed every command with SIGXFSZ
// (exit 153, no message, a run left `running`). The write fails instead and takes the exit-3
// paths.
TEST(E2eOptions, AFileSizeLimitIsAWriteErrorNotASignal) {
  Workspace ws;
  // FIXTURE: 3,000 samples, so the export is larger than SQLite's 32 KiB -shm file (which the
  // limit must let the reading open create).
  std::vector<nlohmann::json> rows;
  for (int i = 0; i < 3000; ++i) rows.push_back(fixture_row("fixture_fake/case", i % 3, 100 + i));
  const fs::path doc = ws.root() / "big.json";
  write_file_atomic(doc, fixture_doc(rows));
  ASSERT_EQ(ws.run({"import", doc.string(), ws.db_arg()}).exit_code, 0);
  const fs::path out = ws.root() / "e.json";
  const fs::path err = ws.root() / "err.txt";
  const std::string env = "CI=1 GPUBENCH_SUITE_PATH='" + ws.suites().string() + "' ";
  int status = std::system((env + "prlimit --fsize=65536 " + gpubench_binary().string() +
                            " export 1 --format json -o '" + out.string() + "' " + ws.db_arg() +
                            " 2> '" + err.string() + "'")
                               .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3) << read_file(err);
  EXPECT_TRUE(contains(read_file(err), "gpubench: error: cannot write")) << read_file(err);
  // A run whose database cannot grow: exit 3 with the reason, and no run left `running`.
  const fs::path db = ws.root() / "limited.db";
  fs::copy_file(ws.db(), db);
  const auto size = fs::file_size(db);
  status = std::system((env + "prlimit --fsize=" + std::to_string(size + 16384) + " " +
                        gpubench_binary().string() + " run --suite fixture_ok --db '" +
                        db.string() + "' > /dev/null 2> '" + err.string() + "'")
                           .c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_NE(WEXITSTATUS(status), 128 + SIGXFSZ) << read_file(err);
}

}  // namespace
}  // namespace gpubench::e2e
