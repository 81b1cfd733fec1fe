// Small CLI helpers: tags, lists, tables, sample statistics, profiles.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/cli/cli_common.hpp"
#include "harness/run/runner.hpp"
#include "util/error.hpp"

namespace gpubench::cli {
namespace {

TEST(CliCommon, ParsesTags) {
  EXPECT_EQ(parse_tag("driver=560"), std::make_pair(std::string("driver"), std::string("560")));
  EXPECT_EQ(parse_tag("k=a=b"), std::make_pair(std::string("k"), std::string("a=b")));
  EXPECT_EQ(parse_tag("empty="), std::make_pair(std::string("empty"), std::string()));
  EXPECT_THROW(parse_tag("novalue"), Error);
  EXPECT_THROW(parse_tag("=x"), Error);
}

TEST(CliCommon, SplitsLists) {
  EXPECT_EQ(split_list({"a,b", "c", " d , ,e"}),
            (std::vector<std::string>{"a", "b", "c", "d", "e"}));
}

TEST(CliCommon, PrintsAlignedTables) {
  std::ostringstream out;
  print_table(out, {"id", "name"}, {{"1", "alpha"}, {"22", "b"}});
  EXPECT_EQ(out.str(), "id  name\n--  -----\n1   alpha\n22  b\n");
}

TEST(CliCommon, SummarizesSamples) {
  const SampleStats s = summarize({4, 1, 3, 2});
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_NEAR(s.cv, 0.5164, 1e-4);  // stddev 1.29099 / mean 2.5
  EXPECT_DOUBLE_EQ(summarize({5, 1, 3}).median, 3);
  EXPECT_EQ(summarize({}).n, 0u);
  EXPECT_DOUBLE_EQ(summarize({7}).cv, 0);
}

TEST(CliCommon, ChecksFormats) {
  EXPECT_NO_THROW(check_format("json", {"text", "json"}));
  try {
    check_format("xml", {"text", "json"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("text|json"), std::string::npos);
  }
}

TEST(CliCommon, ProfilesHaveDefaults) {
  EXPECT_EQ(harness::profile_defaults("quick").repetitions, 3);
  EXPECT_EQ(harness::profile_defaults("standard").repetitions, 5);
  EXPECT_EQ(harness::profile_defaults("full").repetitions, 10);
  EXPECT_THROW(harness::profile_defaults("fast"), Error);
}

}  // namespace
}  // namespace gpubench::cli
