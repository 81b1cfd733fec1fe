// Text that fits the terminal (issue 26): widths, elision, wrapping, fitted tables.
#include <gtest/gtest.h>

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

TEST(TextWidth, ElideMiddleKeepsBothEnds) {
  EXPECT_EQ(elide_middle("memory/triad/bytes:64Mi", 11), "memor…:64Mi");
  EXPECT_EQ(display_width(elide_middle("memory/triad/bytes:64Mi", 11)), 11u);
  EXPECT_EQ(elide_middle("short", 10), "short");
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
  EXPECT_NE(all.find("…"), std::string::npos) << all;              // the long name was cut
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
