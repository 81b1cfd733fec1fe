// Issue 39: long lists in one short line (compare/render/lists.hpp). FIXTURE names only.
#include <gtest/gtest.h>

#include <cstdio>

#include "compare/render/lists.hpp"

namespace gpubench::compare {
namespace {

TEST(Lists, FewNamesAreListedManyAreTheirEnds) {
  EXPECT_EQ(summarise_names({}), "none");
  EXPECT_EQ(summarise_names({"b", "a", "a"}), "a, b");
  std::vector<std::string> hosts;
  for (int i = 99; i >= 0; --i) {
    char name[16];
    std::snprintf(name, sizeof name, "node-%03d", i);
    hosts.push_back(name);
  }
  EXPECT_EQ(summarise_names(hosts), "node-000 … node-099");
  // Natural order: node-2 before node-10.
  EXPECT_EQ(summarise_names({"node-10", "node-2", "node-1", "node-3", "node-9"}),
            "node-1 … node-10");
}

TEST(Lists, IdsAsRangesOrTheirEnds) {
  EXPECT_EQ(summarise_ids({}), "none");
  EXPECT_EQ(summarise_ids({3, 1, 2, 7, 9, 10, 11, 7}), "1-3, 7, 9-11");
  EXPECT_EQ(summarise_ids({1, 3, 5, 7, 9, 11}), "1 … 11");
  std::vector<int64_t> ids;
  for (int64_t i = 1; i <= 100; ++i) ids.push_back(i);
  EXPECT_EQ(summarise_ids(ids), "1-100");
}

TEST(Lists, RunsOnHosts) {
  EXPECT_EQ(runs_on_hosts({3}, {"h100-node", "h100-node"}), "1 run (3) on 1 host, h100-node");
  std::vector<int64_t> runs;
  std::vector<std::string> hosts;
  for (int i = 0; i < 100; ++i) {
    runs.push_back(i + 1);
    char name[16];
    std::snprintf(name, sizeof name, "node-%03d", i);
    hosts.push_back(name);
  }
  EXPECT_EQ(runs_on_hosts(runs, hosts), "100 runs (1-100) on 100 hosts, node-000 … node-099");
}

}  // namespace
}  // namespace gpubench::compare
