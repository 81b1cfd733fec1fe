// Issue 38: `history --delta` reads a percentage as every other option does, and doctor fails a
// GPUBENCH_DATA_DIR that does not exist naming the variable, with the fix. Through the real
// CLI on a run of the FIXTURE suite fixture_ok (made-up numbers).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

TEST(E2eGateOptions, HistoryDeltaReadsAPercentageAsEveryOption) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  for (const char* delta : {"2%", "2", "0%"}) {
    const CliResult r = ws.run({"history", "all", "--delta", delta, ws.db_arg()});
    EXPECT_EQ(r.exit_code, 0) << delta << ": " << r.out << r.err;
  }
  // A bare fraction is ambiguous, as for --threshold and --tolerance: asked, not guessed.
  const CliResult fraction = ws.run({"history", "all", "--delta", "0.02", ws.db_arg()});
  EXPECT_EQ(fraction.exit_code, 2) << fraction.out << fraction.err;
  EXPECT_TRUE(contains(fraction.err, "invalid --delta '0.02'")) << fraction.err;
  EXPECT_TRUE(contains(fraction.err, "did you mean 0.02% or 2%?")) << fraction.err;
  const CliResult threshold = ws.run({"compare", "1", "1", "--threshold", "0.02", ws.db_arg()});
  EXPECT_TRUE(contains(threshold.err, "did you mean 0.02% or 2%?")) << "the same rule as compare";
  EXPECT_EQ(ws.run({"history", "all", "--delta", "100%", ws.db_arg()}).exit_code, 2);
}

TEST(E2eGateOptions, DoctorFailsAMissingDataDirByName) {
  Workspace ws;
  const fs::path missing = ws.root() / "no-such-data-dir";
  const CliResult r =
      ws.run({"doctor", "--format", "json"}, {{"GPUBENCH_DATA_DIR", missing.string()}});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json doc = json::parse(r.out);
  bool seen = false;
  for (const json& c : doc.at("checks")) {
    if (c.at("name") != "storage.free_space") continue;
    seen = true;
    EXPECT_EQ(c.at("status"), "fail") << c;
    EXPECT_EQ(c.at("value"),
              "data directory '" + missing.string() + "' does not exist (set by GPUBENCH_DATA_DIR)")
        << c;
    EXPECT_TRUE(contains(c.at("fix").get<std::string>(), "mkdir -p")) << c;
  }
  EXPECT_TRUE(seen) << r.out;
  // The same directory once it exists passes that part (free space is this machine's).
  fs::create_directories(missing);
  const CliResult ok =
      ws.run({"doctor", "--format", "json"}, {{"GPUBENCH_DATA_DIR", missing.string()}});
  for (const json& c : json::parse(ok.out).at("checks")) {
    if (c.at("name") == "storage.free_space") {
      EXPECT_FALSE(contains(c.at("value").get<std::string>(), "does not exist")) << c;
    }
  }
}

}  // namespace
}  // namespace gpubench::e2e
