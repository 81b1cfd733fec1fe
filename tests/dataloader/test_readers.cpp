// Shuffled access (sample_order.hpp), the TFRecord + tf.train.Example and WebDataset tar formats:
// known byte vectors derived from the specifications, round trips, and corruption reports.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "suites/dataloader/crc32c.hpp"
#include "suites/dataloader/dataset_reader.hpp"
#include "suites/dataloader/pipeline.hpp"
#include "suites/dataloader/sample_order.hpp"
#include "suites/dataloader/tar_format.hpp"
#include "suites/dataloader/tf_example.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace dl = gpubench::dataloader;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

dl::DatasetSpec spec_of(dl::Format f, std::uint64_t samples = 23, std::uint64_t per_shard = 10) {
  dl::DatasetSpec s;
  s.format = f;
  s.seed = 9;
  s.record_bytes = 1001;
  s.samples = samples;
  s.samples_per_shard = per_shard;
  return s;
}

std::string error_text(const gpubench::Error& e) {
  return gpubench::format_error_message(e.what_failed(), e.why(), e.fix());
}

// Reads every sample of `d` through `path`; returns the error text ("" when it succeeded and
// every sample equals the generator's).
std::string read_all(const dl::Dataset& d, dl::ReadPath path) {
  try {
    dl::DatasetReader reader(d, path);
    auto bytes = dl::make_byte_reader(path);
    std::vector<char> scratch;
    std::vector<std::uint32_t> labels(d.spec.samples);
    std::vector<std::uint8_t> pixels(d.spec.samples * d.spec.record_bytes);
    reader.read_samples(0, d.spec.samples, labels.data(), pixels.data(), *bytes, scratch);
    std::vector<std::uint8_t> expected(d.spec.record_bytes);
    for (std::uint64_t i = 0; i < d.spec.samples; ++i) {
      dl::fill_sample_pixels(d.spec.seed, i, expected);
      if (labels[i] != dl::sample_label(d.spec.seed, i) ||
          std::memcmp(pixels.data() + i * d.spec.record_bytes, expected.data(),
                      d.spec.record_bytes) != 0) {
        return "sample " + std::to_string(i) + " differs";
      }
    }
    return {};
  } catch (const gpubench::Error& e) {
    return error_text(e);
  }
}

void poke(const fs::path& file, std::uint64_t offset, char value) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  const char old = static_cast<char>(f.get());
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(value == old ? static_cast<char>(value ^ 1) : value);
}

}  // namespace

// --- shuffled access -------------------------------------------------------------------------

TEST(DataloaderOrder, EveryOrderCoversEverySampleOncePerEpoch) {
  const auto s = spec_of(dl::Format::raw, 1003, 100);  // 11 shards, the last one short
  for (dl::Order o : {dl::Order::sequential, dl::Order::shuffled, dl::Order::shard_shuffled}) {
    for (std::uint64_t epoch = 0; epoch < 4; ++epoch) {
      const auto order = dl::epoch_order(s, o, 42, epoch, 16);
      ASSERT_EQ(order.size(), 1003u);
      EXPECT_EQ(dl::check_permutation(order, 1003), "") << to_string(o) << " epoch " << epoch;
    }
  }
}

TEST(DataloaderOrder, CheckPermutationFindsDuplicatesMissingAndOutOfRange) {
  EXPECT_EQ(dl::check_permutation({2, 0, 1}, 3), "");
  EXPECT_THAT(dl::check_permutation({2, 0, 2}, 3), HasSubstr("sample 2 appears twice"));
  EXPECT_THAT(dl::check_permutation({2, 0}, 3), HasSubstr("sample 1 is missing"));
  EXPECT_THAT(dl::check_permutation({2, 0, 3}, 3), HasSubstr("names sample 3 of 3"));
}

