// Text that fits the terminal (issue 26): widths, elision, wrapping, fitted tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "util/text_width.hpp"

namespace gpubench {
namespace {

std::size_t longest(const std::vector<std::string>& lines) {
  std::size_t m = 0;
  for (const auto& l : lines) m = std::max(m, display_width(l));
  return m;
}

TEST(TextWidth, DisplayWidthCountsCodePointsNotColours) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("1.05× — ok"), 10u);
  EXPECT_EQ(display_width("\033[31mred\033[0m"), 3u);
}

TEST(TextWidth, HangKeepsAShortPrefixOnANarrowTerminal) {
  // "ab" is narrower than the 4-column indent continuation lines take: it stays on the first line.
  const std::string out = hang("ab", "one two three four five six", 12);
  EXPECT_EQ(out.rfind("abone", 0), 0u) << out;
  for (const char* word : {"one", "two", "three", "four", "five", "six"}) {
    EXPECT_NE(out.find(word), std::string::npos) << out;
  }
  // A wide prefix takes a line of its own, the text 4 columns in from its indent.
  EXPECT_EQ(hang("  prefix: ", "one two three four", 12).rfind("  prefix:\n      one", 0), 0u);
}

TEST(TextWidth, ElideMiddleKeepsBothEnds) {
  EXPECT_EQ(elide_middle("pct_of_peak (secondary)", 11), "pct_o…dary)");
  EXPECT_EQ(display_width(elide_middle("pct_of_peak (secondary)", 11)), 11u);
  EXPECT_EQ(elide_middle("short", 10), "short");
}

// Issue 39: a number, a sign, a date, an interval is never cut.
TEST(TextWidth, ElideMiddleNeverCutsANumber) {
  EXPECT_EQ(elide_middle("[-15.41%, -14.64%]", 8), "[-15.41%, -14.64%]");
  EXPECT_EQ(elide_middle("2026-12-05T17:11:54.377Z", 10), "2026-12-05T17:11:54.377Z");
  EXPECT_TRUE(holds_digit("m:8192"));
  EXPECT_FALSE(holds_digit("TFLOP/s"));
}

TEST(TextWidth, WrapWordsNeverSplitsAWord) {
  const auto lines = wrap_words("run 0123456789abcdef0123 on node-7", 10);
  EXPECT_EQ(lines, (std::vector<std::string>{"run", "0123456789abcdef0123", "on node-7"}));
  // A long name without a digit is elided, not split over two lines.
  EXPECT_EQ(wrap_words("a very_long_metric_name_here", 12),
            (std::vector<std::string>{"a", "very_…e_here"}));
}

// Every word of `lines` (split at spaces) that holds a digit, for "nothing was cut" checks.
std::vector<std::string> digit_words(const std::vector<std::string>& lines) {
  std::vector<std::string> words;
  for (const auto& l : lines) {
    std::size_t i = 0;
    while (i < l.size()) {
      const std::size_t j = std::min(l.find(' ', i), l.size());
      const std::string w = l.substr(i, j - i);
      if (holds_digit(w)) words.push_back(w);
      i = j + 1;
    }
  }
  std::sort(words.begin(), words.end());
  return words;
}

// The table of issue 39's compare: at 80 columns the interval, the signs and the date stay whole
// (they wrap at spaces), no line is longer than 80.
TEST(TextWidth, FitTableWrapsCellsAndNeverCutsNumbers) {
  const std::vector<std::vector<std::string>> rows = {
      {"benchmark", "metric", "change", "interval", "started", "why"},
      {"gemm/bf16/m:8192/n:8192/k:8192/gpu:3", "pct_of_peak (secondary)", "-15.02%",
       "[-15.41%, -14.64%]", "2026-12-05T17:11:54.377Z",
       "15.0% worse, beyond the threshold 2% with 99% confidence"}};
  const auto wide = fit_table(rows, 0, "  ");
  const auto fitted = fit_table(rows, 80, "  ");
  EXPECT_GT(longest(wide), 80u);
  EXPECT_LE(longest(fitted), 80u);
  EXPECT_EQ(digit_words(fitted), digit_words(wide));
  std::string all;
  for (const auto& l : fitted) all += l + "\n";
  EXPECT_NE(all.find("[-15.41%,"), std::string::npos) << all;
  EXPECT_NE(all.find("2026-12-05T17:11:54.377Z"), std::string::npos) << all;
}

