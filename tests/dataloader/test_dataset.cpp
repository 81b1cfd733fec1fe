// Generator, on-disk formats, cache and bad input. Each test writes into its own TempDir.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "suites/dataloader/dataset.hpp"
#include "suites/dataloader/dataset_reader.hpp"
#include "suites/dataloader/splitmix.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace dl = gpubench::dataloader;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

dl::DatasetSpec tiny(dl::Format f) {
  dl::DatasetSpec s;
  s.format = f;
  s.seed = 5;
  s.record_bytes = 1001;  // not a multiple of 8: exercises the generator's tail
  s.samples = 23;
  s.samples_per_shard = 10;  // 3 shards, the last one short
  return s;
}

// Reads every sample through `path` and compares with the generator.
void expect_round_trip(const dl::Dataset& d, dl::ReadPath path) {
  dl::DatasetReader reader(d, path);
  auto bytes = dl::make_byte_reader(path);
  std::vector<char> scratch;
  const auto& s = d.spec;
  std::vector<std::uint32_t> labels(s.samples);
  std::vector<std::uint8_t> pixels(s.samples * s.record_bytes);
  // Ranges that start mid-shard and cross shard boundaries.
  reader.read_samples(0, 7, labels.data(), pixels.data(), *bytes, scratch);
  reader.read_samples(7, 16, labels.data() + 7, pixels.data() + 7 * s.record_bytes, *bytes,
                      scratch);
  std::vector<std::uint8_t> expected(s.record_bytes);
  for (std::uint64_t i = 0; i < s.samples; ++i) {
    dl::fill_sample_pixels(s.seed, i, expected);
    ASSERT_EQ(labels[i], dl::sample_label(s.seed, i)) << to_string(s.format) << " sample " << i;
    ASSERT_EQ(0, std::memcmp(pixels.data() + i * s.record_bytes, expected.data(), s.record_bytes))
        << to_string(s.format) << "/" << to_string(path) << " sample " << i;
  }
}

std::string error_text(const gpubench::Error& e) {
  return gpubench::format_error_message(e.what_failed(), e.why(), e.fix());
}

}  // namespace

TEST(DataloaderGenerator, DeterministicAndSeeded) {
  std::vector<std::uint8_t> a(1001);
  std::vector<std::uint8_t> b(1001);
  dl::fill_sample_pixels(1, 9, a);
  dl::fill_sample_pixels(1, 9, b);
  EXPECT_EQ(a, b);
  dl::fill_sample_pixels(2, 9, b);
  EXPECT_NE(a, b);
  dl::fill_sample_pixels(1, 10, b);
  EXPECT_NE(a, b);
  EXPECT_EQ(dl::sample_label(1, 9), dl::sample_label(1, 9));
  // Labels spread over 0..999 (not all equal) and pixel values over the whole byte range.
  std::set<std::uint32_t> labels;
  for (int i = 0; i < 100; ++i) labels.insert(dl::sample_label(3, static_cast<std::uint64_t>(i)));
  EXPECT_GT(labels.size(), 80u);
  EXPECT_LT(*labels.rbegin(), 1000u);
  std::vector<std::uint8_t> big(1 << 16);
  dl::fill_sample_pixels(3, 0, big);
  std::set<std::uint8_t> values(big.begin(), big.end());
  EXPECT_EQ(values.size(), 256u);
}

TEST(DataloaderGenerator, SameFilesTwice) {
  gpubench::TempDir tmp("dl-gen");
  for (dl::Format f : dl::all_formats()) {
    if (f == dl::Format::hdf5)
      continue;  // HDF5 files carry creation metadata; values are checked below
    const auto a = dl::generate_dataset(tmp.path() / "a", tiny(f));
    const auto b = dl::generate_dataset(tmp.path() / "b", tiny(f));
    ASSERT_EQ(a.files.size(), b.files.size());
    for (std::size_t i = 0; i < a.files.size(); ++i) {
      EXPECT_EQ(a.files[i].crc32c, b.files[i].crc32c) << a.files[i].name;
      EXPECT_EQ(a.files[i].bytes, b.files[i].bytes);
    }
    fs::remove_all(tmp.path() / "a");
    fs::remove_all(tmp.path() / "b");
  }
}

TEST(DataloaderFormats, EveryFormatAndReadPathRoundTrips) {
  gpubench::TempDir tmp("dl-fmt");
  for (dl::Format f : dl::all_formats()) {
    const auto d = dl::ensure_dataset(tmp.path(), tiny(f));
    EXPECT_NO_THROW(dl::verify_dataset_files(d));
    EXPECT_LE(d.total_bytes(), d.spec.estimated_disk_bytes()) << to_string(f);
    for (dl::ReadPath p : {dl::ReadPath::pread, dl::ReadPath::mmap, dl::ReadPath::uring}) {
      if (p == dl::ReadPath::uring && !dl::uring_unavailable_reason().empty()) continue;
      expect_round_trip(d, p);
    }
  }
}

