// The nvJPEG decode case's host side (issue 41): the ABI declared from the documentation, the
// run-time loader and its reasons, status names, batch assembly, the encoded-bytes loader,
// device layouts, and the case skipping with its reason through the real gpubench-dataloader
// binary (this machine has no GPU: the no-device reason, or with a GPU the loader's).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "suites/dataloader/dataset_reader.hpp"
#include "suites/dataloader/image_gpu.hpp"
#include "suites/dataloader/jpeg_codec.hpp"
#include "suites/dataloader/nvjpeg_abi.hpp"
#include "suites/dataloader/nvjpeg_api.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
namespace dl = gpubench::dataloader;
namespace nj = gpubench::nvjpeg_abi;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace {

// The bytes of a fake JPEG of `sample`: its length and content depend on the sample, so a
// misplaced offset or length shows.
std::vector<std::uint8_t> fake_jpeg(std::uint64_t sample) {
  std::vector<std::uint8_t> v(17 + (sample * 37) % 301);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(sample * 7 + i);
  return v;
}

// A copy of a real shared library that is not nvJPEG, under `name` in `dir`: it loads, but lacks
// the entry points.
void plant_foreign_library(const fs::path& dir, const std::string& name) {
  fs::create_directories(dir);
  for (const char* candidate :
       {"/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1",
        "/lib64/libz.so.1", "/usr/lib64/libz.so.1"}) {
    if (fs::exists(candidate)) {
      fs::copy_file(candidate, dir / name);
      return;
    }
  }
  GTEST_SKIP() << "no libz.so.1 to stand in for a foreign library";
}

}  // namespace

// nvjpeg.h: typedef struct { unsigned char* channel[NVJPEG_MAX_COMPONENT]; size_t
// pitch[NVJPEG_MAX_COMPONENT]; } nvjpegImage_t, NVJPEG_MAX_COMPONENT 4.
TEST(DataloaderNvjpegAbi, ImageStructIsFourChannelPointersThenFourPitches) {
  EXPECT_EQ(nj::k_max_component, 4);
  EXPECT_EQ(sizeof(nj::nvjpegImage_t), 64u);
  EXPECT_EQ(offsetof(nj::nvjpegImage_t, channel), 0u);
  EXPECT_EQ(offsetof(nj::nvjpegImage_t, pitch), 32u);
  nj::nvjpegImage_t image{};
  EXPECT_EQ(reinterpret_cast<char*>(&image.channel[3]) - reinterpret_cast<char*>(&image), 24);
  EXPECT_EQ(reinterpret_cast<char*>(&image.pitch[3]) - reinterpret_cast<char*>(&image), 56);
}

// The enum values the case passes or tests, as the documentation lists them.
TEST(DataloaderNvjpegAbi, EnumValuesMatchTheDocumentation) {
  EXPECT_EQ(nj::NVJPEG_OUTPUT_RGBI, 5);
  EXPECT_EQ(nj::NVJPEG_OUTPUT_RGB, 3);
  EXPECT_EQ(nj::NVJPEG_CSS_420, 2);
  EXPECT_EQ(nj::NVJPEG_CSS_GRAY, 6);
  EXPECT_EQ(nj::NVJPEG_CSS_UNKNOWN, -1);
  EXPECT_EQ(nj::NVJPEG_STATUS_BAD_JPEG, 3);
  EXPECT_EQ(nj::NVJPEG_STATUS_INCOMPLETE_BITSTREAM, 10);
}

