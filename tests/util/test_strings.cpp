#include <gtest/gtest.h>

#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/uuid.hpp"

namespace gpubench {
namespace {

TEST(Strings, SplitKeepsEmptyFields) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string>{""}));
}

TEST(Strings, ParseIsStrict) {
  EXPECT_EQ(parse_int("42"), 42);
  EXPECT_FALSE(parse_int("42x"));
  EXPECT_FALSE(parse_int(""));
  EXPECT_DOUBLE_EQ(*parse_double("2.5e3"), 2500.0);
  EXPECT_FALSE(parse_double("1.0.0"));
}

TEST(Strings, FormatSignificant) {
  EXPECT_EQ(format_significant(12.345, 3), "12.3");
  EXPECT_EQ(format_significant(0.012345, 3), "0.0123");
  EXPECT_EQ(format_significant(0.0, 3), "0");
}

TEST(Errors, MessageHasWhatWhyFix) {
  Error e = bad_input("cannot open 'x.db'", "no such file", "check the path");
  EXPECT_STREQ(e.what(), "cannot open 'x.db' (no such file; check the path)");
  EXPECT_EQ(e.code(), ExitCode::bad_input);
}

TEST(Uuid, V4Format) {
  std::string u = make_uuid_v4();
  EXPECT_TRUE(is_uuid(u));
  EXPECT_EQ(u[14], '4');
  EXPECT_NE(u, make_uuid_v4());
}

}  // namespace
}  // namespace gpubench