TEST(DataloaderCache, ReusedWhenSameRegeneratedWhenChangedOrDamaged) {
  gpubench::TempDir tmp("dl-cache");
  bool regenerated = false;
  auto spec = tiny(dl::Format::raw);
  dl::ensure_dataset(tmp.path(), spec, &regenerated);
  EXPECT_TRUE(regenerated);
  dl::ensure_dataset(tmp.path(), spec, &regenerated);
  EXPECT_FALSE(regenerated);
  spec.seed = 6;  // a changed parameter: a different dataset
  dl::ensure_dataset(tmp.path(), spec, &regenerated);
  EXPECT_TRUE(regenerated);
  // A file of the wrong size (truncated by hand) makes the cached copy invalid.
  const auto d = dl::ensure_dataset(tmp.path(), spec, &regenerated);
  fs::resize_file(d.file(d.files[0].name), 100);
  dl::ensure_dataset(tmp.path(), spec, &regenerated);
  EXPECT_TRUE(regenerated);
  // A manifest whose parameters disagree with the directory is not trusted.
  const fs::path manifest = d.dir / "manifest.json";
  std::string text = gpubench::read_file(manifest);
  text.replace(text.find("\"seed\": 6"), 9, "\"seed\": 7");
  gpubench::write_file_atomic(manifest, text);
  dl::ensure_dataset(tmp.path(), spec, &regenerated);
  EXPECT_TRUE(regenerated);
}

TEST(DataloaderCorruption, RecordChecksumNamesFileAndOffset) {
  gpubench::TempDir tmp("dl-corrupt");
  const auto d = dl::ensure_dataset(tmp.path(), tiny(dl::Format::record));
  const fs::path shard = d.file("shard-00001.rec");
  const std::uint64_t stride = dl::record_stride(1001);
  {
    std::fstream f(shard, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(3 * stride + 12 + 500));  // a pixel of record 3 of shard 1
    f.put('\x7f');
    f.put('\x01');
  }
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  auto bytes = dl::make_byte_reader(dl::ReadPath::pread);
  std::vector<char> scratch;
  std::vector<std::uint32_t> labels(23);
  std::vector<std::uint8_t> pixels(23 * 1001);
  EXPECT_NO_THROW(reader.read_samples(0, 13, labels.data(), pixels.data(), *bytes, scratch));
  try {
    reader.read_samples(0, 23, labels.data(), pixels.data(), *bytes, scratch);
    FAIL() << "corruption not detected";
  } catch (const gpubench::Error& e) {
    EXPECT_THAT(error_text(e), HasSubstr("shard-00001.rec"));
    EXPECT_THAT(error_text(e), HasSubstr("byte offset " + std::to_string(3 * stride)));
    EXPECT_THAT(error_text(e), HasSubstr("checksum"));
  }
}

TEST(DataloaderCorruption, TruncatedShardsAreReported) {
  gpubench::TempDir tmp("dl-trunc");
  for (dl::Format f : {dl::Format::raw, dl::Format::record, dl::Format::npy}) {
    const auto d = dl::ensure_dataset(tmp.path(), tiny(f));
    const fs::path shard = d.file(dl::shard_file_names(f, 2)[0]);
    fs::resize_file(shard, fs::file_size(shard) - 10);
    dl::DatasetReader reader(d, dl::ReadPath::pread);
    auto bytes = dl::make_byte_reader(dl::ReadPath::pread);
    std::vector<char> scratch;
    std::vector<std::uint32_t> labels(3);
    std::vector<std::uint8_t> pixels(3 * 1001);
    try {
      reader.read_samples(20, 3, labels.data(), pixels.data(), *bytes, scratch);
      FAIL() << to_string(f) << ": truncation not detected";
    } catch (const gpubench::Error& e) {
      EXPECT_THAT(error_text(e), HasSubstr(shard.filename().string())) << to_string(f);
      EXPECT_THAT(error_text(e), HasSubstr("truncated")) << to_string(f);
    }
  }
  // Text formats: the index no longer matches the file size, caught when opening.
  for (dl::Format f : {dl::Format::csv, dl::Format::jsonl}) {
    const auto d = dl::ensure_dataset(tmp.path(), tiny(f));
    const fs::path shard = d.file(dl::shard_file_names(f, 1)[0]);
    const auto size = fs::file_size(shard);
    fs::resize_file(shard, size - 10);
    try {
      dl::DatasetReader reader(d, dl::ReadPath::pread);
      FAIL() << to_string(f) << ": truncation not detected";
    } catch (const gpubench::Error& e) {
      EXPECT_THAT(error_text(e), HasSubstr(shard.filename().string()));
      EXPECT_THAT(error_text(e),
                  HasSubstr("byte offset " + std::to_string(size - 10)));  // where it now ends
    }
  }
}