TEST(DataloaderOrder, SeededReproducibleAndDifferentPerEpochAndSeed) {
  const auto s = spec_of(dl::Format::raw, 500, 50);
  for (dl::Order o : {dl::Order::shuffled, dl::Order::shard_shuffled}) {
    EXPECT_EQ(dl::epoch_order(s, o, 42, 3, 16), dl::epoch_order(s, o, 42, 3, 16));
    EXPECT_NE(dl::epoch_order(s, o, 42, 3, 16), dl::epoch_order(s, o, 42, 4, 16));
    EXPECT_NE(dl::epoch_order(s, o, 42, 3, 16), dl::epoch_order(s, o, 43, 3, 16));
    std::vector<std::uint64_t> identity(500);
    std::iota(identity.begin(), identity.end(), 0u);
    EXPECT_NE(dl::epoch_order(s, o, 42, 0, 16), identity);
  }
  // Pinned values: the order depends on nothing but (seed, epoch), on every platform.
  const auto first = dl::epoch_order(spec_of(dl::Format::raw, 8, 8), dl::Order::shuffled, 1, 0);
  EXPECT_EQ(dl::epoch_order(spec_of(dl::Format::raw, 8, 8), dl::Order::shuffled, 1, 0), first);
}

TEST(DataloaderOrder, ShardShuffleReadsShardsWholeThroughABoundedBuffer) {
  const std::size_t buffer = 16;
  const auto s = spec_of(dl::Format::raw, 1000, 100);
  const auto order = dl::epoch_order(s, dl::Order::shard_shuffled, 7, 0, buffer);
  // Shards enter the buffer one after another in a seeded order: a sample leaves at most
  // `buffer - 1` positions before its place in that stream, and the shard order is not 0..9.
  std::vector<std::uint64_t> stream;
  std::vector<std::uint64_t> shard_seen;
  for (std::uint64_t idx : order) {
    const std::uint64_t shard = idx / 100;
    if (std::find(shard_seen.begin(), shard_seen.end(), shard) == shard_seen.end()) {
      shard_seen.push_back(shard);
    }
  }
  ASSERT_EQ(shard_seen.size(), 10u);
  for (std::uint64_t shard : shard_seen) {
    for (std::uint64_t i = 0; i < 100; ++i) stream.push_back(shard * 100 + i);
  }
  std::vector<std::uint64_t> position(1000);
  for (std::size_t p = 0; p < order.size(); ++p) position[order[p]] = p;
  for (std::size_t p = 0; p < stream.size(); ++p) {
    EXPECT_GE(position[stream[p]] + buffer - 1, p) << "sample " << stream[p];
  }
  EXPECT_FALSE(std::is_sorted(shard_seen.begin(), shard_seen.end()));
  // The buffer never holds more than its capacity, and refuses a push when full.
  dl::ShuffleBuffer pool(buffer, 3);
  std::uint64_t next = 0;
  std::set<std::uint64_t> out;
  while (next < 1000) {
    if (pool.full()) out.insert(pool.pop());
    pool.push(next++);
  }
  while (!pool.empty()) out.insert(pool.pop());
  EXPECT_EQ(pool.max_size_seen(), buffer);
  EXPECT_EQ(out.size(), 1000u);
  dl::ShuffleBuffer full(2, 3);
  full.push(1);
  full.push(2);
  EXPECT_THROW(full.push(3), gpubench::Error);
}

// Records which samples each batch carried (by batch number), to compare with the epoch's order.
class OrderSink : public dl::BatchSink {
 public:
  void begin(const dl::Batch& b) override {
    auto& v = by_batch[b.index];
    for (std::size_t i = 0; i < b.count; ++i) v.push_back(b.sample(i));
  }
  std::vector<std::uint64_t> flattened() const {
    std::vector<std::uint64_t> out;
    for (const auto& [k, v] : by_batch) out.insert(out.end(), v.begin(), v.end());
    return out;
  }
  std::map<std::uint64_t, std::vector<std::uint64_t>> by_batch;
};

