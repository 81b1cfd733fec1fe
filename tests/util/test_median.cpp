// util/median.hpp: one median for the store, compare and the suites (issue 27).
#include <gtest/gtest.h>

#include <vector>

#include "util/median.hpp"

namespace gpubench {
namespace {

TEST(MedianInPlace, OddAndEvenCounts) {
  std::vector<double> odd = {5, 1, 3};
  EXPECT_EQ(median_in_place(odd.data(), odd.data() + odd.size()), 3.0);
  std::vector<double> even = {4, 1, 3, 2};
  EXPECT_EQ(median_in_place(even.data(), even.data() + even.size()), 2.5);
}

// A pair where 0.5 * (a + b), compare's old formula, is one ulp above a + (b - a) / 2, the
// store's: the one formula now gives the store's value everywhere.
TEST(MedianInPlace, EvenCountIsLowerPlusHalfTheGap) {
  std::vector<double> v = {847.4337369372327, 134.36424411240122};
  const double m = median_in_place(v.data(), v.data() + v.size());
  EXPECT_EQ(m, 490.8989905248169);
  EXPECT_NE(m, 0.5 * (134.36424411240122 + 847.4337369372327));
}

// The suites' median of a vector: the same value, and 0 when there is none.
TEST(Median, OfAVectorAndOfNone) {
  EXPECT_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(median({847.4337369372327, 134.36424411240122}), 490.8989905248169);
  EXPECT_EQ(median({}), 0.0);
}

}  // namespace
}  // namespace gpubench