TEST(DataloaderCorruption, CsvBadValueReportsOffset) {
  gpubench::TempDir tmp("dl-csvbad");
  const auto d = dl::ensure_dataset(tmp.path(), tiny(dl::Format::csv));
  const fs::path shard = d.file("shard-00000.csv");
  std::string text = gpubench::read_file(shard);
  const std::size_t second_line = text.find('\n') + 1;
  const std::size_t comma = text.find(',', second_line);
  text[comma + 1] = 'x';  // first pixel of sample 1
  {
    std::ofstream f(shard, std::ios::binary | std::ios::trunc);
    f << text;
  }
  dl::DatasetReader reader(d, dl::ReadPath::mmap);
  auto bytes = dl::make_byte_reader(dl::ReadPath::mmap);
  std::vector<char> scratch;
  std::vector<std::uint32_t> labels(3);
  std::vector<std::uint8_t> pixels(3 * 1001);
  try {
    reader.read_samples(0, 3, labels.data(), pixels.data(), *bytes, scratch);
    FAIL() << "bad CSV value not detected";
  } catch (const gpubench::Error& e) {
    EXPECT_THAT(error_text(e), HasSubstr("byte offset " + std::to_string(comma + 1)));
    EXPECT_THAT(error_text(e), HasSubstr("expected a pixel value"));
  }
}

TEST(DataloaderBadInput, MissingReadOnlyAndFullDataDir) {
  gpubench::TempDir tmp("dl-bad");
  try {
    dl::check_data_dir(tmp.path() / "missing");
    FAIL();
  } catch (const gpubench::Error& e) {
    EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input);
    EXPECT_THAT(error_text(e), HasSubstr("does not exist"));
  }
  // /proc/self is a directory nobody, not even root, can create files in.
  try {
    dl::check_data_dir("/proc/self");
    FAIL();
  } catch (const gpubench::Error& e) {
    EXPECT_THAT(error_text(e), HasSubstr("not writable"));
  }
  try {
    dl::check_free_space(tmp.path(), 3ull << 30, 1ull << 30);
    FAIL();
  } catch (const gpubench::Error& e) {
    EXPECT_THAT(error_text(e), HasSubstr("3072.0 MiB"));
    EXPECT_THAT(error_text(e), HasSubstr("1024.0 MiB free"));
  }
  // A dataset larger than the real free space is refused before anything is written.
  auto spec = tiny(dl::Format::raw);
  spec.record_bytes = 1u << 30;
  spec.samples = 1u << 20;  // 1 PiB
  spec.samples_per_shard = 1;
  EXPECT_THROW(dl::ensure_dataset(tmp.path(), spec), gpubench::Error);
  EXPECT_TRUE(fs::is_empty(tmp.path()));
  EXPECT_NO_THROW(dl::check_data_dir(tmp.path()));
}

// Issue 10: concurrent generation of one dataset is serialised by its lock file; exactly one
// caller writes it, the others wait and reuse it.
TEST(DataloaderCache, ConcurrentCallersGenerateOnce) {
  gpubench::TempDir tmp("dl-lock");
  const auto spec = tiny(dl::Format::record);
  constexpr int k_callers = 4;
  std::vector<std::thread> threads;
  std::atomic<int> generated{0};
  std::atomic<int> failed{0};
  for (int i = 0; i < k_callers; ++i) {
    threads.emplace_back([&] {
      try {
        bool regenerated = false;
        dl::ensure_dataset(tmp.path(), spec, &regenerated);
        if (regenerated) ++generated;
      } catch (const gpubench::Error&) {
        ++failed;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(generated.load(), 1);
  EXPECT_TRUE(fs::exists(tmp.path() / (spec.directory_name() + ".lock")));
  for (const auto& e : fs::directory_iterator(tmp.path())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

// The default data directory is the user's cache, not a shared /tmp path.
TEST(DataloaderCache, DefaultDataDirIsTheUsersCache) {
  gpubench::TempDir tmp("dl-xdg");
  const char* old_dir = std::getenv("GPUBENCH_DATA_DIR");
  const std::string saved_dir = old_dir ? old_dir : "";
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved_xdg = old_xdg ? old_xdg : "";
  ::unsetenv("GPUBENCH_DATA_DIR");
  ::setenv("XDG_CACHE_HOME", tmp.path().c_str(), 1);
  const fs::path dir = dl::resolve_data_dir();
  if (old_xdg) {
    ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
  if (old_dir) ::setenv("GPUBENCH_DATA_DIR", saved_dir.c_str(), 1);
  EXPECT_EQ(dir, tmp.path() / "gpubench");
  EXPECT_TRUE(fs::is_directory(dir));
}

// The shared generator (splitmix.hpp): the reference splitmix64's first outputs from state 0
// (Vigna's splitmix64.c), and uniform_below's range and rejection.
TEST(DataloaderSplitMix, MatchesTheReferenceAndStaysInRange) {
  std::uint64_t state = 0;
  EXPECT_EQ(dl::splitmix64(state), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(dl::splitmix64(state), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(state, 2 * dl::k_splitmix_gamma);
  std::uint64_t a = 7;
  for (std::uint64_t n : {1ull, 2ull, 3ull, 1000ull, (1ull << 63) + 1}) {
    for (int i = 0; i < 100; ++i) EXPECT_LT(dl::uniform_below(a, n), n) << n;
  }
  // A power of two never rejects: exactly one step, the low bits of the draw.
  std::uint64_t b = 11;
  std::uint64_t c = 11;
  EXPECT_EQ(dl::uniform_below(b, 1024), dl::splitmix64(c) % 1024);
  EXPECT_EQ(b, c);
}
