#include <gtest/gtest.h>

#include "util/suggest.hpp"

namespace gpubench {
namespace {

TEST(Suggest, EditDistanceCountsTranspositionsAsOne) {
  EXPECT_EQ(edit_distance("compare", "compare"), 0u);
  EXPECT_EQ(edit_distance("comapre", "compare"), 1u);
  EXPECT_EQ(edit_distance("compar", "compare"), 1u);
  EXPECT_EQ(edit_distance("", "run"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, ClosestMatchOnlyForTypos) {
  const std::vector<std::string> commands = {"run", "runs", "show", "compare", "accept", "report"};
  EXPECT_EQ(closest_match("comapre", commands), "compare");
  EXPECT_EQ(closest_match("REPROT", commands), "report");
  EXPECT_EQ(closest_match("shwo", commands), "show");
  EXPECT_EQ(closest_match("frobnicate", commands), std::nullopt);  // too far from all
  EXPECT_EQ(closest_match("compare", commands), std::nullopt);     // not a typo
  EXPECT_EQ(did_you_mean("acept", commands, "gpubench "), "did you mean 'gpubench accept'?");
  EXPECT_EQ(did_you_mean("xyz", commands), "");
}

}  // namespace
}  // namespace gpubench
