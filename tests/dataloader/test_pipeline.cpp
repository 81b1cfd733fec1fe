// Pipeline accounting, stall fraction, worker validation and error propagation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "suites/dataloader/cache_control.hpp"
#include "suites/dataloader/pipeline.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace dl = gpubench::dataloader;
using ::testing::HasSubstr;

namespace {

dl::DatasetSpec small(dl::Format f = dl::Format::raw) {
  dl::DatasetSpec s;
  s.format = f;
  s.seed = 11;
  s.record_bytes = 4096;
  s.samples = 203;  // not a multiple of the batch size: the last batch is short
  s.samples_per_shard = 50;
  return s;
}

}  // namespace

TEST(DataloaderPipeline, EverySampleOnceWithTheRightValues) {
  gpubench::TempDir tmp("dl-pipe");
  for (dl::Format f : {dl::Format::raw, dl::Format::record, dl::Format::jsonl}) {
    const auto d = dl::ensure_dataset(tmp.path(), small(f));
    for (int workers : {1, 3, 8}) {
      dl::DatasetReader reader(d, dl::ReadPath::pread);
      dl::PipelineConfig c;
      c.workers = workers;
      c.batch_size = 16;
      dl::Pipeline p(reader, c);
      for (int epoch = 0; epoch < 2; ++epoch) {  // slots are reused across epochs
        dl::VerifySink v(d.spec);
        const auto r = p.run(&v);
        EXPECT_EQ(r.samples, 203u);
        EXPECT_EQ(r.batches, 13u);  // ceil(203 / 16)
        EXPECT_EQ(r.bytes, 203u * (4096 + 4));
        EXPECT_EQ(r.batch_latency_us.size(), 13u);
        EXPECT_EQ(v.samples_checked(), 203u);
        EXPECT_EQ(v.duplicates(), 0u);
        EXPECT_EQ(v.missing(), 0u);
        EXPECT_EQ(v.mismatches(), 0u) << v.first_mismatch();
        EXPECT_GE(r.stall_fraction(), 0.0);
        EXPECT_LE(r.stall_fraction(), 1.0);
      }
    }
  }
}

TEST(DataloaderPipeline, VerifySinkCatchesWrongData) {
  dl::DatasetSpec s = small();
  dl::VerifySink v(s);
  std::vector<std::uint8_t> pixels(2 * s.record_bytes);
  std::vector<std::uint32_t> labels(2);
  for (int i = 0; i < 2; ++i) {
    dl::fill_sample_pixels(s.seed, static_cast<std::uint64_t>(i),
                           std::span(pixels).subspan(i * s.record_bytes, s.record_bytes));
    labels[static_cast<std::size_t>(i)] = dl::sample_label(s.seed, static_cast<std::uint64_t>(i));
  }
  pixels[s.record_bytes + 7] ^= 1;  // sample 1 is wrong
  dl::Batch b{0, 0, 2, labels.data(), pixels.data(), 0};
  v.begin(b);
  v.begin(b);  // delivered twice
  EXPECT_EQ(v.mismatches(), 2u);
  EXPECT_EQ(v.duplicates(), 2u);
  EXPECT_EQ(v.missing(), 201u);
  EXPECT_THAT(v.first_mismatch(), HasSubstr("sample 1"));
}

namespace {

// A sink that, like the H2D sink, keeps reading a batch after end() (an asynchronous copy in
// flight) until finish(): it checks the staging slot still holds the batch's data when finish()
// comes (the pipeline must not hand the slot to a worker before), and records the order.
class HoldingSink final : public dl::BatchSink {
 public:
  explicit HoldingSink(const dl::DatasetSpec& spec) : m_verify(spec) {}
  void begin(const dl::Batch& b) override {
    m_copies[b.slot] = {b.index, std::vector<std::uint8_t>(b.pixels, b.pixels + 64)};
    m_in_flight += 1;
    m_max_in_flight = std::max(m_max_in_flight, m_in_flight);
  }
  std::size_t held() const override { return 1; }
  void finish(const dl::Batch& b) override {
    const auto& [index, bytes] = m_copies.at(b.slot);
    EXPECT_EQ(index, b.index);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), b.pixels))
        << "slot " << b.slot << " was reused while batch " << b.index << " was still held";
    m_verify.begin(b);
    m_finished.push_back(b.index);
    m_in_flight -= 1;
  }
  dl::VerifySink m_verify;
  std::map<std::size_t, std::pair<std::uint64_t, std::vector<std::uint8_t>>> m_copies;
  std::vector<std::uint64_t> m_finished;
  int m_in_flight = 0;
  int m_max_in_flight = 0;
};

}  // namespace

