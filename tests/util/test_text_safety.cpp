// util/text_safety: the UTF-8 validator and the visible-text sanitiser (issue 43).
#include "util/text_safety.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "util/error.hpp"

namespace gpubench {
namespace {

TEST(Utf8, ValidTextHasNoInvalidOffset) {
  EXPECT_EQ(invalid_utf8_offset(""), std::nullopt);
  EXPECT_EQ(invalid_utf8_offset("plain ascii"), std::nullopt);
  EXPECT_EQ(invalid_utf8_offset("€ µs \xf0\x9f\x9a\x80 \xe2\x80\xae"), std::nullopt);
}

TEST(Utf8, FirstBadByteIsNamed) {
  EXPECT_EQ(invalid_utf8_offset("bad \xff byte"), 4u);
  EXPECT_EQ(invalid_utf8_offset("ab\xc3"), 2u);               // truncated sequence
  EXPECT_EQ(invalid_utf8_offset("\xc0\xaf"), 0u);             // overlong '/'
  EXPECT_EQ(invalid_utf8_offset("x\xed\xa0\x80"), 1u);        // a surrogate
  EXPECT_EQ(invalid_utf8_offset("\xf4\x90\x80\x80"), 0u);     // above U+10FFFF
  EXPECT_EQ(invalid_utf8_offset("ok \xe2\x82\xac\x80"), 6u);  // a stray continuation byte
}

TEST(Utf8, CheckThrowsBadInputWithOffsetAndLine) {
  EXPECT_NO_THROW(check_utf8("fine", "--tag"));
  try {
    check_utf8("a\nb\n c\xfe", "prices file 'p.csv'");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    const std::string m = e.what();
    EXPECT_NE(m.find("prices file 'p.csv' is not valid UTF-8"), std::string::npos) << m;
    EXPECT_NE(m.find("byte 0xFE at offset 6 (line 3)"), std::string::npos) << m;
  }
}

TEST(Utf8, ReplacementCharactersStandForBadBytes) {
  EXPECT_EQ(utf8_with_replacements("a\xff"
                                   "b\xc3"),
            "a\xef\xbf\xbd"
            "b\xef\xbf\xbd");
  EXPECT_EQ(utf8_with_replacements("€"), "€");
}

TEST(VisibleText, ControlsAndBidiOverridesBecomeEscapes) {
  EXPECT_EQ(visible_text("x\x1b[31mRED\x1b[0m"), "x\\x1b[31mRED\\x1b[0m");
  EXPECT_EQ(visible_text("a\r\rb\x07\x7f"), "a\\r\\rb\\x07\\x7f");
  EXPECT_EQ(visible_text("\xe2\x80\xaegnp.exe \xe2\x81\xa6x\xe2\x81\xa9"),
            "\\u202egnp.exe \\u2066x\\u2069");
  EXPECT_EQ(visible_text("c1 \xc2\x9b"
                         "31m"),
            "c1 \\u009b31m");  // C1 CSI
  EXPECT_EQ(visible_text("bad \xff"), "bad \\xff");
}

TEST(VisibleText, LayoutAndOrdinaryTextStay) {
  const std::string text = "name\tvalue\n€ 12.5 µs <b>&\n";
  EXPECT_EQ(visible_text(text), text);
  EXPECT_FALSE(has_hidden_text(text));
  EXPECT_TRUE(has_hidden_text("a\rb"));
}

TEST(VisibleText, IsIdempotent) {
  const std::string once = visible_text("x\x1b\r\xe2\x80\xae\xff");
  EXPECT_EQ(visible_text(once), once);
}

TEST(VisibleText, StreamWritesTheSameAsTheFunction) {
  const std::string text =
      std::string("line \x1b[2J one\n") + "split \xe2\x80" + "\xae here\nend\r";
  std::ostringstream target;
  {
    VisibleTextStream visible(target);
    // Byte by byte: a UTF-8 sequence split across writes is still one character.
    for (char c : text) visible << c;
    visible.flush();
    EXPECT_EQ(target.str(), "line \\x1b[2J one\nsplit \\u202e here\n");
  }
  EXPECT_EQ(target.str(), visible_text(text));
}

}  // namespace
}  // namespace gpubench
