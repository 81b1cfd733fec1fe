// Which cases a profile runs: the sweep of read cases, their names and datasets, the space they
// need, and the outlines the run plan costs (registration is in dataloader_cases.cpp).
#include "suites/dataloader/dataloader_cases.hpp"

#include <algorithm>
#include <map>

#include "suites/dataloader/dataloader_cases_detail.hpp"

namespace gpubench::dataloader {
namespace {

using detail::image_name;
using detail::image_spec_for;
using detail::ImageCase;
using detail::k_image_bytes;
using detail::k_parse_iterations_per_pass;
using detail::make_plan;
using detail::read_name;
using detail::spec_for;
using suite::Profile;
constexpr std::uint64_t k_shard_bytes = 16u << 20;  // target shard size (sample bytes)
constexpr std::uint64_t k_min_images = 8;           // an image dataset's floor: one batch

bool is_text(Format f) {
  return f == Format::csv || f == Format::jsonl;
}

std::vector<std::size_t> batches_for(const SuiteConfig& config, std::size_t record_bytes) {
  const bool quick = config.profile == Profile::quick;
  if (record_bytes >= k_image_bytes)
    return quick ? std::vector<std::size_t>{16} : std::vector<std::size_t>{16, 64};
  return quick ? std::vector<std::size_t>{256} : std::vector<std::size_t>{64, 512};
}

}  // namespace

namespace detail {

DatasetSpec spec_for(const SuiteConfig& config, Format format, std::size_t record_bytes) {
  DatasetSpec s;
  s.format = format;
  s.seed = k_seed;
  s.record_bytes = record_bytes;
  // Text is ~3.6 bytes per value on disk and slow to generate: a quarter of the samples.
  std::uint64_t bytes = is_text(format) ? config.dataset_bytes / 4 : config.dataset_bytes;
  // Small records measure per-request cost, which half the bytes, at most 32 MiB, shows as
  // well (4096 samples of 4 KiB in quick, 8192 in standard); this paid for the shuffled-order
  // cases and the two new formats' datasets in the plan (issue 41).
  if (record_bytes < k_image_bytes && config.profile != Profile::full) {
    bytes = std::min<std::uint64_t>(bytes / 2, std::uint64_t{32} << 20);
  }
  s.samples = std::max<std::uint64_t>(1, bytes / record_bytes);
  s.samples_per_shard = std::max<std::uint64_t>(1, k_shard_bytes / record_bytes);
  return s;
}

DatasetSpec image_spec_for(const SuiteConfig& config, Format format, int width, int height) {
  DatasetSpec s;
  s.format = format;
  s.seed = k_seed;
  s.image_width = static_cast<std::uint32_t>(width);
  s.image_height = static_cast<std::uint32_t>(height);
  // As many images as decode to a quarter of the profile's dataset bytes (quick 32 MiB: 14 of
  // 500x375, standard 59, full 477), at least k_min_images (1280x960 in quick and standard): a
  // worker decodes and augments a few hundred such images per second, a thousand times slower
  // than it copies the same bytes, so this is what fits the plan (README "Image pipeline").
  const std::uint64_t decoded =
      std::uint64_t{3} * static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
  s.samples = std::max<std::uint64_t>(k_min_images, config.dataset_bytes / 4 / decoded);
  // Shards of 16 MiB of decoded pixels (~2 MB of JPEG at 500x375): several per dataset even in
  // quick, so shard order and the per-file index matter as in a real WebDataset.
  s.samples_per_shard = std::max<std::uint64_t>(1, k_shard_bytes / decoded);
  s.record_bytes = 0;  // unused by JPEG datasets
  return s;
}

int image_iterations(const SuiteConfig& config) {
  return std::max(1, config.iterations / 2);
}

std::string image_name(const ImageCase& c) {
  return "dataloader/image/format:" + std::string(to_string(c.format)) +
         "/size:" + std::to_string(c.width) + "x" + std::to_string(c.height) +
         "/decode:cpu/path:" + to_string(c.path) + "/workers:" + std::to_string(c.workers) +
         "/order:" + to_string(c.order) + (c.cold ? "/cache:cold" : "/cache:warm");
}

std::string read_name(const std::string& kind, const ReadCase& c) {
  std::string n = "dataloader/" + kind + "/format:" + to_string(c.format) +
                  "/path:" + to_string(c.path) + "/workers:" + std::to_string(c.workers) +
                  "/record_bytes:" + std::to_string(c.record_bytes) +
                  "/batch:" + std::to_string(c.batch);
  if (kind == "train" || kind == "h2d") n += "/step_us:" + std::to_string(c.step_us);
  if (kind == "h2d") n += std::string("/memory:") + to_string(c.memory);
  n += std::string("/order:") + to_string(c.order);
  n += c.cold ? "/cache:cold" : "/cache:warm";
  return n;
}

Plan make_plan(const SuiteConfig& config) {
  Plan plan;
  const bool quick = config.profile == Profile::quick;
  const int mid_workers = std::min(2, config.workers.back());
  for (std::size_t rb : config.record_sizes) {
    const bool image = rb == k_image_bytes;
    for (std::size_t batch : batches_for(config, rb)) {
      // Raw binary: every read path x worker sweep x warm/cold (the small record: pread only in
      // quick).
      for (ReadPath path : {ReadPath::pread, ReadPath::mmap, ReadPath::uring}) {
        if (quick && !image && path != ReadPath::pread) continue;
        for (int w : config.workers) {
          if (quick && !image && w != mid_workers) continue;
          for (bool cold : {false, true}) {
            ReadCase c;
            c.path = path;
            c.workers = w;
            c.record_bytes = rb;
            c.batch = batch;
            c.cold = cold;
            plan.reads.emplace_back("read", c);
          }
        }
      }
      if (!image) continue;
      // Other formats, pread, warm; the worker sweep outside quick.
      for (Format f : all_formats()) {
        if (f == Format::raw) continue;
        for (int w : config.workers) {
          if (quick && w != mid_workers) continue;
          ReadCase c;
          c.format = f;
          c.workers = w;
          c.record_bytes = rb;
          c.batch = batch;
          plan.reads.emplace_back("read", c);
        }
      }
      // Shuffled access (a training epoch's order), at the first batch size and mid workers:
      // raw through pread and mmap, warm and cold, in both orders; every other format warm
      // through pread, shuffled (and shard_shuffled for the shard formats WebDataset-style
      // loaders shuffle that way, outside quick).
      if (batch == batches_for(config, rb).front()) {
        for (Order order : {Order::shuffled, Order::shard_shuffled}) {
          for (ReadPath path : {ReadPath::pread, ReadPath::mmap}) {
            for (bool cold : {false, true}) {
              ReadCase c;
              c.path = path;
              c.workers = mid_workers;
              c.record_bytes = rb;
              c.batch = batch;
              c.cold = cold;
              c.order = order;
              plan.reads.emplace_back("read", c);
            }
          }
          for (Format f : all_formats()) {
            if (f == Format::raw) continue;
            const bool shard_format =
                f == Format::record || f == Format::tfrecord || f == Format::wds;
            if (order == Order::shard_shuffled && (quick || !shard_format)) continue;
            ReadCase c;
            c.format = f;
            c.workers = mid_workers;
            c.record_bytes = rb;
            c.batch = batch;
            c.order = order;
            plan.reads.emplace_back("read", c);
          }
        }
      }
      // An emulated training step: loader-bound (short step) and compute-bound (long step).
      // The compute-bound step runs at mid workers only: its steps are sleeps (56 x 10 ms per
      // epoch at batch 16 in standard), and whether one worker keeps up with a step is what the
      // 1 ms step at 1 worker already shows; this paid for the shuffled cases (issue 41).
      for (int step : {1000, 10000}) {
        for (int w : {1, mid_workers}) {
          if (step == 10000 && w == 1 && mid_workers != 1) continue;
          ReadCase c;
          c.workers = w;
          c.record_bytes = rb;
          c.batch = batch;
          c.step_us = step;
          plan.reads.emplace_back("train", c);
          if (w == mid_workers) break;
        }
      }
      // GPU: pinned vs pageable staging with double-buffered H2D copies.
      for (HostMemory m : {HostMemory::pinned, HostMemory::page_aligned}) {
        ReadCase c;
        c.workers = mid_workers;
        c.record_bytes = rb;
        c.batch = batch;
        c.step_us = 1000;
        c.h2d = true;
        c.memory = m;
        plan.reads.emplace_back("h2d", c);
      }
    }
  }
  // The image pipeline (issue 41): the worker sweep of WebDataset 500x375 JPEGs through pread in
  // a shuffled epoch, warm (the headline, and what worker sizing reads), then single points at
  // mid workers that change one thing each: TFRecord, mmap, 1280x960 images, and a cold cache in
  // sequential and shuffled order.
  for (int w : config.workers) {
    ImageCase c;
    c.workers = w;
    plan.images.push_back(c);
  }
  ImageCase mid;
  mid.workers = mid_workers;
  {
    ImageCase c = mid;
    c.format = Format::tfrecord;
    plan.images.push_back(c);
  }
  {
    ImageCase c = mid;
    c.path = ReadPath::mmap;
    plan.images.push_back(c);
  }
  {
    ImageCase c = mid;
    c.width = 1280;
    c.height = 960;
    plan.images.push_back(c);
  }
  for (Order order : {Order::sequential, Order::shuffled}) {
    ImageCase c = mid;
    c.order = order;
    c.cold = true;
    plan.images.push_back(c);
  }
  return plan;
}

}  // namespace detail

std::vector<DatasetSpec> planned_datasets(const SuiteConfig& config) {
  std::map<std::string, DatasetSpec> unique;
  for (const auto& [kind, c] : make_plan(config).reads) {
    const DatasetSpec s = spec_for(config, c.format, c.record_bytes);
    unique.emplace(s.directory_name(), s);
  }
  for (const auto& c : make_plan(config).images) {
    const DatasetSpec s = image_spec_for(config, c.format, c.width, c.height);
    unique.emplace(s.directory_name(), s);
  }
  std::vector<DatasetSpec> out;
  for (auto& [name, s] : unique) out.push_back(s);
  return out;
}

void preflight(const SuiteConfig& config) {
  std::uint64_t needed = 0;
  for (const DatasetSpec& s : planned_datasets(config)) {
    std::error_code ec;
    if (!std::filesystem::exists(config.data_dir / s.directory_name() / "manifest.json", ec)) {
      needed += s.estimated_disk_bytes();
    }
  }
  check_free_space(config.data_dir, needed);
}

std::vector<CaseOutline> case_outlines(const SuiteConfig& config) {
  std::vector<CaseOutline> out;
  const int iters = config.iterations;
  for (int w : config.workers) {
    out.push_back({"dataloader/ceiling/kind:memcpy/threads:" + std::to_string(w),
                   CaseWork::memcpy_ceiling, iters, 64u << 20, w});
  }
  for (std::size_t rb : config.record_sizes) {
    out.push_back({"dataloader/ceiling/kind:seq_read/format:raw/record_bytes:" + std::to_string(rb),
                   CaseWork::seq_read, iters, spec_for(config, Format::raw, rb).samples * rb, 1});
  }
  for (const auto& [kind, c] : make_plan(config).reads) {
    const DatasetSpec spec = spec_for(config, c.format, c.record_bytes);
    CaseOutline o{read_name(kind, c), CaseWork::read, iters, spec.samples * c.record_bytes,
                  c.workers};
    o.cold = c.cold;
    o.text = is_text(c.format);
    const std::uint64_t batches = (spec.samples + c.batch - 1) / std::max<std::size_t>(c.batch, 1);
    o.step_us_total = batches * static_cast<std::uint64_t>(c.step_us);
    out.push_back(o);
  }
  for (const auto& c : make_plan(config).images) {
    const DatasetSpec spec = image_spec_for(config, c.format, c.width, c.height);
    CaseOutline o{image_name(c), CaseWork::image, detail::image_iterations(config), 0, c.workers};
    o.cold = c.cold;
    o.images = spec.samples;
    o.image_pixels = static_cast<std::uint64_t>(c.width) * static_cast<std::uint64_t>(c.height);
    out.push_back(o);
  }
  for (Format f : {Format::csv, Format::jsonl}) {
    CaseOutline o{"dataloader/parse/format:" + std::string(to_string(f)) +
                      "/record_bytes:" + std::to_string(k_image_bytes),
                  CaseWork::parse, k_parse_iterations_per_pass * iters, 8u << 20, 1};
    o.text = true;
    out.push_back(o);
  }
  const std::uint64_t mib = config.profile == Profile::full       ? 1024
                            : config.profile == Profile::standard ? 256
                                                                  : 32;
  out.push_back({"dataloader/generate/format:raw/MiB:" + std::to_string(mib), CaseWork::generate, 1,
                 mib << 20, 1});
  return out;
}

}  // namespace gpubench::dataloader
