// Which cases a profile runs: the sweep of read cases, their names and datasets, the space they
// need, and the outlines the run plan costs (registration is in dataloader_cases.cpp).
#include "suites/dataloader/dataloader_cases.hpp"

#include <algorithm>
#include <map>
#include <set>

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
// Each timed epoch of the image step cases takes max(12, k_image_step_batches_per_worker x
// workers) batches of 4 (the image cases take 8 per worker): the 5 ms step (800 images/s) sets
// the pace wherever the workers decode faster, so more batches per worker would buy step time,
// not information; 2 a worker still has every worker refill its slot at least once after the
// start-up. Standard plan on 2 cores: 12 batches at 1 and 2 workers (141 s, was 139 s).
constexpr std::uint64_t k_image_step_batches_per_worker = 2;

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

DatasetSpec image_spec_for(const SuiteConfig& config, Format format, int width, int height,
                           int sweep_workers) {
  DatasetSpec s;
  s.format = format;
  s.seed = k_seed;
  s.image_width = static_cast<std::uint32_t>(width);
  s.image_height = static_cast<std::uint32_t>(height);
  // The profile's floor: as many images as decode to a fifth of its dataset bytes (quick 32 MiB:
  // 11 of 500x375, standard 47, full 381), at least k_min_images (1280x960 in quick and
  // standard): a worker decodes and augments a few hundred such images per second, a thousand
  // times slower than it copies the same bytes. A dataset the worker sweep reads holds
  // image_batches_per_worker batches per worker at its largest count too (64 workers: 2048
  // images in standard), so no worker runs out of batches (README "Image pipeline").
  const std::uint64_t decoded =
      std::uint64_t{3} * static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
  const std::uint64_t sweep = image_batches_per_worker(config) * ImageCase{}.batch *
                              static_cast<std::uint64_t>(std::max(sweep_workers, 0));
  s.samples = std::max({k_min_images, config.dataset_bytes / 5 / decoded, sweep});
  // Shards of 16 MiB of decoded pixels (~2 MB of JPEG at 500x375): several per dataset even in
  // quick, so shard order and the per-file index matter as in a real WebDataset.
  s.samples_per_shard = std::max<std::uint64_t>(1, k_shard_bytes / decoded);
  s.record_bytes = 0;  // unused by JPEG datasets
  return s;
}

DatasetSpec image_spec_for(const SuiteConfig& config, const ImageCase& c) {
  // make_plan's worker sweep is of default ImageCases: their dataset is the sweep's.
  const ImageCase sweep;
  const bool swept = c.format == sweep.format && c.width == sweep.width && c.height == sweep.height;
  const int workers = swept && !config.workers.empty() ? config.workers.back() : 0;
  return image_spec_for(config, c.format, c.width, c.height, workers);
}

std::uint64_t image_batches_per_worker(const SuiteConfig& config) {
  return config.profile == Profile::quick ? 4 : 8;
}

std::uint64_t image_case_batches(const SuiteConfig& config, const ImageCase& c,
                                 const DatasetSpec& spec) {
  const std::uint64_t min_batches = config.profile == Profile::quick ? 8 : 12;
  const std::uint64_t epoch_batches =
      (spec.samples + c.batch - 1) / std::max<std::size_t>(c.batch, 1);
  const std::uint64_t wanted =
      std::max(min_batches, image_batches_per_worker(config) *
                                static_cast<std::uint64_t>(std::max(c.workers, 1)));
  const std::uint64_t cut = c.max_batches > 0 ? std::min(wanted, c.max_batches) : wanted;
  return std::min(epoch_batches, cut);
}

std::uint64_t image_warmup_batches(const ImageCase& c) {
  return static_cast<std::uint64_t>(std::max(c.workers, 1));
}

int image_check_workers(const SuiteConfig& config) {
  return config.workers.empty() ? 1 : config.workers.back();
}

int image_iterations(const SuiteConfig& config) {
  return config.profile == Profile::quick ? 1 : std::max(1, config.iterations / 2);
}

