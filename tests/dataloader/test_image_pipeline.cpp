// The image pipeline (issue 41): the pipeline's SampleSource hook, the checking epoch's rules
// (every image once, decodes within tolerance, sampled augmentations within one bf16 step), and
// the image cases' names, datasets and plan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <vector>

#include "suites/dataloader/dataloader_cases_detail.hpp"
#include "suites/dataloader/dataloader_plan.hpp"
#include "suites/dataloader/image_pipeline.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace dl = gpubench::dataloader;
using ::testing::HasSubstr;

namespace {

dl::DatasetSpec small_raw() {
  dl::DatasetSpec s;
  s.seed = 5;
  s.record_bytes = 64;
  s.samples = 37;  // not a multiple of the batch: the last batch is short
  s.samples_per_shard = 10;
  return s;
}

// A source whose record of sample i in epoch e is 24 bytes of (i, e, i ^ e); counts its
// workers. Stands in for the image workers to test the pipeline's hook.
class FakeSource final : public dl::SampleSource {
 public:
  std::size_t record_bytes() const override { return 24; }
  class W final : public Worker {
   public:
    explicit W(const FakeSource& s) : m_s(s) { m_s.workers_made.fetch_add(1); }
    void fill(const dl::Batch& b) override {
      for (std::size_t i = 0; i < b.count; ++i) {
        const std::uint64_t v[3] = {b.sample(i), b.epoch, b.sample(i) ^ b.epoch};
        std::memcpy(b.pixels + i * 24, v, 24);
        b.labels[i] = static_cast<std::uint32_t>(b.sample(i) + 1000);
      }
    }

   private:
    const FakeSource& m_s;
  };
  std::unique_ptr<Worker> make_worker() const override { return std::make_unique<W>(*this); }
  mutable std::atomic<int> workers_made{0};
};

// Checks what FakeSource wrote for the pipeline's current epoch.
class FakeCheckSink final : public dl::BatchSink {
 public:
  explicit FakeCheckSink(std::uint64_t epoch) : m_epoch(epoch) {}
  void begin(const dl::Batch& b) override {
    for (std::size_t i = 0; i < b.count; ++i) {
      std::uint64_t v[3];
      std::memcpy(v, b.pixels + i * 24, 24);
      if (v[0] != b.sample(i) || v[1] != m_epoch || v[2] != (v[0] ^ m_epoch) ||
          b.labels[i] != b.sample(i) + 1000) {
        ++wrong;
      }
      seen.push_back(b.sample(i));
    }
  }
  std::uint64_t m_epoch;
  int wrong = 0;
  std::vector<std::uint64_t> seen;
};

}  // namespace

TEST(ImagePipeline, Bf16StepsCountRepresentableValues) {
  EXPECT_EQ(dl::bf16_steps_between(0x3f80, 0x3f80), 0u);  // 1.0
  EXPECT_EQ(dl::bf16_steps_between(0x3f80, 0x3f81), 1u);  // 1.0 and the next bf16 up
  EXPECT_EQ(dl::bf16_steps_between(0x3f81, 0x3f80), 1u);
  EXPECT_EQ(dl::bf16_steps_between(0x3f80, 0x3f82), 2u);
  EXPECT_EQ(dl::bf16_steps_between(0x3f7f, 0x3f80), 1u);  // across an exponent boundary
  EXPECT_EQ(dl::bf16_steps_between(0x0000, 0x8000), 0u);  // +0 and -0
  EXPECT_EQ(dl::bf16_steps_between(0x0001, 0x8001), 2u);  // through zero
  EXPECT_EQ(dl::bf16_steps_between(0xbf80, 0xbf81), 1u);  // -1.0 and its neighbour
  EXPECT_EQ(dl::bf16_steps_between(0x3f80, 0xbf80), 2u * 0x3f80);
}

TEST(ImagePipeline, SourceFillsEverySlotRecordOncePerEpochWithItsEpoch) {
  gpubench::TempDir tmp("dl-image-hook");
  const auto d = dl::ensure_dataset(tmp.path(), small_raw());
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  for (dl::Order order : {dl::Order::sequential, dl::Order::shuffled}) {
    FakeSource source;
    dl::PipelineConfig c;
    c.workers = 3;
    c.batch_size = 8;
    c.order = order;
    c.source = &source;
    dl::Pipeline p(reader, c);
    for (std::uint64_t epoch = 0; epoch < 2; ++epoch) {
      FakeCheckSink sink(epoch);
      const auto r = p.run(&sink);
      EXPECT_EQ(r.samples, 37u);
      EXPECT_EQ(r.batches, 5u);
      EXPECT_EQ(r.bytes, 37u * (24 + 4));  // the source's record size, not the dataset's
      EXPECT_EQ(sink.wrong, 0);
      std::sort(sink.seen.begin(), sink.seen.end());
      std::vector<std::uint64_t> all(37);
      for (std::uint64_t i = 0; i < 37; ++i) all[i] = i;
      EXPECT_EQ(sink.seen, all);
    }
    EXPECT_EQ(source.workers_made.load(), 6);  // one per worker thread and epoch
  }
}