// Double buffering with two copies in flight: the sink holds one ended batch, the pipeline keeps
// its slot back and finishes it before reuse; every batch is finished once, in order.
TEST(DataloaderPipeline, HeldBatchesAreFinishedBeforeTheirSlotIsReused) {
  gpubench::TempDir tmp("dl-held");
  const auto d = dl::ensure_dataset(tmp.path(), small());
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  for (int workers : {1, 4}) {
    dl::PipelineConfig c;
    c.workers = workers;
    c.batch_size = 16;
    dl::Pipeline p(reader, c);
    HoldingSink sink(d.spec);
    const auto r = p.run(&sink);
    EXPECT_EQ(r.batches, 13u);
    EXPECT_EQ(sink.m_finished.size(), 13u);
    EXPECT_EQ(sink.m_max_in_flight, 2) << "two copies in flight at most, and at least two";
    EXPECT_EQ(sink.m_in_flight, 0) << "every held batch finished before run() returned";
    EXPECT_EQ(sink.m_verify.samples_checked(), 203u);
    EXPECT_EQ(sink.m_verify.mismatches(), 0u) << sink.m_verify.first_mismatch();
  }
}

TEST(DataloaderPipeline, StallFractionFollowsTheStep) {
  gpubench::TempDir tmp("dl-stall");
  const auto d = dl::ensure_dataset(tmp.path(), small());
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  dl::PipelineConfig c;
  c.workers = 2;
  c.batch_size = 16;
  // A long step: the workers stay ahead, the consumer almost never waits.
  c.step = std::chrono::microseconds(5000);
  const auto slow = dl::Pipeline(reader, c).run();
  EXPECT_GE(slow.wall_s, 13 * 0.005);
  EXPECT_LT(slow.stall_fraction(), 0.3);
  // No step: the consumer does nothing but wait.
  c.step = std::chrono::microseconds(0);
  const auto fast = dl::Pipeline(reader, c).run();
  EXPECT_GT(fast.stall_fraction(), slow.stall_fraction());
  EXPECT_LE(fast.stall_fraction(), 1.0);
  EXPECT_LE(fast.stall_s, fast.wall_s);
  EXPECT_GE(dl::percentile(fast.batch_latency_us, 99), dl::percentile(fast.batch_latency_us, 50));
}

TEST(DataloaderPipeline, WorkerCountsAreChecked) {
  dl::PipelineConfig c;
  for (int bad : {0, -1, dl::k_max_workers + 1, 1000000}) {
    c.workers = bad;
    try {
      dl::validate(c);
      FAIL() << bad << " accepted";
    } catch (const gpubench::Error& e) {
      EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input);
      EXPECT_THAT(e.what_failed(), HasSubstr("worker count " + std::to_string(bad)));
    }
  }
  c.workers = 2;
  c.batch_size = 0;
  EXPECT_THROW(dl::validate(c), gpubench::Error);
  c.batch_size = 1;
  c.workers = dl::k_max_workers;
  EXPECT_NO_THROW(dl::validate(c));
}

TEST(DataloaderPipeline, WorkerErrorsReachTheCaller) {
  gpubench::TempDir tmp("dl-err");
  const auto d = dl::ensure_dataset(tmp.path(), small(dl::Format::record));
  {
    std::fstream f(d.file("shard-00002.rec"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x55');
  }
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  dl::PipelineConfig c;
  c.workers = 4;
  c.batch_size = 8;
  dl::Pipeline p(reader, c);
  try {
    p.run();
    FAIL() << "corruption not reported";
  } catch (const gpubench::Error& e) {
    EXPECT_THAT(e.what_failed(), HasSubstr("shard-00002.rec' at byte offset 0"));
  }
}

TEST(DataloaderCacheControl, EvictionIsMeasured) {
  gpubench::TempDir tmp("dl-evict");
  const auto d = dl::ensure_dataset(tmp.path(), small());
  dl::DatasetReader reader(d, dl::ReadPath::mmap);
  const auto r = dl::evict_from_page_cache(reader.files());
  EXPECT_EQ(r.bytes, d.total_bytes());
  EXPECT_GE(r.resident_fraction(), 0.0);
  EXPECT_LE(r.resident_fraction(), 1.0);
  // Whatever the kernel did, reading everything back makes it resident again.
  dl::Pipeline p(reader, dl::PipelineConfig{});
  p.run();
  std::uint64_t resident = 0;
  for (const auto* f : reader.files()) resident += dl::resident_bytes(*f);
  EXPECT_GT(resident, 0u);
  EXPECT_GT(dl::memcpy_ceiling_mb_per_s(1, 8u << 20, 1), 0.0);
}