// A column of names loses its common prefix (said once above the table); optional columns are
// left out (said under it) before anything wraps.
TEST(TextWidth, FitTableShortensNamesAndDropsOptionalColumns) {
  std::vector<std::vector<std::string>> rows = {{"benchmark", "median", "min", "max", "note"}};
  for (const char* d : {"bf16", "fp16", "fp8"}) {
    rows.push_back({std::string("gemm/") + d + "/m:8192/n:8192/k:8192/gpu:3", "712.04 TFLOP/s",
                    "711.00 TFLOP/s", "713.20 TFLOP/s", "ok"});
  }
  TableFit fit;
  fit.header_rows = 1;
  fit.names = 0;
  fit.may_drop = {2, 3};
  const auto lines = fit_table(rows, 60, fit);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "every benchmark below starts with gemm/");
  EXPECT_EQ(lines.back(), "left out to fit the width: min, max (--wide shows them)");
  EXPECT_LE(longest(lines), 60u);
  EXPECT_EQ(lines.size(), 6u);  // no row wrapped
  EXPECT_NE(lines[2].find("bf16/m:8192/n:8192/k:8192/gpu:3  712.04 TFLOP/s  ok"), std::string::npos)
      << lines[2];
  // When it fits, nothing is dropped or shortened.
  const auto wide = fit_table(rows, 200, fit);
  EXPECT_EQ(wide.size(), 4u);
  EXPECT_EQ(wide[1].rfind("gemm/bf16/", 0), 0u);
}

TEST(TextWidth, FitTableWrapsTheLastColumnAndCutsTheWidest) {
  const std::vector<std::vector<std::string>> rows = {
      {"benchmark", "verdict", "why"},
      {std::string(90, 'b'), "regression",
       "4.1% worse, between 2.0% and 6.2% worse with 99% confidence (beyond the threshold 2%)"}};
  const auto unlimited = fit_table(rows, 0, "  ");
  EXPECT_EQ(unlimited.size(), 2u);
  EXPECT_GT(longest(unlimited), 120u);
  const auto fitted = fit_table(rows, 80, "  ");
  EXPECT_LE(longest(fitted), 80u);
  EXPECT_GT(fitted.size(), 2u);  // the why wrapped
  std::string all;
  for (const auto& l : fitted) all += l + "\n";
  EXPECT_NE(all.find("threshold 2%)"), std::string::npos) << all;  // nothing lost
  EXPECT_NE(all.find("…"), std::string::npos) << all;  // the long name (no digit) was elided
}

// Tables scripts read keep their first column whole and first (`baseline list | grep "^nightly "`).
TEST(TextWidth, KeepWholeNeverMovesOrCutsTheFirstColumn) {
  const std::vector<std::vector<std::string>> rows = {{"nightly", std::string(60, 'u'),
                                                       std::string(40, 'd'),
                                                       "a note that is long enough to wrap"}};
  const auto lines = fit_table(rows, 80, "", nullptr, FirstColumn::keep_whole);
  EXPECT_EQ(lines.front().rfind("nightly  ", 0), 0u) << lines.front();
  EXPECT_LE(longest(lines), 80u);
  const auto stacked = fit_table(rows, 80);
  EXPECT_EQ(stacked.front(), "nightly");  // the default may put it on a line of its own
}

TEST(TextWidth, WrapLinesIndentsContinuations) {
  const std::string text = "  FAIL " + std::string(30, 'x') + " " + std::string(30, 'y') + "\nok\n";
  const std::string wrapped = wrap_lines(text, 50);
  EXPECT_EQ(wrapped,
            "  FAIL " + std::string(30, 'x') + "\n      " + std::string(30, 'y') + "\nok\n");
  EXPECT_EQ(wrap_lines(text, 0), text);
}

TEST(TextWidth, WidthFromEnvironment) {
  EXPECT_EQ(width_from_environment(true), 0u);
  setenv("COLUMNS", "120", 1);
  EXPECT_EQ(width_from_environment(false), 120u);
  setenv("COLUMNS", "wide", 1);
  EXPECT_GT(width_from_environment(false), 0u);  // not a number: the terminal's or 100
  unsetenv("COLUMNS");
}

}  // namespace
}  // namespace gpubench