TEST(DataloaderNvjpegStatus, EveryDocumentedCodeHasItsOwnName) {
  const std::vector<std::string> expected = {"NVJPEG_STATUS_SUCCESS",
                                             "NVJPEG_STATUS_NOT_INITIALIZED",
                                             "NVJPEG_STATUS_INVALID_PARAMETER",
                                             "NVJPEG_STATUS_BAD_JPEG",
                                             "NVJPEG_STATUS_JPEG_NOT_SUPPORTED",
                                             "NVJPEG_STATUS_ALLOCATOR_FAILURE",
                                             "NVJPEG_STATUS_EXECUTION_FAILED",
                                             "NVJPEG_STATUS_ARCH_MISMATCH",
                                             "NVJPEG_STATUS_INTERNAL_ERROR",
                                             "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED",
                                             "NVJPEG_STATUS_INCOMPLETE_BITSTREAM"};
  for (int s = 0; s <= 10; ++s) {
    EXPECT_EQ(dl::nvjpeg_status_name(s), expected[static_cast<std::size_t>(s)]) << s;
    // The text names the code and says what it means.
    const std::string text = dl::nvjpeg_status_text(s);
    EXPECT_THAT(text, StartsWith(expected[static_cast<std::size_t>(s)] + " ("));
    EXPECT_GT(text.size(), expected[static_cast<std::size_t>(s)].size() + 10) << text;
  }
  EXPECT_EQ(dl::nvjpeg_status_name(nj::NVJPEG_STATUS_ARCH_MISMATCH), "NVJPEG_STATUS_ARCH_MISMATCH");
  EXPECT_EQ(dl::nvjpeg_status_name(11), "nvjpegStatus_t 11");
  EXPECT_EQ(dl::nvjpeg_status_name(-3), "nvjpegStatus_t -3");
  EXPECT_THAT(dl::nvjpeg_status_text(42), HasSubstr("nvjpegStatus_t 42 ("));
}

TEST(DataloaderNvjpegLoader, SearchesSoname13Then12InTheToolkitAndPipLayouts) {
  const gpubench::LibrarySpec spec = dl::nvjpeg_library_spec();
  EXPECT_EQ(spec.sonames, (std::vector<std::string>{"libnvjpeg.so.13", "libnvjpeg.so.12"}));
  EXPECT_EQ(spec.pip_dirs, (std::vector<std::string>{"nvidia/cu13/lib", "nvidia/nvjpeg/lib"}));
  EXPECT_TRUE(spec.env_dirs);
  EXPECT_NE(std::find(spec.system_dirs.begin(), spec.system_dirs.end(), "/usr/local/cuda/lib64"),
            spec.system_dirs.end());
}

// GPUBENCH_CUDA_LIBS naming an empty directory with GPUBENCH_CUDA_LIBS_ONLY=1: the reason the
// case skips with names the soname and where it looked.
TEST(DataloaderNvjpegLoader, AbsentLibraryGivesTheSonameAndWhereItLooked) {
  gpubench::TempDir tmp("nvjpeg-none");
  gpubench::SearchEnvironment env;
  env.dirs = tmp.path().string();
  env.dirs_only = true;
  const dl::NvjpegLoad load = dl::load_nvjpeg(env);
  EXPECT_FALSE(load.ok);
  EXPECT_THAT(load.reason, StartsWith("libnvjpeg.so.13 not found (searched: "));
  EXPECT_THAT(load.reason, HasSubstr(tmp.path().string() + " (GPUBENCH_CUDA_LIBS)"));
}

// A library under the soname that is not nvJPEG (found in the nvidia-nvjpeg-cu12 wheel's layout
// under a GPUBENCH_CUDA_LIBS directory, as libnvjpeg.so.12): refused, naming the missing symbol.
TEST(DataloaderNvjpegLoader, LibraryWithoutTheEntryPointsIsRefusedNamingTheSymbol) {
  gpubench::TempDir tmp("nvjpeg-foreign");
  plant_foreign_library(tmp.path() / "nvidia" / "nvjpeg" / "lib", "libnvjpeg.so.12");
  if (testing::Test::IsSkipped()) return;
  gpubench::SearchEnvironment env;
  env.dirs = tmp.path().string();
  env.dirs_only = true;
  const dl::NvjpegLoad load = dl::load_nvjpeg(env);
  EXPECT_FALSE(load.ok);
  EXPECT_THAT(load.reason, HasSubstr("nvidia/nvjpeg/lib/libnvjpeg.so.12 has no symbol "
                                     "nvjpegCreateSimple"));
}

