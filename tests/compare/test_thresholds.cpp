#include <gtest/gtest.h>

#include "compare/thresholds.hpp"
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
      "# comment\n\nmemory/*   3%   # trailing comment\nmemory/copy*  0.05\n"
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
