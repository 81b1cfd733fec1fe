// The image pipeline (issue 41): the pipeline's SampleSource hook, the checking epoch's rules
// (every image once, decodes within tolerance, sampled augmentations within one bf16 step), and
// the image cases' names, datasets and plan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
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
  // A NaN (quiet 0x7fc0, negative 0xffc1) is never near anything, itself included.
  EXPECT_EQ(dl::bf16_steps_between(0x7fc0, 0x7fc0), 0xffffffffu);
  EXPECT_EQ(dl::bf16_steps_between(0xffc1, 0x3f80), 0xffffffffu);
  EXPECT_EQ(dl::bf16_steps_between(0x3f80, 0x7fc0), 0xffffffffu);
  EXPECT_EQ(dl::bf16_steps_between(0x7f80, 0x7f7f), 1u);  // +inf is one step above the largest
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
                       "dataloader/image/format:wds/size:1280x960/decode:cpu/path:pread/"
                       "workers:2/order:shuffled/cache:warm",
                       head + "workers:2/order:sequential/cache:cold",
                       head + "workers:2/order:shuffled/cache:cold"}));
  // The mmap point only outside quick (its own checking epoch did not fit quick's share).
  {
    dl::SuiteConfig standard = config;
    standard.profile = gpubench::suite::Profile::standard;
    std::vector<std::string> more;
    for (const auto& c : dl::detail::make_plan(standard).images) {
      more.push_back(dl::detail::image_name(c));
    }
    EXPECT_THAT(more, ::testing::Contains(std::string(
                          "dataloader/image/format:wds/size:500x375/decode:cpu/path:mmap/"
                          "workers:2/order:shuffled/cache:warm")));
  }
  // Image datasets: JPEG, as many images as decode to a fifth of the dataset bytes, at least 8
  // (the worker sweep's dataset at least 4 batches of 4 per worker in quick, below).
  const auto small = dl::detail::image_spec_for(config, dl::Format::wds, 500, 375, 0);
  EXPECT_TRUE(small.is_jpeg());
  EXPECT_EQ(small.image_width, 500u);
  EXPECT_EQ(small.image_height, 375u);
  EXPECT_EQ(small.samples, 11u);  // 32 MiB / 5 / 562500 decoded bytes
  EXPECT_EQ(dl::detail::image_spec_for(config, dl::Format::wds, 1280, 960, 0).samples, 8u);
  EXPECT_EQ(dl::detail::image_spec_for(config, dl::detail::ImageCase{}).samples, 64u);  // 4 x 4 x 4
  config.dataset_bytes = 128u << 20;
  EXPECT_EQ(dl::detail::image_spec_for(config, dl::Format::wds, 500, 375, 0).samples, 47u);
  config.dataset_bytes = 1u << 20;
  EXPECT_EQ(dl::detail::image_spec_for(config, dl::Format::tfrecord, 500, 375, 0).samples, 8u);
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