TEST(DataloaderEncodedBatch, ImagesOfDifferentSizesLieBackToBack) {
  dl::EncodedBatch b;
  std::vector<std::vector<std::uint8_t>> images;
  std::size_t expected_offset = 0;
  for (std::uint64_t s : {9u, 2u, 40u, 7u}) {
    images.push_back(fake_jpeg(s));
    b.add(s, static_cast<std::uint32_t>(s * 3), images.back());
  }
  ASSERT_EQ(b.count(), 4u);
  const unsigned char* const* data = b.data_pointers();
  for (std::size_t i = 0; i < b.count(); ++i) {
    EXPECT_EQ(b.offset(i), expected_offset) << i;
    EXPECT_EQ(b.length(i), images[i].size()) << i;
    EXPECT_EQ(b.lengths()[i], images[i].size()) << i;
    EXPECT_EQ(b.label(i), b.sample(i) * 3);
    // The pointer nvjpegDecodeBatched gets is the image's first byte, and the bytes are its own.
    EXPECT_EQ(data[i], b.image(i).data());
    EXPECT_TRUE(std::equal(images[i].begin(), images[i].end(), data[i])) << i;
    expected_offset += images[i].size();
  }
  EXPECT_EQ(b.total_bytes(), expected_offset);
  EXPECT_EQ(b.sample(2), 40u);
  // Reused for the next batch: nothing of the old one is left.
  b.clear();
  EXPECT_EQ(b.count(), 0u);
  EXPECT_EQ(b.total_bytes(), 0u);
  const auto one = fake_jpeg(5);
  b.add(5, 1, one);
  EXPECT_EQ(b.offset(0), 0u);
  EXPECT_TRUE(std::equal(one.begin(), one.end(), b.data_pointers()[0]));
}

// Every position of the epoch's order arrives once, in its batch (batch k holds positions
// [k * batch, ...), the last one short), with its own bytes.
TEST(DataloaderEncodedLoader, DeliversEverySampleOnceInItsBatchWithItsBytes) {
  std::vector<std::uint64_t> order(23);
  std::iota(order.begin(), order.end(), 0);
  std::reverse(order.begin(), order.begin() + 11);  // not the identity
  for (int workers : {1, 3}) {
    std::mutex mu;
    std::set<int> worker_ids;
    dl::EncodedLoader loader(workers, 5, [&](int w, std::uint64_t s, std::vector<std::uint8_t>& j) {
      {
        std::lock_guard lock(mu);
        worker_ids.insert(w);
      }
      j = fake_jpeg(s);
      return static_cast<std::uint32_t>(s + 1000);
    });
    std::vector<int> seen(order.size(), 0);
    std::set<std::uint64_t> batches;
    const double wall = loader.run(order, [&](const dl::EncodedBatch& b) {
      batches.insert(b.index);
      EXPECT_EQ(b.count(), b.index == 4 ? 3u : 5u) << "batch " << b.index;
      for (std::size_t i = 0; i < b.count(); ++i) {
        const std::uint64_t s = b.sample(i);
        EXPECT_EQ(s, order[b.index * 5 + i]);
        EXPECT_EQ(b.label(i), s + 1000);
        const auto expected = fake_jpeg(s);
        ASSERT_EQ(b.length(i), expected.size());
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), b.data_pointers()[i]));
        ++seen[s];
      }
    });
    EXPECT_GE(wall, 0);
    EXPECT_EQ(batches, (std::set<std::uint64_t>{0, 1, 2, 3, 4}));
    for (std::size_t s = 0; s < seen.size(); ++s) EXPECT_EQ(seen[s], 1) << "sample " << s;
    for (int w : worker_ids) EXPECT_TRUE(w >= 0 && w < workers) << w;
    // Slots are reused across epochs: a second epoch delivers the same again.
    int second = 0;
    loader.run(order, [&](const dl::EncodedBatch& b) { second += static_cast<int>(b.count()); });
    EXPECT_EQ(second, 23);
  }
}