TEST(DataloaderOrder, PipelineFollowsTheEpochsOrder) {
  gpubench::TempDir tmp("dl-order-follow");
  const auto d = dl::ensure_dataset(tmp.path(), spec_of(dl::Format::raw, 203, 50));
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  for (dl::Order o : {dl::Order::sequential, dl::Order::shuffled, dl::Order::shard_shuffled}) {
    dl::PipelineConfig c;
    c.workers = 3;
    c.batch_size = 16;
    c.order = o;
    c.order_seed = 5;
    c.shuffle_buffer = 8;
    dl::Pipeline p(reader, c);
    for (std::uint64_t epoch = 0; epoch < 2; ++epoch) {
      OrderSink sink;
      p.run(&sink);
      EXPECT_EQ(sink.flattened(), dl::epoch_order(d.spec, o, 5, epoch, 8)) << to_string(o);
    }
  }
}

TEST(DataloaderOrder, ShuffledPipelineDeliversEverySampleOncePerEpoch) {
  gpubench::TempDir tmp("dl-order");
  for (dl::Format f : {dl::Format::raw, dl::Format::tfrecord, dl::Format::wds, dl::Format::csv}) {
    const auto d = dl::ensure_dataset(tmp.path(), spec_of(f, 203, 50));
    dl::DatasetReader reader(d, dl::ReadPath::pread);
    for (dl::Order o : {dl::Order::shuffled, dl::Order::shard_shuffled}) {
      dl::PipelineConfig c;
      c.workers = 3;
      c.batch_size = 16;
      c.order = o;
      c.order_seed = 5;
      c.shuffle_buffer = 8;
      dl::Pipeline p(reader, c);
      for (int epoch = 0; epoch < 2; ++epoch) {
        dl::VerifySink v(d.spec);
        const auto r = p.run(&v);
        EXPECT_EQ(r.samples, 203u);
        EXPECT_EQ(v.samples_checked(), 203u);
        EXPECT_EQ(v.duplicates(), 0u);
        EXPECT_EQ(v.missing(), 0u);
        EXPECT_EQ(v.mismatches(), 0u)
            << to_string(f) << " " << to_string(o) << ": " << v.first_mismatch();
      }
      EXPECT_EQ(p.epoch(), 2u);
    }
  }
}

TEST(DataloaderOrder, VerifySinkCatchesAShuffledDuplicate) {
  const auto s = spec_of(dl::Format::raw, 3, 3);
  std::vector<std::uint8_t> pixels(2 * s.record_bytes);
  std::vector<std::uint32_t> labels(2);
  const std::uint64_t indices[2] = {2, 2};
  for (int i = 0; i < 2; ++i) {
    dl::fill_sample_pixels(s.seed, 2,
                           std::span(pixels).subspan(i * s.record_bytes, s.record_bytes));
    labels[static_cast<std::size_t>(i)] = dl::sample_label(s.seed, 2);
  }
  dl::Batch b{0, 0, 2, labels.data(), pixels.data(), 0, indices};
  dl::VerifySink v(s);
  v.begin(b);
  EXPECT_EQ(v.mismatches(), 0u);  // right values, checked against sample 2, not samples 0 and 1
  EXPECT_EQ(v.duplicates(), 1u);
  EXPECT_EQ(v.missing(), 2u);
}

TEST(DataloaderOrder, NamesParse) {
  EXPECT_EQ(dl::order_from_string("shard_shuffled"), dl::Order::shard_shuffled);
  EXPECT_THROW(dl::order_from_string("random"), gpubench::Error);
}

// --- TFRecord and tf.train.Example -----------------------------------------------------------