TEST(ImagePipeline, VerifySinkNamesWrongLabelsDuplicatesAndMissing) {
  dl::DatasetSpec s = small_raw();
  s.samples = 4;
  dl::ImageVerifySink v(s);
  std::uint32_t labels[2] = {dl::sample_label(s.seed, 0), dl::sample_label(s.seed, 1) + 1};
  dl::Batch b{0, 0, 2, labels, nullptr, 0};
  v.begin(b);
  v.begin(b);
  EXPECT_EQ(v.samples_checked(), 4u);
  EXPECT_EQ(v.duplicates(), 2u);
  EXPECT_EQ(v.missing(), 2u);
  EXPECT_EQ(v.mismatches(), 2u);
  EXPECT_THAT(v.first_mismatch(), HasSubstr("sample 1 (key 000000001): label"));
}

namespace {

// A source standing in for checking image workers: reports each sample to the ImageCheck as
// the real workers do, with one bad decode (`bad`) and optionally no augmentation checks.
class ReportingSource final : public dl::SampleSource {
 public:
  ReportingSource(dl::ImageCheck& check, std::uint64_t bad, bool check_augments)
      : m_check(check), m_bad(bad), m_augments(check_augments) {}
  std::size_t record_bytes() const override { return 4; }
  class W final : public Worker {
   public:
    explicit W(const ReportingSource& s) : m_s(s) {}
    void fill(const dl::Batch& b) override {
      for (std::size_t i = 0; i < b.count; ++i) {
        const std::uint64_t index = b.sample(i);
        b.labels[i] = dl::sample_label(5, index);
        if (index == m_s.m_bad) {
          m_s.m_check.mismatch("sample " + std::to_string(index) + " decodes outside");
          continue;
        }
        m_s.m_check.decoded_ok();
        if (m_s.m_augments && index % dl::k_reference_every == 0) m_s.m_check.augmented_ok();
      }
    }

   private:
    const ReportingSource& m_s;
  };
  std::unique_ptr<Worker> make_worker() const override { return std::make_unique<W>(*this); }

 private:
  dl::ImageCheck& m_check;
  std::uint64_t m_bad;
  bool m_augments;
};

std::string check_with(std::uint64_t bad, bool augments) {
  gpubench::TempDir tmp("dl-image-check");
  const auto d = dl::ensure_dataset(tmp.path(), small_raw());
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  dl::ImageCheck check;
  ReportingSource source(check, bad, augments);
  dl::PipelineConfig c;
  c.workers = 2;
  c.batch_size = 8;
  c.order = dl::Order::shuffled;
  c.source = &source;
  dl::Pipeline p(reader, c);
  return dl::check_image_epoch(p, d.spec, check);
}

}  // namespace

TEST(ImagePipeline, CheckingEpochPassesOnlyWhenEveryImageAndSampledAugmentationWasChecked) {
  EXPECT_EQ(check_with(~0ull, true), "");
  EXPECT_THAT(check_with(21, true), HasSubstr("sample 21 decodes outside (1 wrong)"));
  // 37 samples: indices 0, 16 and 32 are the reference-checked ones.
  EXPECT_THAT(check_with(~0ull, false),
              HasSubstr("0 of 3 sampled augmentations were checked against augment_reference"));
}

TEST(ImagePipeline, SourceRefusesADatasetWithoutImages) {
  gpubench::TempDir tmp("dl-image-raw");
  const auto d = dl::ensure_dataset(tmp.path(), small_raw());
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  class NoSteps final : public dl::ImageSteps {
   public:
    void decode(std::span<const std::uint8_t>, dl::DecodedImage&) const override {}
    dl::CropBox crop_box(int, int, std::uint64_t, std::uint64_t, std::uint64_t) const override {
      return {};
    }
    void augment(const dl::DecodedImage&, const dl::CropBox&, std::uint16_t*,
                 std::vector<float>&) const override {}
    void augment_reference(const dl::DecodedImage&, const dl::CropBox&,
                           std::uint16_t*) const override {}
    void expected_image(std::uint64_t, dl::DecodedImage&) const override {}
    dl::DecodeDifference compare(const dl::DecodedImage&, const dl::DecodedImage&) const override {
      return {};
    }
    bool acceptable(const dl::DecodeDifference&) const override { return true; }
  } steps;
  try {
    dl::ImageSource source(reader, steps, 1);
    FAIL() << "a raw dataset was accepted";
  } catch (const gpubench::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("holds no JPEG images"));
  }
}