TEST(DataloaderEncodedLoader, AReadErrorOrAConsumerErrorStopsTheEpochAndIsRethrown) {
  std::vector<std::uint64_t> order(40);
  std::iota(order.begin(), order.end(), 0);
  dl::EncodedLoader failing(2, 4, [](int, std::uint64_t s, std::vector<std::uint8_t>& j) {
    if (s == 13) throw std::runtime_error("corrupt record at sample 13");
    j = fake_jpeg(s);
    return 0u;
  });
  EXPECT_THROW(
      {
        try {
          failing.run(order, [](const dl::EncodedBatch&) {});
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "corrupt record at sample 13");
          throw;
        }
      },
      std::runtime_error);
  dl::EncodedLoader reading(2, 4, [](int, std::uint64_t s, std::vector<std::uint8_t>& j) {
    j = fake_jpeg(s);
    return 0u;
  });
  int consumed = 0;
  EXPECT_THROW(reading.run(order,
                           [&](const dl::EncodedBatch&) {
                             if (++consumed == 2) throw std::logic_error("decode failed");
                           }),
               std::logic_error);
  EXPECT_EQ(consumed, 2);
  EXPECT_THROW(dl::EncodedLoader(0, 4, {}), gpubench::Error);
  EXPECT_THROW(dl::EncodedLoader(1, 0, {}), gpubench::Error);
}

// The case's host half on a real JPEG dataset (wds shards, shuffled order, 2 workers, one
// ByteReader each, as run_nvjpeg_case wires them): every image arrives once with its label, and
// its bytes decode (on the CPU here; nvJPEG gets the same bytes) to the generator's image within
// the dataset's tolerance; the decoded batch's pitched layout unpitches back to the same pixels.
TEST(DataloaderEncodedLoader, FeedsEveryImageOfAShuffledJpegDatasetOnce) {
  std::string why;
  const dl::JpegCodec* codec = dl::JpegCodec::get(&why);
  if (codec == nullptr) GTEST_SKIP() << why;
  gpubench::TempDir tmp("nvjpeg-wds");
  dl::DatasetSpec spec;
  spec.format = dl::Format::wds;
  spec.image_width = 96;
  spec.image_height = 70;
  spec.samples = 11;
  spec.samples_per_shard = 4;
  spec.seed = 7;
  const dl::Dataset d = dl::ensure_dataset(tmp.path(), spec);
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  std::vector<std::unique_ptr<dl::ByteReader>> byte_readers;
  std::vector<std::vector<char>> scratch(2);
  for (int w = 0; w < 2; ++w) byte_readers.push_back(dl::make_byte_reader(dl::ReadPath::pread));
  dl::EncodedLoader loader(2, 4, [&](int w, std::uint64_t s, std::vector<std::uint8_t>& jpeg) {
    const auto i = static_cast<std::size_t>(w);
    return reader.read_encoded(s, jpeg, *byte_readers[i], scratch[i]);
  });
  const std::vector<std::uint64_t> order = dl::epoch_order(spec, dl::Order::shuffled, 42, 1);
  std::vector<int> seen(spec.samples, 0);
  dl::DecodedImage decoded;
  dl::DecodedImage expected;
  loader.run(order, [&](const dl::EncodedBatch& b) {
    std::vector<int> widths;
    std::vector<int> heights;
    std::vector<dl::DecodedImage> images(b.count());
    for (std::size_t i = 0; i < b.count(); ++i) {
      const std::uint64_t s = b.sample(i);
      ++seen[s];
      EXPECT_EQ(b.label(i), dl::sample_label(spec.seed, s));
      codec->decode_rgb(b.image(i), images[i]);
      expected.width = 96;
      expected.height = 70;
      expected.rgb.resize(96 * 70 * 3);
      dl::fill_image_rgb(spec.seed, s, 96, 70, expected.rgb);
      EXPECT_TRUE(dl::within(dl::compare_images(images[i], expected, dl::k_decode_tolerance_q90),
                             dl::k_decode_tolerance_q90))
          << "sample " << s;
      widths.push_back(images[i].width);
      heights.push_back(images[i].height);
    }
    // What nvJPEG writes (RGBI at the layout's pitches) and what validation reads back.
    const dl::RgbBatchLayout layout = dl::layout_rgb_batch(widths, heights);
    std::vector<std::uint8_t> device(layout.total_bytes, 0xAB);
    for (std::size_t i = 0; i < b.count(); ++i) {
      for (int y = 0; y < heights[i]; ++y) {
        std::copy_n(
            images[i].rgb.data() + static_cast<std::size_t>(y) * 96 * 3, 96 * 3,
            device.data() + layout.offsets[i] + static_cast<std::size_t>(y) * layout.pitches[i]);
      }
    }
    for (std::size_t i = 0; i < b.count(); ++i) {
      dl::unpitch_rgb(device.data() + layout.offsets[i], layout.pitches[i], widths[i], heights[i],
                      decoded.rgb);
      EXPECT_EQ(decoded.rgb, images[i].rgb) << "batch " << b.index << " image " << i;
    }
  });
  for (std::size_t s = 0; s < seen.size(); ++s) EXPECT_EQ(seen[s], 1) << "sample " << s;
}