TEST(ImagePipeline, SweepDatasetHoldsBatchesForEveryWorkerAndCasesTimeBatchesPerWorker) {
  // A 64-core server's standard sweep: the old rule (a fifth of 128 MiB) gave 47 images, 12
  // batches, so workers 13..64 had nothing to do.
  dl::SuiteConfig config;
  config.profile = gpubench::suite::Profile::standard;
  config.workers = {1, 2, 4, 8, 16, 32, 64};
  config.dataset_bytes = 128u << 20;
  config.record_sizes = {dl::k_image_record_bytes};
  const dl::detail::ImageCase headline;
  const auto sweep = dl::detail::image_spec_for(config, headline);
  EXPECT_EQ(sweep.samples, 2048u);  // 8 batches of 4 per worker at 64 workers
  // Datasets only mid workers read keep the profile's size.
  dl::detail::ImageCase tfrecord;
  tfrecord.format = dl::Format::tfrecord;
  const auto tf = dl::detail::image_spec_for(config, tfrecord);
  EXPECT_EQ(tf.samples, 47u);
  // Timed batches: max(12, 8 x workers), at most the epoch.
  auto batches = [&](int workers, const dl::detail::ImageCase& base, const dl::DatasetSpec& s) {
    dl::detail::ImageCase c = base;
    c.workers = workers;
    return dl::detail::image_case_batches(config, c, s);
  };
  EXPECT_EQ(batches(1, headline, sweep), 12u);
  EXPECT_EQ(batches(2, headline, sweep), 16u);
  EXPECT_EQ(batches(16, headline, sweep), 128u);
  EXPECT_EQ(batches(64, headline, sweep), 512u);  // the whole epoch
  EXPECT_EQ(batches(2, tfrecord, tf), 12u);       // its whole epoch: 47 images
  // The outlines the plan costs: images per worker constant from 2 workers up, and each image
  // dataset's checking epoch once per read path, on the first case that reads it that way, on
  // the sweep's 64 workers (the mmap case checks its own mapped reads).
  std::map<std::string, std::uint64_t> checked;
  for (const auto& o : dl::case_outlines(config)) {
    if (o.work != dl::CaseWork::image) continue;
    EXPECT_EQ(o.warmup_images, 4u * static_cast<std::uint64_t>(o.workers)) << o.name;
    if (o.name.find("/step_us:5000/") != std::string::npos) {
      // The image step cases (GPU busy): max(12, 2 x workers) batches of 4, 5 ms of step each.
      const std::uint64_t step_batches =
          std::max<std::uint64_t>(12, 2 * static_cast<std::uint64_t>(o.workers));
      EXPECT_EQ(o.images, 4 * step_batches) << o.name;
      EXPECT_EQ(o.step_us_total, 5000 * step_batches) << o.name;
      EXPECT_EQ(o.checked_images, 0u) << o.name << ": the headline's dataset, checked by it";
      continue;
    }
    EXPECT_EQ(o.step_us_total, 0u) << o.name;
    if (o.name.find("wds/size:500x375/decode:cpu/path:pread") != std::string::npos &&
        o.name.find("cache:warm") != std::string::npos) {
      EXPECT_EQ(o.images, o.workers == 1 ? 48u : 32u * static_cast<std::uint64_t>(o.workers))
          << o.name;
    }
    if (o.checked_images > 0) {
      EXPECT_EQ(o.check_workers, 64) << o.name;
      checked[o.name] = o.checked_images;
    }
  }
  const std::string head = "dataloader/image/format:";
  EXPECT_EQ(
      checked,
      (std::map<std::string, std::uint64_t>{
          {head + "wds/size:500x375/decode:cpu/path:pread/workers:1/order:shuffled/cache:warm",
           2048},
          {head + "wds/size:500x375/decode:cpu/path:mmap/workers:2/order:shuffled/cache:warm",
           2048},
          {head + "tfrecord/size:500x375/decode:cpu/path:pread/workers:2/order:shuffled/"
                  "cache:warm",
           47},
          {head + "wds/size:1280x960/decode:cpu/path:pread/workers:2/order:shuffled/"
                  "cache:warm",
           8}}));
  // Quick: 4 batches per worker (1024 images at 64 workers), at least 8 a case.
  config.profile = gpubench::suite::Profile::quick;
  config.dataset_bytes = 32u << 20;
  const auto quick = dl::detail::image_spec_for(config, headline);
  EXPECT_EQ(quick.samples, 1024u);
  EXPECT_EQ(batches(1, headline, quick), 8u);
  EXPECT_EQ(batches(64, headline, quick), 256u);
}