std::string image_name(const ImageCase& c) {
  return "dataloader/image/format:" + std::string(to_string(c.format)) +
         "/size:" + std::to_string(c.width) + "x" + std::to_string(c.height) +
         "/decode:cpu/path:" + to_string(c.path) + "/workers:" + std::to_string(c.workers) +
         (c.step_us > 0 ? "/step_us:" + std::to_string(c.step_us) + "/memory:pinned" : "") +
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
      // quick; io_uring at mid workers only in quick, which paid for the image cases, issue 41).
      for (ReadPath path : {ReadPath::pread, ReadPath::mmap, ReadPath::uring}) {
        if (quick && !image && path != ReadPath::pread) continue;
        for (int w : config.workers) {
          if (quick && !image && w != mid_workers) continue;
          if (quick && path == ReadPath::uring && w != mid_workers) continue;
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
      // Other formats, pread, warm; the worker sweep outside quick. Text formats at the first
      // batch size only outside full: parsing sets their pace, and the batch size does not
      // change it (this paid for the image cases in standard, issue 41).
      for (Format f : all_formats()) {
        if (f == Format::raw) continue;
        if (is_text(f) && config.profile != Profile::full &&
            batch != batches_for(config, rb).front()) {
          continue;
        }
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
      // raw through pread and mmap, warm and cold, in both orders (quick: shard_shuffled through
      // mmap only, which paid for the image cases, issue 41); every other format warm through
      // pread, shuffled (and shard_shuffled for the shard formats WebDataset-style loaders
      // shuffle that way, outside quick).
      if (batch == batches_for(config, rb).front()) {
        for (Order order : {Order::shuffled, Order::shard_shuffled}) {
          for (ReadPath path : {ReadPath::pread, ReadPath::mmap}) {
            if (quick && order == Order::shard_shuffled && path == ReadPath::pread) continue;
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
      // An emulated training step of 1 ms (sleep): loader-bound, at 1 and mid workers. (The 10 ms
      // step at mid workers it had made way for the GPU-busy steps below, issue 41.)
      for (int w : {1, mid_workers}) {
        ReadCase c;
        c.workers = w;
        c.record_bytes = rb;
        c.batch = batch;
        c.step_us = 1000;
        plan.reads.emplace_back("train", c);
        if (w == mid_workers) break;
      }
      // GPU busy (issue 41): steps of 5, 20 and 100 ms, a GEMM on the GPU where there is one
      // (sleeps otherwise), at the first batch size. 5 ms at every worker count, for the knee;
      // 20 and 100 ms at mid workers. Outside quick the epoch stops after 22, 8 and 3 batches
      // (110, 160 and 300 ms of steps; the 10 ms step slept 700 ms at both batch sizes); quick runs
      // only the 5 ms step, 12 of the epoch's 14 batches (2 x 60 ms where the 10 ms step at 2
      // workers slept 140 ms).
      if (batch == batches_for(config, rb).front()) {
        struct GpuStep {
          int step_us;
          std::uint64_t max_batches;
          bool every_worker_count;
        };
        const std::vector<GpuStep> steps =
            quick ? std::vector<GpuStep>{{5000, 12, true}}
                  : std::vector<GpuStep>{{5000, 22, true}, {20000, 8, false}, {100000, 3, false}};
        for (const GpuStep& g : steps) {
          for (int w : config.workers) {
            if (!g.every_worker_count && w != mid_workers) continue;
            ReadCase c;
            c.workers = w;
            c.record_bytes = rb;
            c.batch = batch;
            c.step_us = g.step_us;
            c.gpu_step = true;
            c.max_batches = g.max_batches;
            plan.reads.emplace_back("train", c);
          }
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
  // mid workers that change one thing each: TFRecord, mmap (outside quick), 1280x960 images, and
  // a cold cache in sequential and shuffled order.
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
  // Not in quick: with its own checking epoch (once per dataset and read path) it did not fit the
  // quick share; the raw read cases measure mmap against pread there, and decoding dominates here.
  if (config.profile != Profile::quick) {
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
  // GPU busy on JPEG input (issue 41 item 4): the headline pipeline feeding the 5 ms step at
  // every worker count, so the report's knee says at which images/s the GPU starts waiting.
  // Not in quick (its dataloader share has no room); the epoch is cut shorter than the image
  // cases' (k_image_step_batches_per_worker).
  if (!quick) {
    for (int w : config.workers) {
      ImageCase c;
      c.workers = w;
      c.step_us = 5000;
      c.max_batches = std::max<std::uint64_t>(
          12, k_image_step_batches_per_worker * static_cast<std::uint64_t>(w));
      plan.images.push_back(c);
    }
  }
  return plan;
}

std::vector<std::string> gpu_step_run_names(const SuiteConfig& config) {
  std::vector<std::string> names;
  const Plan plan = make_plan(config);
  const std::string suffix = "/manual_time";
  for (const auto& [kind, c] : plan.reads) {
    if (!c.gpu_step) continue;
    names.push_back(read_name(kind, c) + "/iterations:" + std::to_string(config.iterations) +
                    suffix);
  }
  for (const ImageCase& c : plan.images) {
    if (c.step_us <= 0) continue;
    names.push_back(image_name(c) + "/iterations:" + std::to_string(image_iterations(config)) +
                    suffix);
  }
  return names;
}

std::vector<NvjpegCase> nvjpeg_cases(const SuiteConfig& config) {
  // nvJPEG's batched decode of the headline image pipeline (wds, 500x375, shuffled, pread) at mid
  // workers: the workers only read JPEG bytes, so their sweep belongs to the CPU-decode cases.
  // Not in quick: the plan's dataloader share has no room for it there (issue 41). Standard: 128
  // images (2 batches of 64, one nvjpegDecodeBatched call each), 2 epochs per repetition, about
  // 1.3 s per execution in the plan; full: 1024 images and 1280x960 at 256, every epoch the
  // profile times. The validation epoch decodes every image on one CPU thread too.
  std::vector<NvjpegCase> out;
  if (config.profile == Profile::quick) return out;
  const bool full = config.profile == Profile::full;
  for (const auto& [w, h] : {std::pair{500u, 375u}, std::pair{1280u, 960u}}) {
    if (!full && w != 500) continue;
    NvjpegCase c;
    c.spec.format = Format::wds;
    c.spec.seed = k_seed;
    c.spec.image_width = w;
    c.spec.image_height = h;
    c.spec.samples = !full ? 128 : w == 500 ? 1024 : 256;
    c.spec.samples_per_shard = 128;
    c.workers = std::min(2, config.workers.back());
    c.batch = 64;
    c.order = Order::shuffled;
    c.seed = k_seed;
    c.iterations = full ? config.iterations : 2;
    out.push_back(c);
  }
  return out;
}

}  // namespace detail

std::vector<DatasetSpec> planned_datasets(const SuiteConfig& config) {
  std::map<std::string, DatasetSpec> unique;
  for (const auto& [kind, c] : make_plan(config).reads) {
    const DatasetSpec s = spec_for(config, c.format, c.record_bytes);
    unique.emplace(s.directory_name(), s);
  }
  for (const auto& c : make_plan(config).images) {
    const DatasetSpec s = image_spec_for(config, c);
    unique.emplace(s.directory_name(), s);
  }
  for (const NvjpegCase& c : detail::nvjpeg_cases(config)) {
    unique.emplace(c.spec.directory_name(), c.spec);
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
    const std::uint64_t epoch_batches =
        (spec.samples + c.batch - 1) / std::max<std::size_t>(c.batch, 1);
    const std::uint64_t batches =
        c.max_batches > 0 ? std::min(epoch_batches, c.max_batches) : epoch_batches;
    if (batches < epoch_batches) o.bytes = o.bytes / epoch_batches * batches;
    o.step_us_total = batches * static_cast<std::uint64_t>(c.step_us);
    out.push_back(o);
  }
  std::set<std::string> checked;  // image datasets and read paths whose check an earlier case ran
  for (const auto& c : make_plan(config).images) {
    const DatasetSpec spec = image_spec_for(config, c);
    CaseOutline o{image_name(c), CaseWork::image, detail::image_iterations(config), 0, c.workers};
    o.cold = c.cold;
    o.images = std::min<std::uint64_t>(spec.samples,
                                       detail::image_case_batches(config, c, spec) * c.batch);
    o.warmup_images =
        std::min<std::uint64_t>(spec.samples, detail::image_warmup_batches(c) * c.batch);
    if (checked.insert(spec.directory_name() + "|" + to_string(c.path)).second) {
      o.checked_images = spec.samples;
      o.check_workers = detail::image_check_workers(config);
    }
    o.image_pixels = static_cast<std::uint64_t>(c.width) * static_cast<std::uint64_t>(c.height);
    o.step_us_total =
        (o.images + c.batch - 1) / c.batch * static_cast<std::uint64_t>(std::max(c.step_us, 0));
    out.push_back(o);
  }
  for (const NvjpegCase& c : detail::nvjpeg_cases(config)) {
    // JPEG bytes per epoch: the generator aims at about 110 KB per 500x375 image, 1/5 of its
    // RGB bytes; the same ratio at other sizes.
    const std::uint64_t jpeg_bytes =
        c.spec.samples * c.spec.image_width * c.spec.image_height * 3 / 5;
    CaseOutline o{nvjpeg_case_name(c), CaseWork::image_nvjpeg, c.iterations, jpeg_bytes, c.workers};
    o.images = c.spec.samples;
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