TEST(DataloaderRgbBatchLayout, PitchesRoundRowsUpAndImagesFollowEachOther) {
  const std::vector<int> widths = {500, 1, 1280};
  const std::vector<int> heights = {375, 2, 960};
  const dl::RgbBatchLayout l = dl::layout_rgb_batch(widths, heights, 256);
  // 500 * 3 = 1500 -> 1536; 3 -> 256; 3840 is already a multiple of 256.
  EXPECT_EQ(l.pitches, (std::vector<std::size_t>{1536, 256, 3840}));
  EXPECT_EQ(l.offsets, (std::vector<std::size_t>{0, 1536 * 375, 1536 * 375 + 256 * 2}));
  EXPECT_EQ(l.total_bytes, 1536u * 375 + 256 * 2 + 3840 * 960);
  const dl::RgbBatchLayout tight = dl::layout_rgb_batch(widths, heights, 1);
  EXPECT_EQ(tight.pitches, (std::vector<std::size_t>{1500, 3, 3840}));
  EXPECT_THROW(dl::layout_rgb_batch(std::vector<int>{0}, std::vector<int>{5}), gpubench::Error);
  EXPECT_THROW(dl::layout_rgb_batch(std::vector<int>{4, 4}, std::vector<int>{5}), gpubench::Error);
}

TEST(DataloaderRgbBatchLayout, UnpitchKeepsEachRowsPixelsAndDropsThePadding) {
  const int width = 2;
  const int height = 3;
  const std::size_t pitch = 8;  // 6 bytes of pixels, 2 of padding per row
  std::vector<std::uint8_t> pitched(pitch * height, 0xEE);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width * 3; ++x) {
      pitched[static_cast<std::size_t>(y) * pitch + static_cast<std::size_t>(x)] =
          static_cast<std::uint8_t>(10 * y + x);
    }
  }
  std::vector<std::uint8_t> tight;
  dl::unpitch_rgb(pitched.data(), pitch, width, height, tight);
  EXPECT_EQ(tight, (std::vector<std::uint8_t>{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 20, 21, 22,
                                              23, 24, 25}));
}