TEST(DataloaderTfRecord, MaskedCrcKnownValues) {
  // CRC-32C check value and RFC 3720 (iSCSI) B.4 vectors; masked per TFRecord's
  // ((crc >> 15) | (crc << 17)) + 0xa282ead8, computed by hand from the formula.
  const char* check = "123456789";
  EXPECT_EQ(dl::crc32c(check, 9), 0xe3069283u);
  EXPECT_EQ(dl::mask_crc(0xe3069283u), 0xc78ab0e5u);
  const std::vector<std::uint8_t> zeros(32, 0);
  const std::vector<std::uint8_t> ones(32, 0xff);
  std::vector<std::uint8_t> ascending(32);
  std::iota(ascending.begin(), ascending.end(), 0);
  EXPECT_EQ(dl::crc32c(zeros.data(), 32), 0x8a9136aau);
  EXPECT_EQ(dl::crc32c(ones.data(), 32), 0x62a8ab43u);
  EXPECT_EQ(dl::crc32c(ascending.data(), 32), 0x46dd794eu);
}

TEST(DataloaderTfRecord, ExampleEncodesAsTheProtobufSpecSays) {
  // Example{features{feature{"image": bytes_list{[01 02 03]}}, feature{"label":
  // int64_list{[7]}}}}, byte by byte from the wire format (tag = field << 3 | wire type).
  const std::vector<std::uint8_t> expected = {
      0x0a, 0x22,                                            // Example.features, 34 bytes
      0x0a, 0x10,                                            // feature map entry, 16 bytes
      0x0a, 0x05, 'i',  'm',  'a',  'g',  'e',               // key
      0x12, 0x07, 0x0a, 0x05, 0x0a, 0x03, 0x01, 0x02, 0x03,  // Feature.bytes_list.value
      0x0a, 0x0e,                                            // feature map entry, 14 bytes
      0x0a, 0x05, 'l',  'a',  'b',  'e',  'l',               // key
      0x12, 0x05, 0x1a, 0x03, 0x0a, 0x01, 0x07};             // Feature.int64_list, packed [7]
  std::string out;
  const std::uint8_t pixels[3] = {1, 2, 3};
  dl::append_example(out, "image", pixels, "label", 7);
  EXPECT_EQ(std::vector<std::uint8_t>(out.begin(), out.end()), expected);
  const auto features = dl::parse_example(out);
  ASSERT_EQ(features.size(), 2u);
  EXPECT_EQ(features[0].key, "image");
  ASSERT_EQ(features[0].bytes.size(), 1u);
  EXPECT_EQ(features[0].bytes[0], std::string_view("\x01\x02\x03", 3));
  EXPECT_EQ(features[1].key, "label");
  EXPECT_EQ(features[1].int64s, std::vector<std::int64_t>{7});
  // Multi-byte varints (300 = ac 02) and a negative int64 (ten bytes) survive the round trip.
  for (std::int64_t v : {std::int64_t{300}, std::int64_t{-1}}) {
    std::string e;
    dl::append_example(e, "image", pixels, "label", v);
    EXPECT_EQ(dl::parse_example(e)[1].int64s, std::vector<std::int64_t>{v});
  }
  // Unpacked int64 values, a float_list and an unknown field are accepted as protobuf requires.
  const std::string other(
      "\x0a\x19"                                               // Example.features
      "\x0a\x0c\x0a\x01x\x12\x07\x12\x05\x0d\x00\x00\x80\x3f"  // "x": [1.0f]
      "\x0a\x09\x0a\x01y\x12\x04\x1a\x02\x08\x05"              // "y": [5] unpacked
      "\x18\x01",                                              // unknown field 3
      29);
  const auto parsed = dl::parse_example(other);
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0].kind, dl::ExampleFeature::Kind::float_list);
  EXPECT_EQ(parsed[0].floats, std::vector<float>{1.0f});
  EXPECT_EQ(parsed[1].int64s, std::vector<std::int64_t>{5});
  EXPECT_THROW(dl::parse_example(other.substr(0, 10)), dl::ProtoError);  // truncated
}

