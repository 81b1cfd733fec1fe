#include <gtest/gtest.h>

#include "compare/stats/thresholds.hpp"
#include "util/error.hpp"

using namespace gpubench::compare;

TEST(Thresholds, GlobMatch) {
  EXPECT_TRUE(glob_match("memory/*", "memory/triad/bytes:1024"));
  EXPECT_TRUE(glob_match("*/triad/*", "memory/triad/bytes:1024"));
  EXPECT_TRUE(glob_match("memory/tri?d", "memory/triad"));
  EXPECT_FALSE(glob_match("memory/tri?d", "memory/triaad"));
  EXPECT_FALSE(glob_match("gemm/*", "memory/triad"));
  EXPECT_TRUE(glob_match("*", ""));
}

TEST(Thresholds, ParseAndLastRuleWins) {
  Thresholds t = Thresholds::parse(
      "# comment\n\nmemory/*   3%   # trailing comment\nmemory/copy*  5\n"
      "transfer/*pageable*  IGNORE\n",
      "t.txt");
  ASSERT_EQ(t.rules().size(), 3u);
  EXPECT_DOUBLE_EQ(t.match("memory/triad")->threshold, 0.03);
  EXPECT_DOUBLE_EQ(t.match("memory/copy/bytes:1")->threshold, 0.05);
  EXPECT_TRUE(t.match("transfer/h2d/pageable")->ignore);
  EXPECT_EQ(t.match("gemm/fp16"), nullptr);
}

TEST(Thresholds, SyntaxErrorsNameLineAndColumn) {
  auto message = [](const char* text) {
    try {
      Thresholds::parse(text, "t.txt");
    } catch (const gpubench::Error& e) {
      EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("memory/*  3%\ngemm/*   lots\n").find("t.txt:2:10"), std::string::npos);
  EXPECT_NE(message("memory/*\n").find("t.txt:1:9"), std::string::npos);
  EXPECT_NE(message("a 1% b\n").find("t.txt:1:6"), std::string::npos);
  EXPECT_NE(message("a -3%\n").find("t.txt:1:3"), std::string::npos);
}

// One reading of a percentage (issue 23): "5%" and "5" are five percent; a bare 0.5 is refused
// rather than guessed (it read as 50% before, so a run 33% slower passed --tolerance 0.5).
TEST(Thresholds, APercentIsReadOneWayAndAmbiguousOrNonFiniteValuesAreRefused) {
  EXPECT_DOUBLE_EQ(read_percent("5%", "--tolerance"), 0.05);
  EXPECT_DOUBLE_EQ(read_percent("5", "--tolerance"), 0.05);
  EXPECT_DOUBLE_EQ(read_percent(" 2.5 % ", "--threshold"), 0.025);
  EXPECT_DOUBLE_EQ(read_percent("0.5%", "--threshold"), 0.005);
  EXPECT_DOUBLE_EQ(read_percent("0", "--threshold"), 0.0);
  EXPECT_DOUBLE_EQ(read_percent("99.5", "--threshold"), 0.995);
  auto refusal = [](const char* text) {
    try {
      read_percent(text, "--tolerance");
    } catch (const gpubench::Error& e) {
      EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input) << text;
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal("0.5").find("did you mean 0.5% or 50%?"), std::string::npos) << refusal("0.5");
  EXPECT_NE(refusal("0.05").find("did you mean 0.05% or 5%?"), std::string::npos);
  for (const char* bad : {"nan%", "nan", "inf", "-inf%", "infinity", "-1%", "-0.5", "100", "100%",
                          "250%", "", "%", "lots", "5%%"}) {
    const std::string why = refusal(bad);
    EXPECT_NE(why.find("invalid --tolerance '" + std::string(bad) + "'"), std::string::npos)
        << bad << ": " << why;
  }
}

TEST(Thresholds, FileRulesReadPercentagesAsTheOptionsDo) {
  auto message = [](const char* text) {
    try {
      Thresholds::parse(text, "t.txt");
    } catch (const gpubench::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("memory/*  0.05\n").find("did you mean 0.05% or 5%?"), std::string::npos);
  EXPECT_NE(message("memory/*  nan%\n").find("t.txt:1:11"), std::string::npos);
  EXPECT_NE(message("memory/*  inf\n").find("t.txt:1:11"), std::string::npos);
  EXPECT_NE(message("memory/*  100%\n").find("below 100%"), std::string::npos);
}