TEST(ImagePipeline, PlanCostsImagesByPixelsAndWorkers) {
  const auto& r = gpubench::suite::reference_rates();
  dl::CaseOutline o{"x", dl::CaseWork::image, 4, 0, 1};
  o.images = 64;
  o.warmup_images = 4;
  o.checked_images = 64;
  o.image_pixels = 500 * 375;
  const double one = dl::planned_case_seconds(o, 1, r);
  o.workers = 2;
  o.check_workers = 2;
  const double two = dl::planned_case_seconds(o, 1, r);
  o.workers = 1;
  o.check_workers = 1;
  o.image_pixels = 1280 * 960;
  const double big = dl::planned_case_seconds(o, 1, r);
  o.image_pixels = 500 * 375;
  // 64 images x 4 timed epochs + 4 warm-up images, and once the checking epoch: 64 x 1.5 images
  // plus 4 references of 3 images' worth each.
  EXPECT_NEAR(one, (64.0 * 4 + 4 + 64 * 1.5 + 12) / r.jpeg_images_per_worker_s, 0.02);
  // The checking epoch is once per process, not per repetition, and runs on its own workers.
  const double three_reps = dl::planned_case_seconds(o, 3, r);
  EXPECT_NEAR(three_reps - one, 2 * (64.0 * 4 + 4) / r.jpeg_images_per_worker_s, 0.05);
  o.check_workers = 4;
  EXPECT_NEAR(one - dl::planned_case_seconds(o, 1, r),
              0.75 * (64 * 1.5 + 12) / r.jpeg_images_per_worker_s, 0.02);
  o.checked_images = 0;  // a later case of the same dataset
  EXPECT_NEAR(dl::planned_case_seconds(o, 1, r), (64.0 * 4 + 4) / r.jpeg_images_per_worker_s, 0.02);
  EXPECT_LT(two, 0.6 * one);
  EXPECT_NEAR(big / one, 1280.0 * 960 / (500 * 375), 0.3);
}

// --- the real ImageSource on a generated JPEG dataset ------------------------------------------

namespace {

// A small JPEG dataset: 40 images of 120x90 in WebDataset shards of 16 (a third shard is short).
dl::DatasetSpec small_jpeg(dl::Format format = dl::Format::wds) {
  dl::DatasetSpec s;
  s.format = format;
  s.seed = 9;
  s.image_width = 120;
  s.image_height = 90;
  s.samples = 40;
  s.samples_per_shard = 16;
  s.record_bytes = 0;
  return s;
}

// The real steps, with one thing changed to test that the check notices it.
class AlteredSteps final : public dl::ImageSteps {
 public:
  AlteredSteps(const dl::JpegCodec& codec, const dl::DatasetSpec& spec) : m_real(codec, spec) {}
  std::uint64_t wrong_reference_for = ~0ull;  // expected_image gives another image for this one
  int augment_steps_off = 0;                  // bf16 steps added to output value 100
  bool nan_at_100 = false;  // output and reference value 100 both a NaN (the same bits)
  void decode(std::span<const std::uint8_t> jpeg, dl::DecodedImage& out) const override {
    m_real.decode(jpeg, out);
  }
  dl::CropBox crop_box(int w, int h, std::uint64_t seed, std::uint64_t epoch,
                       std::uint64_t sample) const override {
    return m_real.crop_box(w, h, seed, epoch, sample);
  }
  void augment(const dl::DecodedImage& image, const dl::CropBox& box, std::uint16_t* out,
               std::vector<float>& scratch) const override {
    m_real.augment(image, box, out, scratch);
    out[100] = static_cast<std::uint16_t>(out[100] + augment_steps_off);
    if (nan_at_100) out[100] = 0x7fc0;
  }
  void augment_reference(const dl::DecodedImage& image, const dl::CropBox& box,
                         std::uint16_t* out) const override {
    m_real.augment_reference(image, box, out);
    if (nan_at_100) out[100] = 0x7fc0;
  }
  void expected_image(std::uint64_t index, dl::DecodedImage& out) const override {
    m_real.expected_image(index == wrong_reference_for ? index + 1 : index, out);
  }
  dl::DecodeDifference compare(const dl::DecodedImage& a,
                               const dl::DecodedImage& b) const override {
    return m_real.compare(a, b);
  }
  bool acceptable(const dl::DecodeDifference& d) const override { return m_real.acceptable(d); }

 private:
  dl::CpuImageSteps m_real;
};

// The checking epoch's verdict for `steps` on `dataset`.
std::string check_epoch(const dl::Dataset& dataset, const dl::ImageSteps& steps) {
  dl::DatasetReader reader(dataset, dl::ReadPath::pread);
  dl::ImageCheck check;
  dl::ImageSource source(reader, steps, 3, &check);
  dl::PipelineConfig c;
  c.workers = 3;
  c.batch_size = 4;
  c.order = dl::Order::shuffled;
  c.source = &source;
  dl::Pipeline p(reader, c);
  return dl::check_image_epoch(p, dataset.spec, check);
}

// Keeps the augmented output of one sample.
class KeepSample final : public dl::BatchSink {
 public:
  explicit KeepSample(std::uint64_t sample) : m_sample(sample) {}
  void begin(const dl::Batch& b) override {
    for (std::size_t i = 0; i < b.count; ++i) {
      if (b.sample(i) != m_sample) continue;
      const auto* p =
          reinterpret_cast<const std::uint16_t*>(b.pixels + i * dl::k_augmented_image_bytes);
      kept.assign(p, p + dl::k_augmented_image_bytes / 2);
      label = b.labels[i];
    }
  }
  std::vector<std::uint16_t> kept;
  std::uint32_t label = 0;