TEST(DataloaderTfRecord, FileBytesAreWhatTheSpecSays) {
  // A one-record TFRecord of the payload above, written through the dataset writer's framing:
  // u64 length 36 | masked crc32c(length) 0x4d802b42 | payload | masked crc32c(payload)
  // 0x8042c794 (little-endian), from the TFRecord spec and an independent bitwise CRC-32C.
  gpubench::TempDir tmp("dl-tfr-bytes");
  dl::DatasetSpec s = spec_of(dl::Format::tfrecord, 1, 1);
  s.record_bytes = 3;
  const auto d = dl::generate_dataset(tmp.path() / "d", s);
  const std::string file = gpubench::read_file(d.file("shard-00000.tfrecord"));
  std::string payload;
  std::vector<std::uint8_t> pixels(3);
  dl::fill_sample_pixels(s.seed, 0, pixels);
  dl::append_example(payload, "image", pixels, "label", dl::sample_label(s.seed, 0));
  ASSERT_EQ(file.size(), 16 + payload.size());
  EXPECT_EQ(file.substr(12, payload.size()), payload);
  std::uint64_t length = 0;
  std::memcpy(&length, file.data(), 8);
  EXPECT_EQ(length, payload.size());
  // The known record: same framing of the known payload.
  const std::uint8_t known_payload_len[8] = {36, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(dl::mask_crc(dl::crc32c(known_payload_len, 8)), 0x4d802b42u);
  std::string known;
  const std::uint8_t three[3] = {1, 2, 3};
  dl::append_example(known, "image", three, "label", 7);
  EXPECT_EQ(dl::mask_crc(dl::crc32c(known.data(), known.size())), 0x8042c794u);
}

TEST(DataloaderTfRecord, RoundTripAndCorruptionNameFileAndOffset) {
  gpubench::TempDir tmp("dl-tfr");
  const auto d = dl::ensure_dataset(tmp.path(), spec_of(dl::Format::tfrecord));
  for (dl::ReadPath p : {dl::ReadPath::pread, dl::ReadPath::mmap}) EXPECT_EQ(read_all(d, p), "");
  const fs::path shard = d.file("shard-00001.tfrecord");
  // Record offsets: every record has the same length here (labels < 128 are 1-byte varints,
  // 128..999 two bytes), so find record 3's offset by walking the lengths.
  const std::string bytes = gpubench::read_file(shard);
  std::vector<std::uint64_t> at = {0};
  while (at.back() < bytes.size()) {
    std::uint64_t length = 0;
    std::memcpy(&length, bytes.data() + at.back(), 8);
    at.push_back(at.back() + 16 + length);
  }
  const std::string backup = bytes;
  struct Case {
    std::uint64_t offset;
    const char* why;
    std::uint64_t reported;
  };
  for (const Case& c : {Case{at[3] + 2, "length checksum", at[3]},          // length
                        Case{at[3] + 12 + 500, "payload checksum", at[3]},  // a pixel
                        Case{at[3] + 8, "length checksum", at[3]}}) {       // the CRC itself
    gpubench::write_file_atomic(shard, backup);
    poke(shard, c.offset, '\x7f');
    for (dl::ReadPath p : {dl::ReadPath::pread, dl::ReadPath::mmap}) {
      const std::string e = read_all(d, p);
      EXPECT_THAT(e, HasSubstr("shard-00001.tfrecord")) << c.why;
      EXPECT_THAT(e, HasSubstr("byte offset " + std::to_string(c.reported))) << c.why << ": " << e;
      EXPECT_THAT(e, HasSubstr(c.why));
    }
  }
  // A payload whose CRC matches but whose Example is damaged: the offset is inside the payload.
  gpubench::write_file_atomic(shard, backup);
  std::string damaged = backup;
  damaged[at[3] + 12] = '\x0f';  // Example's first tag: field 1 with wire type 7
  std::uint64_t length = 0;
  std::memcpy(&length, damaged.data() + at[3], 8);
  const std::uint32_t crc = dl::mask_crc(dl::crc32c(damaged.data() + at[3] + 12, length));
  std::memcpy(damaged.data() + at[3] + 12 + length, &crc, 4);
  gpubench::write_file_atomic(shard, damaged);
  EXPECT_THAT(read_all(d, dl::ReadPath::pread), HasSubstr("tf.train.Example"));
  EXPECT_THAT(read_all(d, dl::ReadPath::pread),
              HasSubstr("byte offset " + std::to_string(at[3] + 12)));
}

// --- WebDataset tar --------------------------------------------------------------------------

TEST(DataloaderWds, HeaderIsWhatPythonsTarfileWrites) {
  // tarfile.TarInfo("000000000.cls", size=3, mtime=0, mode=0o644, uid=gid=0, uname=gname="")
  // .tobuf(format=USTAR_FORMAT): these fields, NUL everywhere else, checksum 0o7400.
  std::string expected(512, '\0');
  auto put = [&](std::size_t at, std::string_view v) { expected.replace(at, v.size(), v); };
  put(0, "000000000.cls");
  put(100, std::string_view("0000644\0"
                            "0000000\0"
                            "0000000\0",
                            24));
  put(124, std::string_view("00000000003\0"
                            "00000000000\0",
                            24));
  put(148, std::string_view("007400\0 0", 9));
  put(257, std::string_view("ustar\0"
                            "00",
                            8));
  std::string out;
  dl::append_tar_header(out, "000000000.cls", 3);
  EXPECT_EQ(out, expected);
  const auto m = dl::parse_tar_header(out.data());
  EXPECT_EQ(m.name, "000000000.cls");
  EXPECT_EQ(m.size, 3u);
  EXPECT_FALSE(m.end_of_archive);
  EXPECT_TRUE(dl::parse_tar_header(std::string(512, '\0').data()).end_of_archive);
  out[5] ^= 1;  // any changed byte breaks the checksum
  EXPECT_THROW(dl::parse_tar_header(out.data()), std::runtime_error);
}

TEST(DataloaderWds, RoundTripAndCorruptionNameFileAndOffset) {
  gpubench::TempDir tmp("dl-wds");
  const auto d = dl::ensure_dataset(tmp.path(), spec_of(dl::Format::wds));
  for (dl::ReadPath p : {dl::ReadPath::pread, dl::ReadPath::mmap}) EXPECT_EQ(read_all(d, p), "");
  const fs::path shard = d.file("shard-00001.tar");
  const std::string backup = gpubench::read_file(shard);
  // Sample 3 of the shard: 3 header blocks + the padded 1001 pixel bytes (1024) per sample.
  const std::uint64_t sample3 = 3 * (3 * 512 + 1024);
  struct Case {
    std::uint64_t offset;
    const char* why;
    std::uint64_t reported;
  };
  for (const Case& c : {Case{sample3 + 3, "checksum", sample3},                  // .cls name
                        Case{sample3 + 1024 + 130, "checksum", sample3 + 1024},  // .bin size
                        Case{sample3 + 512, "not a decimal", sample3 + 512}}) {  // label text
    gpubench::write_file_atomic(shard, backup);
    poke(shard, c.offset, 'x');
    for (dl::ReadPath p : {dl::ReadPath::pread, dl::ReadPath::mmap}) {
      const std::string e = read_all(d, p);
      EXPECT_THAT(e, HasSubstr("shard-00001.tar")) << c.why;
      EXPECT_THAT(e, HasSubstr("byte offset " + std::to_string(c.reported))) << c.why << ": " << e;
      EXPECT_THAT(e, HasSubstr(c.why));
    }
  }
  // A pixel changed: tar has no data checksum, so the generator check is what catches it.
  gpubench::write_file_atomic(shard, backup);
  poke(shard, sample3 + 1536 + 10, 'x');
  EXPECT_THAT(read_all(d, dl::ReadPath::pread), HasSubstr("sample 13 differs"));
  // Truncated: the end-of-archive blocks are missing.
  gpubench::write_file_atomic(shard, backup.substr(0, backup.size() - 1024));
  EXPECT_THAT(read_all(d, dl::ReadPath::pread), HasSubstr("end-of-archive"));
}
