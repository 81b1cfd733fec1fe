// CRC32C, the CSV / JSON-lines codec and the .npy header: known values and edge cases.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "suites/dataloader/crc32c.hpp"
#include "suites/dataloader/dataset.hpp"
#include "suites/dataloader/npy.hpp"
#include "suites/dataloader/text_codec.hpp"
#include "util/error.hpp"

namespace dl = gpubench::dataloader;

TEST(DataloaderCrc32c, KnownVectorAndPathsAgree) {
  const char* check = "123456789";
  EXPECT_EQ(dl::crc32c(check, 9), 0xe3069283u);  // the CRC-32C check value
  EXPECT_EQ(dl::crc32c_portable(check, 9), 0xe3069283u);
  std::vector<std::uint8_t> data(1000);
  dl::fill_sample_pixels(7, 3, data);
  for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 63u, 1000u}) {
    EXPECT_EQ(dl::crc32c(data.data(), n), dl::crc32c_portable(data.data(), n)) << n;
  }
  // Continuation: crc of a+b equals crc of b continued from crc of a.
  EXPECT_EQ(dl::crc32c(data.data() + 10, 990, dl::crc32c(data.data(), 10)),
            dl::crc32c(data.data(), 1000));
}

TEST(DataloaderTextCodec, CsvRoundTrip) {
  std::vector<std::uint8_t> px = {0, 9, 10, 99, 100, 255, 1};
  std::string s;
  dl::append_csv_record(s, 4294967295u, px);
  EXPECT_EQ(s, "4294967295,0,9,10,99,100,255,1\n");
  std::vector<std::uint8_t> out(px.size());
  std::uint32_t label = 0;
  EXPECT_EQ(dl::parse_csv_record(s.data(), s.data() + s.size(), label, out), s.size());
  EXPECT_EQ(label, 4294967295u);
  EXPECT_EQ(out, px);
}

TEST(DataloaderTextCodec, JsonlRoundTripAndWhitespace) {
  std::vector<std::uint8_t> px = {3, 200, 0};
  std::string s;
  dl::append_jsonl_record(s, 12, px);
  EXPECT_EQ(s, "{\"label\":12,\"pixels\":[3,200,0]}\n");
  std::vector<std::uint8_t> out(3);
  std::uint32_t label = 0;
  EXPECT_EQ(dl::parse_jsonl_record(s.data(), s.data() + s.size(), label, out), s.size());
  EXPECT_EQ(label, 12u);
  EXPECT_EQ(out, px);
  const std::string spaced = " { \"pixels\" : [ 3 ,200, 0 ] , \"label\" : 12 } \r\n";
  out.assign(3, 0);
  EXPECT_EQ(dl::parse_jsonl_record(spaced.data(), spaced.data() + spaced.size(), label, out),
            spaced.size());
  EXPECT_EQ(label, 12u);
  EXPECT_EQ(out, px);
}

TEST(DataloaderTextCodec, CsvEdgeCases) {
  std::vector<std::uint8_t> out(2);
  std::uint32_t label = 0;
  auto parse = [&](const std::string& s) {
    return dl::parse_csv_record(s.data(), s.data() + s.size(), label, out);
  };
  EXPECT_EQ(parse("1,2,3"), 5u);           // last line without newline
  EXPECT_EQ(parse("1,2,3\r\n"), 7u);       // CRLF
  EXPECT_EQ(parse("1,2,3\n9,9,9\n"), 6u);  // stops after one record
  try {
    parse("1,2,256\n");
    FAIL() << "256 accepted";
  } catch (const dl::ParseError& e) {
    EXPECT_EQ(e.offset(), 4u);  // where the value starts
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos);
  }
  EXPECT_THROW(parse("1,2\n"), dl::ParseError);             // too few values
  EXPECT_THROW(parse("1,2,3,4\n"), dl::ParseError);         // too many
  EXPECT_THROW(parse("1,2,-3\n"), dl::ParseError);          // sign
  EXPECT_THROW(parse("1,2,1000\n"), dl::ParseError);        // 4 digits
  EXPECT_THROW(parse("1,,3\n"), dl::ParseError);            // empty field
  EXPECT_THROW(parse("x,2,3\n"), dl::ParseError);           // no label
  EXPECT_THROW(parse("4294967296,2,3\n"), dl::ParseError);  // label overflow
  EXPECT_THROW(parse("1,2,3 \n"), dl::ParseError);          // trailing junk
  EXPECT_THROW(parse(""), dl::ParseError);
}

TEST(DataloaderTextCodec, JsonlEdgeCases) {
  std::vector<std::uint8_t> out(2);
  std::uint32_t label = 0;
  auto parse = [&](const std::string& s) {
    return dl::parse_jsonl_record(s.data(), s.data() + s.size(), label, out);
  };
  EXPECT_EQ(parse("{\"label\":1,\"pixels\":[1,2]}"), 26u);
  EXPECT_THROW(parse("{\"label\":1,\"pixels\":[1]}\n"), dl::ParseError);      // too few
  EXPECT_THROW(parse("{\"label\":1,\"pixels\":[1,2,3]}\n"), dl::ParseError);  // too many
  EXPECT_THROW(parse("{\"label\":1}\n"), dl::ParseError);                     // missing key
  EXPECT_THROW(parse("{\"label\":1,\"label\":2}\n"), dl::ParseError);         // duplicate
  EXPECT_THROW(parse("{\"label\":1,\"other\":[1,2]}\n"), dl::ParseError);     // unknown key
  EXPECT_THROW(parse("{\"label\":1,\"pixels\":[1,2]\n"), dl::ParseError);     // unterminated
  EXPECT_THROW(parse("{\"label\":1,\"pixels\":[1,2.5]}\n"), dl::ParseError);  // not an integer
  EXPECT_THROW(parse("{\"la\\bel\":1,\"pixels\":[1,2]}\n"), dl::ParseError);  // escapes refused
  try {
    parse("{\"label\":1,\"pixels\":[1,300]}\n");
    FAIL() << "300 accepted";
  } catch (const dl::ParseError& e) {
    EXPECT_EQ(e.offset(), 23u);
  }
}

TEST(DataloaderNpy, HeaderRoundTripAndRejects) {
  const std::string h = dl::make_npy_header("|u1", {5, 7});
  EXPECT_EQ(h.size() % 64, 0u);
  const auto parsed = dl::parse_npy_header(h, "x.npy");
  EXPECT_EQ(parsed.descr, "|u1");
  EXPECT_FALSE(parsed.fortran_order);
  EXPECT_EQ(parsed.shape, (std::vector<std::uint64_t>{5, 7}));
  EXPECT_EQ(parsed.data_offset, h.size());
  const auto one = dl::parse_npy_header(dl::make_npy_header("<u4", {9}), "y.npy");
  EXPECT_EQ(one.shape, (std::vector<std::uint64_t>{9}));
  EXPECT_THROW(dl::parse_npy_header("not numpy", "z.npy"), gpubench::Error);
  EXPECT_THROW(dl::parse_npy_header(h.substr(0, 20), "z.npy"), gpubench::Error);
}