 private:
  std::uint64_t m_sample;
};

}  // namespace

TEST(ImagePipelineJpeg, CheckingEpochPassesTheRealPipelineAndNamesAWrongSample) {
  std::string reason;
  const dl::JpegCodec* codec = dl::JpegCodec::get(&reason);
  if (!codec) GTEST_SKIP() << reason;
  gpubench::TempDir tmp("dl-image-real");
  for (dl::Format f : {dl::Format::wds, dl::Format::tfrecord}) {
    const auto d = dl::ensure_dataset(tmp.path(), small_jpeg(f));
    AlteredSteps steps(*codec, d.spec);
    EXPECT_EQ(check_epoch(d, steps), "") << dl::to_string(f);
    // A decode compared with the wrong image is outside the tolerance, and named.
    steps.wrong_reference_for = 21;
    EXPECT_THAT(check_epoch(d, steps),
                HasSubstr("sample 21 (key 000000021) decodes outside the tolerance"));
    steps.wrong_reference_for = ~0ull;
    // One bf16 step off the reference passes; two fail, naming the sample and the value.
    steps.augment_steps_off = 1;
    EXPECT_EQ(check_epoch(d, steps), "");
    steps.augment_steps_off = 2;
    const std::string bad = check_epoch(d, steps);
    EXPECT_THAT(bad, HasSubstr("augmented value 100 (channel 0, row 0, column 100)"));
    EXPECT_THAT(bad, HasSubstr("more than one bf16 step"));
    EXPECT_THAT(bad, HasSubstr("(3 wrong)"));  // samples 0, 16 and 32 are the checked ones
    // A NaN output fails even where the reference is the same NaN.
    steps.augment_steps_off = 0;
    steps.nan_at_100 = true;
    EXPECT_THAT(check_epoch(d, steps), HasSubstr("augmented value 100"));
    steps.nan_at_100 = false;
  }
}

TEST(ImagePipelineJpeg, WorkersDrawEachEpochsCropAndCountTheirWork) {
  std::string reason;
  const dl::JpegCodec* codec = dl::JpegCodec::get(&reason);
  if (!codec) GTEST_SKIP() << reason;
  gpubench::TempDir tmp("dl-image-work");
  const auto d = dl::ensure_dataset(tmp.path(), small_jpeg());
  dl::DatasetReader reader(d, dl::ReadPath::mmap);
  const dl::CpuImageSteps steps(*codec, d.spec);
  dl::ImageSource source(reader, steps, 77);
  dl::PipelineConfig c;
  c.workers = 2;
  c.batch_size = 4;
  c.order = dl::Order::shuffled;
  c.source = &source;
  dl::Pipeline p(reader, c);
  // Sample 5 as the pipeline delivers it in epochs 0 and 1, and as computed here.
  auto byte_reader = dl::make_byte_reader(dl::ReadPath::pread);
  std::vector<std::uint8_t> jpeg;
  std::vector<char> scratch;
  std::uint64_t jpeg_bytes = 0;
  for (std::uint64_t i = 0; i < d.spec.samples; ++i) {
    reader.read_encoded(i, jpeg, *byte_reader, scratch);
    jpeg_bytes += jpeg.size();
  }
  reader.read_encoded(5, jpeg, *byte_reader, scratch);
  dl::DecodedImage image;
  codec->decode_rgb(jpeg, image);
  std::vector<float> augment_scratch;
  for (std::uint64_t epoch = 0; epoch < 2; ++epoch) {
    KeepSample keep(5);
    const auto r = p.run(&keep);
    EXPECT_EQ(r.bytes, 40u * (dl::k_augmented_image_bytes + 4));
    std::vector<std::uint16_t> want(dl::k_augmented_image_bytes / 2);
    dl::augment_cpu(image.rgb.data(), image.width, image.height,
                    dl::sample_crop_box(image.width, image.height, 77, epoch, 5), dl::k_crop_size,
                    want.data(), augment_scratch);
    EXPECT_EQ(keep.kept, want) << "epoch " << epoch;
    EXPECT_EQ(keep.label, dl::sample_label(d.spec.seed, 5));
    const dl::ImageWork w = source.take_work();
    EXPECT_EQ(w.images, 40u);
    EXPECT_EQ(w.jpeg_bytes, jpeg_bytes);
    EXPECT_GT(w.decode_s, 0);
    EXPECT_GT(w.busy_s, w.decode_s);  // reading and augmenting take time too
    // Each worker thread's buffers are kept for the next epoch, not made again.
    EXPECT_EQ(source.pooled_buffers(), 2u);
  }
  EXPECT_EQ(source.take_work().images, 0u);  // taken: nothing left
}