TEST(ImagePipeline, CasesNameTheirImagesAndSweepWorkersForTheHeadline) {
  dl::SuiteConfig config;
  config.profile = gpubench::suite::Profile::quick;
  config.workers = {1, 2, 4};
  config.dataset_bytes = 32u << 20;
  config.record_sizes = {dl::k_image_record_bytes};
  const auto plan = dl::detail::make_plan(config);
  std::vector<std::string> names;
  for (const auto& c : plan.images) names.push_back(dl::detail::image_name(c));
  const std::string head = "dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/";
  EXPECT_EQ(names, (std::vector<std::string>{
                       head + "workers:1/order:shuffled/cache:warm",
                       head + "workers:2/order:shuffled/cache:warm",
                       head + "workers:4/order:shuffled/cache:warm",
                       "dataloader/image/format:tfrecord/size:500x375/decode:cpu/path:pread/"
                       "workers:2/order:shuffled/cache:warm",
                       "dataloader/image/format:wds/size:500x375/decode:cpu/path:mmap/workers:2/"
                       "order:shuffled/cache:warm",
                       "dataloader/image/format:wds/size:1280x960/decode:cpu/path:pread/"
                       "workers:2/order:shuffled/cache:warm",
                       head + "workers:2/order:sequential/cache:cold",
                       head + "workers:2/order:shuffled/cache:cold"}));
  // Image datasets: JPEG, as many images as decode to a quarter of the dataset bytes, at least 8.
  const auto small = dl::detail::image_spec_for(config, dl::Format::wds, 500, 375);
  EXPECT_TRUE(small.is_jpeg());
  EXPECT_EQ(small.image_width, 500u);
  EXPECT_EQ(small.image_height, 375u);
  EXPECT_EQ(small.samples, 14u);  // 32 MiB / 4 / 562500 decoded bytes
  EXPECT_EQ(dl::detail::image_spec_for(config, dl::Format::wds, 1280, 960).samples, 8u);
  config.dataset_bytes = 128u << 20;
  EXPECT_EQ(dl::detail::image_spec_for(config, dl::Format::wds, 500, 375).samples, 59u);
  config.dataset_bytes = 1u << 20;
  EXPECT_EQ(dl::detail::image_spec_for(config, dl::Format::tfrecord, 500, 375).samples, 8u);
  // Every image case is in the outlines the run plan costs, and every image dataset is planned.
  config.dataset_bytes = 32u << 20;
  const auto outlines = dl::case_outlines(config);
  std::set<std::string> outlined;
  for (const auto& o : outlines) {
    if (o.work == dl::CaseWork::image) outlined.insert(o.name);
  }
  EXPECT_EQ(outlined, std::set<std::string>(names.begin(), names.end()));
  int image_datasets = 0;
  for (const auto& s : dl::planned_datasets(config)) image_datasets += s.is_jpeg() ? 1 : 0;
  EXPECT_EQ(image_datasets, 3);  // wds 500x375, tfrecord 500x375, wds 1280x960
}

TEST(ImagePipeline, PlanCostsImagesByPixelsAndWorkers) {
  const auto& r = gpubench::suite::reference_rates();
  dl::CaseOutline o{"x", dl::CaseWork::image, 4, 0, 1};
  o.images = 64;
  o.image_pixels = 500 * 375;
  const double one = dl::planned_case_seconds(o, 1, r);
  o.workers = 2;
  const double two = dl::planned_case_seconds(o, 1, r);
  o.workers = 1;
  o.image_pixels = 1280 * 960;
  const double big = dl::planned_case_seconds(o, 1, r);
  // 64 images x (4 timed + 2 checking epochs) / 300 per s, plus 4 references of 10 images each
  EXPECT_NEAR(one, (64.0 * 6 + 40) / r.jpeg_images_per_worker_s, 0.05);
  EXPECT_LT(two, 0.6 * one);
  EXPECT_NEAR(big / one, 1280.0 * 960 / (500 * 375), 0.3);
}