// The augmented-output check: one bf16 step either way passes, two do not, across zero too.
TEST(DataloaderNvjpegCase, Bf16CheckAllowsOneStepAndNoMore) {
  // 1.0 = 0x3f80; the next values up are 0x3f81, 0x3f82.
  const std::vector<std::uint16_t> want = {0x3f80, 0x3f80, 0x3f80, 0x0000, 0x8001, 0x0001, 0xbf80};
  const std::vector<std::uint16_t> got = {0x3f80, 0x3f81, 0x3f7f, 0x8000, 0x0000, 0x8001, 0xbf82};
  // Beyond: only 0x0001 vs 0x8001 (two steps through zero) and -1.0 vs two steps below it.
  EXPECT_EQ(dl::count_beyond_one_bf16_step(got, want), 2u);
  const std::vector<std::uint16_t> nan = {0x7fc0};
  const std::vector<std::uint16_t> one = {0x3f80};
  EXPECT_EQ(dl::count_beyond_one_bf16_step(nan, nan), 1u);
  EXPECT_EQ(dl::count_beyond_one_bf16_step(one, one), 0u);
  EXPECT_THROW(dl::count_beyond_one_bf16_step(one, want), gpubench::Error);
}

// The GPU case's counters: MB_per_s has the CPU image case's definition (augmented bf16 image +
// label per sample), the RGB nvJPEG decoded and its event-timed share of the wall have their own
// names. Fixture totals, not a measurement.
TEST(DataloaderNvjpegCase, CountersShareMbPerSWithTheCpuCaseAndNameTheGpuOnes) {
  dl::ImageGpuTotals t;
  t.images = 10;
  t.jpeg_bytes = 500000;
  t.decoded_bytes = 10 * (500 * 375 * 3 + 4);
  t.wall_s = 2;
  t.cpu_s = 1;
  t.decode_s = 0.5;
  std::map<std::string, double> c;
  for (const auto& [name, value] : dl::image_gpu_counters(t)) c[name] = value;
  EXPECT_DOUBLE_EQ(c.at("images_per_s"), 5);
  EXPECT_DOUBLE_EQ(c.at("samples_per_s"), 5);
  EXPECT_DOUBLE_EQ(c.at("MB_per_s"), 5 * (3.0 * 224 * 224 * 2 + 4) / 1e6);
  EXPECT_DOUBLE_EQ(c.at("decoded_MB_per_s"), 5 * (500.0 * 375 * 3 + 4) / 1e6);
  EXPECT_DOUBLE_EQ(c.at("input_MB_per_s"), 0.25);
  EXPECT_DOUBLE_EQ(c.at("cpu_cores_used"), 0.5);
  EXPECT_DOUBLE_EQ(c.at("gpu_decode_fraction"), 0.25);
  EXPECT_EQ(c.count("decode_fraction"), 0u);  // the CPU case's: busy-time share, not this
  // Every counter is declared in the suite's metric list, as the real binary reports it.
  gpubench::TempDir tmp("nvjpeg-metrics");
  const fs::path info = tmp.path() / "info.json";
  const std::string cmd = "'" + (fs::path(GPUBENCH_BIN_DIR) / "gpubench-dataloader").string() +
                          "' --gpubench_info >'" + info.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::set<std::string> declared;
  const nlohmann::json parsed = nlohmann::json::parse(gpubench::read_file(info));
  for (const auto& m : parsed.at("metrics")) {
    declared.insert(m.at("name").get<std::string>());
  }
  for (const auto& [name, value] : c) EXPECT_TRUE(declared.contains(name)) << name;
  t.wall_s = 0;
  for (const auto& [name, value] : dl::image_gpu_counters(t)) EXPECT_EQ(value, 0) << name;
}

// No GPU is the cause to name first; then libnvjpeg; then libturbojpeg (the CPU check).
TEST(DataloaderNvjpegCase, SkipReasonNamesTheFirstMissingPiece) {
  EXPECT_EQ(dl::first_unavailable_reason("no CUDA device (x)", "libnvjpeg.so.13 not found", "t"),
            "no CUDA device (x)");
  EXPECT_EQ(dl::first_unavailable_reason("", "libnvjpeg.so.13 not found (searched: d)", "t"),
            "libnvjpeg.so.13 not found (searched: d)");
  EXPECT_EQ(dl::first_unavailable_reason("", "", "libturbojpeg.so.0 not found (searched: d)"),
            "libturbojpeg.so.0 not found (searched: d) (the CPU decode that checks nvJPEG's "
            "pixels)");
  EXPECT_EQ(dl::first_unavailable_reason("", "", ""), "");
}