TEST(ImagePipelineJpeg, CutEpochTimesAndCountsOnlyItsBatchesAndTheCheckStillCoversEveryImage) {
  std::string reason;
  const dl::JpegCodec* codec = dl::JpegCodec::get(&reason);
  if (!codec) GTEST_SKIP() << reason;
  gpubench::TempDir tmp("dl-image-cut");
  const auto d = dl::ensure_dataset(tmp.path(), small_jpeg());  // 40 images, 10 batches of 4
  dl::DatasetReader reader(d, dl::ReadPath::pread);
  const dl::CpuImageSteps steps(*codec, d.spec);
  // What each sample's JPEG weighs, to check the bytes the cut epoch says it read.
  auto byte_reader = dl::make_byte_reader(dl::ReadPath::pread);
  std::vector<std::uint8_t> jpeg;
  std::vector<char> scratch;
  std::vector<std::uint64_t> jpeg_size(d.spec.samples);
  for (std::uint64_t i = 0; i < d.spec.samples; ++i) {
    reader.read_encoded(i, jpeg, *byte_reader, scratch);
    jpeg_size[i] = jpeg.size();
  }
  class Seen final : public dl::BatchSink {
   public:
    void begin(const dl::Batch& b) override {
      for (std::size_t i = 0; i < b.count; ++i) samples.push_back(b.sample(i));
    }
    std::vector<std::uint64_t> samples;
  };
  dl::ImageSource source(reader, steps, 5);
  dl::PipelineConfig c;
  c.workers = 2;
  c.batch_size = 4;
  c.order = dl::Order::shuffled;
  c.order_seed = 42;
  c.source = &source;
  c.max_batches = 3;
  dl::Pipeline p(reader, c);
  std::set<std::uint64_t> across_epochs;
  for (int epoch = 0; epoch < 2; ++epoch) {
    Seen seen;
    const auto r = p.run(&seen);
    EXPECT_EQ(r.batches, 3u);
    EXPECT_EQ(r.samples, 12u);
    EXPECT_EQ(r.bytes, 12u * (dl::k_augmented_image_bytes + 4));
    EXPECT_GT(r.wall_s, 0);
    ASSERT_EQ(seen.samples.size(), 12u);
    const std::set<std::uint64_t> distinct(seen.samples.begin(), seen.samples.end());
    EXPECT_EQ(distinct.size(), 12u);  // a prefix of a permutation: no sample twice
    // The workers counted the cut epoch's images and JPEG bytes, not the dataset's.
    std::uint64_t want_bytes = 0;
    for (std::uint64_t s : seen.samples) want_bytes += jpeg_size[s];
    const dl::ImageWork w = source.take_work();
    EXPECT_EQ(w.images, 12u);
    EXPECT_EQ(w.jpeg_bytes, want_bytes);
    across_epochs.insert(distinct.begin(), distinct.end());
  }
  // Shuffled: each epoch's cut is another random subset, not the first 12 samples every time.
  EXPECT_GT(across_epochs.size(), 12u);
  // The checking epoch of the same dataset (full epoch) still sees every image once.
  EXPECT_EQ(check_epoch(d, steps), "");
}
