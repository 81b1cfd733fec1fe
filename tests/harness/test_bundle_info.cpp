// gpubench --version names the relocatable bundle (ci/bundle) it runs from.
#include <gtest/gtest.h>

#include "harness/cli/bundle_info.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;

namespace gpubench::cli {
namespace {

TEST(BundleInfo, NamesTheBundleFromShareNextToBin) {
  TempDir root("gpubench-test");
  fs::create_directories(root.path() / "bin");
  fs::create_directories(root.path() / "share" / "gpubench");
  write_file_atomic(root.path() / "share" / "gpubench" / "BUNDLE",
                    "gpubench-0.1.0-abc123-linux-x86_64\nbuilt from fixture lines\n");
  const auto name = bundle_name(root.path() / "bin");
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(*name, "gpubench-0.1.0-abc123-linux-x86_64");
}

TEST(BundleInfo, NothingOutsideABundleOrForAnEmptyFile) {
  TempDir root("gpubench-test");
  fs::create_directories(root.path() / "bin");
  EXPECT_FALSE(bundle_name(root.path() / "bin").has_value());
  fs::create_directories(root.path() / "share" / "gpubench");
  write_file_atomic(root.path() / "share" / "gpubench" / "BUNDLE", "\n");
  EXPECT_FALSE(bundle_name(root.path() / "bin").has_value());
}

}  // namespace
}  // namespace gpubench::cli
