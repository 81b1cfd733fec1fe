// compare/aggregates.hpp: how a series with aggregates only on a side is read (issue 23).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compare/aggregates.hpp"
#include "results/schema/aggregates.hpp"

namespace gpubench::compare {
namespace {

results::ResultRow repetitions(std::vector<double> values) {
  results::ResultRow r;
  r.values = std::move(values);
  return r;
}

results::ResultRow aggregates(std::map<std::string, double> stats, std::string complexity = "") {
  results::ResultRow r;
  r.aggregates = std::move(stats);
  r.complexity = std::move(complexity);
  return r;
}

std::optional<AggregateReading> read(const results::ResultRow& b, const results::ResultRow& c) {
  const std::vector<const results::ResultRow*> base = {&b}, candidate = {&c};
  return read_aggregates(base, candidate);
}

TEST(Aggregates, RepetitionsOnBothSidesAreLeftToTheUsualStatistics) {
  EXPECT_FALSE(read(repetitions({1, 2, 3}), repetitions({1, 2, 3})));
  // Aggregates beside repetitions (a file with both) change nothing either.
  results::ResultRow both = repetitions({1, 2, 3});
  both.aggregates = {{"mean", 2}};
  EXPECT_FALSE(read(both, repetitions({1, 2, 3})));
}

TEST(Aggregates, MeanOrMedianOnlyIsInconclusiveWithTheRatioOfMedians) {
  const auto r = read(aggregates({{"mean", 11}, {"median", 10}, {"stddev", 1}}),
                      aggregates({{"mean", 13}, {"median", 12}}));
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->complexity_fit);
  EXPECT_EQ(r->reason.rfind("aggregates only: rerun with repetitions", 0), 0u) << r->reason;
  EXPECT_NE(r->reason.find("base has mean, median, stddev"), std::string::npos) << r->reason;
  EXPECT_DOUBLE_EQ(r->ratio, 1.2);  // medians: 12 / 10
}

TEST(Aggregates, OneSideWithRepetitionsIsReadAgainstTheOthersMean) {
  const auto r = read(aggregates({{"mean", 10}}), repetitions({8, 9, 10}));
  ASSERT_TRUE(r);
  EXPECT_NE(r->reason.find("base has mean"), std::string::npos) << r->reason;
  EXPECT_EQ(r->reason.find("candidate has"), std::string::npos) << r->reason;
  EXPECT_DOUBLE_EQ(r->ratio, 0.9);
}

TEST(Aggregates, AnUnnamedAggregateGivesNoRatio) {
  const auto r = read(aggregates({{"aggregate", 10}}), repetitions({9}));
  ASSERT_TRUE(r);
  EXPECT_TRUE(std::isnan(r->ratio));
}

TEST(Aggregates, ComplexityFitsAreListedNotCompared) {
  const auto r = read(aggregates({{"BigO", 6.5}}, "N"), aggregates({{"BigO", 9.0}}, "N"));
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->complexity_fit);
  EXPECT_EQ(r->reason, "complexity fit O(N): listed, not compared");
  EXPECT_EQ(results::complexity_text("(1)"), "O(1)");
  EXPECT_EQ(results::complexity_text("NlgN"), "O(NlgN)");
}

TEST(Aggregates, ShowNoteNamesEveryStatistic) {
  EXPECT_EQ(compare::aggregates_note(aggregates({{"mean", 8}, {"cv", 0.02}})),
            "aggregates only (cv 2.00%, mean 8.000): rerun with repetitions");
  EXPECT_EQ(compare::aggregates_note(aggregates({{"RMS", 0.0045}}, "N")),
            "complexity fit O(N): RMS 0.450% (listed, not compared)");
  EXPECT_EQ(compare::aggregates_note(repetitions({1})), "");
}

}  // namespace
}  // namespace gpubench::compare
