// JsonWriter writes what nlohmann::json::dump(indent) writes for the same document (issue 16);
// AtomicFileWriter puts a file in place only on commit.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json_writer.hpp"

namespace {

using gpubench::JsonWriter;
using nlohmann::json;

// Writes `doc` through JsonWriter's typed calls (objects member by member, in nlohmann's sorted
// key order), never through value(), so every typed path is checked against dump().
void write_typed(JsonWriter& w, const json& doc) {
  switch (doc.type()) {
    case json::value_t::object:
      w.begin_object();
      for (const auto& [k, v] : doc.items()) {
        w.key(k);
        write_typed(w, v);
      }
      w.end_object();
      return;
    case json::value_t::array:
      w.begin_array();
      for (const auto& v : doc) write_typed(w, v);
      w.end_array();
      return;
    case json::value_t::string:
      w.string(doc.get<std::string>());
      return;
    case json::value_t::number_float:
      w.number(doc.get<double>());
      return;
    case json::value_t::number_integer:
      w.integer(doc.get<int64_t>());
      return;
    case json::value_t::number_unsigned:
      w.unsigned_integer(doc.get<uint64_t>());
      return;
    case json::value_t::boolean:
      w.boolean(doc.get<bool>());
      return;
    default:
      w.null();
      return;
  }
}

std::string written(const json& doc, int indent, bool typed) {
  std::ostringstream out;
  JsonWriter w(out, indent);
  if (typed) {
    write_typed(w, doc);
  } else {
    w.value(doc);
  }
  w.finish();
  return out.str();
}

json awkward_document() {
  json doc;
  doc["empty_object"] = json::object();
  doc["empty_array"] = json::array();
  doc["nested"] = {{"a", json::array({1, -2, 3.5, json::object(), json::array()})},
                   {"b", {{"c", nullptr}, {"d", true}, {"e", false}}}};
  doc["numbers"] = {0.0,
                    -0.0,
                    1.0,
                    1e300,
                    5e-324,
                    0.1,
                    1e21,
                    123456789.0,
                    -1.5e-7,
                    std::numeric_limits<double>::max(),
                    std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<uint64_t>::max()};
  doc["strings"] = {"",
                    "plain",
                    "quote \" backslash \\ slash /",
                    "tab\tnew\nline\r",
                    std::string("nul\0byte", 8),
                    "\x01\x1f\x7f",
                    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80"};
  doc["key \"quoted\" \xc3\xa9"] = "x";
  return doc;
}

TEST(JsonWriter, WritesWhatDumpWritesForEveryValueKind) {
  const json doc = awkward_document();
  for (int indent : {0, 2, 4}) {
    EXPECT_EQ(written(doc, indent, true), doc.dump(indent)) << "indent " << indent;
    EXPECT_EQ(written(doc, indent, false), doc.dump(indent)) << "indent " << indent;
  }
}

TEST(JsonWriter, NonFiniteNumbersAreNullAsInDump) {
  const json doc = {std::nan(""), std::numeric_limits<double>::infinity(),
                    -std::numeric_limits<double>::infinity()};
  EXPECT_EQ(written(doc, 2, true), doc.dump(2));
  EXPECT_NE(written(doc, 2, true).find("null"), std::string::npos);
}

TEST(JsonWriter, ValueInsideAContainerIsIndentedAtItsDepth) {
  json inner = {{"k", {1, 2}}, {"m", {{"n", "o"}}}};
  std::ostringstream out;
  JsonWriter w(out);
  w.begin_object().key("a").begin_array().value(inner).value(json::array()).end_array();
  w.key("b").value(inner).end_object().finish();
  const json expected = {{"a", {inner, json::array()}}, {"b", inner}};
  EXPECT_EQ(out.str(), expected.dump(2));
}

// Issue 43: a string stored before inputs were checked must not make an output die; it is
// written with U+FFFD, as json_text() writes it.
TEST(JsonWriter, InvalidUtf8IsWrittenWithReplacementCharacters) {
  std::ostringstream out;
  JsonWriter w(out);
  w.begin_array().string("bad \xff byte").value(json("in \xfe a value")).end_array().finish();
  EXPECT_EQ(json::parse(out.str()), json::parse("[\"bad \\ufffd byte\", \"in \\ufffd a value\"]"));
  EXPECT_EQ(gpubench::json_text(json("bad \xff byte")), "\"bad \xef\xbf\xbd byte\"");
}

TEST(JsonWriter, LargeOutputIsHandedOverInBlocks) {
  std::ostringstream out;
  JsonWriter w(out);
  w.begin_array();
  std::size_t seen_before_finish = 0;
  for (int i = 0; i < 200000; ++i) {
    w.begin_object().key("i").integer(i).key("v").number(i * 0.5).end_object();
    if (i == 199999) seen_before_finish = out.str().size();
  }
  w.end_array().finish();
  EXPECT_GT(seen_before_finish, std::size_t{1} << 20);  // streamed, not held to the end
  json parsed = json::parse(out.str());
  ASSERT_EQ(parsed.size(), 200000u);
  EXPECT_EQ(parsed[199999]["i"], 199999);
}

TEST(AtomicFileWriter, CommitPutsTheFileInPlace) {
  gpubench::TempDir dir("gpubench-test-atomic");
  const auto path = dir.path() / "out.json";
  gpubench::write_file_atomic(path, "old");
  {
    gpubench::AtomicFileWriter f(path);
    f.stream() << "new content";
    EXPECT_EQ(gpubench::read_file(path), "old");  // not visible before commit
    f.commit();
  }
  EXPECT_EQ(gpubench::read_file(path), "new content");
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1u);  // no temp file left behind
}

TEST(AtomicFileWriter, WithoutCommitThePathIsUntouchedAndTheTempFileGone) {
  gpubench::TempDir dir("gpubench-test-atomic");
  const auto path = dir.path() / "out.json";
  gpubench::write_file_atomic(path, "old");
  try {
    gpubench::AtomicFileWriter f(path);
    f.stream() << "half a document";
    throw std::runtime_error("failed while writing");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(gpubench::read_file(path), "old");
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1u);
}

TEST(AtomicFileWriter, MissingDirectoryIsBadInput) {
  gpubench::TempDir dir("gpubench-test-atomic");
  try {
    gpubench::AtomicFileWriter f(dir.path() / "no" / "such" / "out.json");
    FAIL() << "expected an error";
  } catch (const gpubench::Error& e) {
    EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("cannot write"), std::string::npos);
  }
}

}  // namespace