TEST(DataloaderNvjpegCase, NameFollowsTheImageCasesScheme) {
  dl::NvjpegCase c;
  c.spec.format = dl::Format::wds;
  c.spec.image_width = 500;
  c.spec.image_height = 375;
  c.workers = 2;
  EXPECT_EQ(dl::nvjpeg_case_name(c),
            "dataloader/image/format:wds/size:500x375/decode:nvjpeg/path:pread/workers:2/"
            "order:shuffled/cache:warm");
}

// Through the real binary: the case is registered (standard and full; quick has none, the plan
// has no room for it there), skips with the first missing piece before generating its dataset,
// and says why in --gpubench_info. Here (no GPU) that is the suite's no-device reason; on a GPU
// machine, with GPUBENCH_CUDA_LIBS naming an empty directory and GPUBENCH_CUDA_LIBS_ONLY=1, it is
// libnvjpeg's loader reason.
TEST(DataloaderNvjpegCase, SkipsWithTheReasonThroughTheSuiteBinary) {
  gpubench::TempDir tmp("nvjpeg-e2e");
  const fs::path data = tmp.path() / "data";
  const fs::path nolib = tmp.path() / "nolib";
  fs::create_directories(data);
  fs::create_directories(nolib);
  const fs::path bin = fs::path(GPUBENCH_BIN_DIR) / "gpubench-dataloader";
  const fs::path out = tmp.path() / "out.txt";
  const fs::path err = tmp.path() / "err.txt";
  auto run = [&](const std::string& profile, const std::string& args) {
    const std::string cmd = "env GPUBENCH_PROFILE=" + profile + " GPUBENCH_DATA_DIR='" +
                            data.string() +
                            "' GPUBENCH_DATALOADER_DATASET_MIB=8 GPUBENCH_DATALOADER_WORKERS=1,2 "
                            "GPUBENCH_CUDA_LIBS='" +
                            nolib.string() + "' GPUBENCH_CUDA_LIBS_ONLY=1 '" + bin.string() + "' " +
                            args + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << gpubench::read_file(err);
    return gpubench::read_file(out);
  };
  const std::string filter = "--benchmark_filter='decode:nvjpeg'";
  EXPECT_THAT(run("quick", "--benchmark_list_tests " + filter), Not(HasSubstr("decode:nvjpeg")));
  EXPECT_THAT(run("standard", "--benchmark_list_tests " + filter),
              HasSubstr("dataloader/image/format:wds/size:500x375/decode:nvjpeg/path:pread/"
                        "workers:2/order:shuffled/cache:warm"));

  const auto doc = nlohmann::json::parse(run("standard", "--benchmark_format=json " + filter));
  const auto& benchmarks = doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 1u) << benchmarks.dump();
  const auto& b = benchmarks.at(0);
  EXPECT_EQ(b.at("name").get<std::string>().rfind(
                "dataloader/image/format:wds/size:500x375/decode:nvjpeg/path:pread/workers:2/", 0),
            0u);
  ASSERT_TRUE(b.value("error_occurred", false));
  const std::string msg = b.value("error_message", "");
  EXPECT_THAT(msg, ::testing::ContainsRegex(
                       "^skipped: (no NVIDIA driver|no usable NVIDIA driver|NVIDIA driver older|"
                       "no CUDA device|libnvjpeg\\.so\\.13 not found \\(searched: " +
                       nolib.string() + " \\(GPUBENCH_CUDA_LIBS\\)\\)$)"));
  // Skipped before its dataset was generated: the data directory is still empty.
  EXPECT_TRUE(fs::is_empty(data)) << "the skipped case generated data";
  // --gpubench_info says the same.
  EXPECT_THAT(run("standard", "--gpubench_info"),
              HasSubstr("decode:nvjpeg cases: skipped: " + msg.substr(9)));
}
