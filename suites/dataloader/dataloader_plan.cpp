#include "suites/dataloader/dataloader_plan.hpp"

#include <algorithm>
#include <filesystem>

#include "suites/dataloader/image_pipeline.hpp"

namespace gpubench::dataloader {
namespace {

// augment_reference of one image costs about this many images through the pipeline (4.5 ms
// against 2.2 ms at 500x375 on the build VM, issue 41; rounded up).
constexpr double k_reference_augment_images = 3;
// The checking epoch of an image case costs this many timed epochs (measured on the build VM,
// issue 41: 59 images, process CPU time less two timed epochs: 1.1; rounded up).
constexpr double k_check_epochs = 1.5;
// Planning assumptions for the nvJPEG cases (not measurements; no GPU measured them here): the
// batched GPU decode at 2000 images/s of 500x375 (110 KB) JPEGs, i.e. 220 MB/s of JPEG input,
// for one data-centre GPU; the validation epoch (copy back, CPU decode of every image, the
// augmentation reference of every 16th) at 50 MB/s of JPEG input on one thread: libjpeg-turbo
// alone decoded 66 MB/s of them (595 images/s) on one thread of the 2-core CI machine.
constexpr double k_plan_nvjpeg_bytes_per_s = 220e6;
constexpr double k_plan_cpu_check_bytes_per_s = 50e6;

}  // namespace

double planned_case_seconds(const CaseOutline& c, int repetitions, const suite::ModelRates& r) {
  const auto bytes = static_cast<double>(c.bytes);
  const double workers = std::max(c.workers, 1);
  double iteration_s = 0;
  switch (c.work) {
    case CaseWork::memcpy_ceiling:
      // Per thread and iteration: two fresh buffers first touched (memset), then one memcpy.
      iteration_s = suite::transfer_seconds(2 * bytes, r.host_fill_bytes_per_s) +
                    suite::transfer_seconds(
                        bytes * workers,
                        std::min(workers * r.host_thread_bytes_per_s, r.host_memory_bytes_per_s));
      break;
    case CaseWork::seq_read:
      iteration_s = suite::transfer_seconds(bytes, r.page_cache_bytes_per_s);
      break;
    case CaseWork::parse:
      iteration_s = suite::transfer_seconds(bytes, r.text_parse_bytes_per_s);
      break;
    case CaseWork::generate:
      iteration_s = suite::transfer_seconds(bytes, r.generate_bytes_per_s);
      break;
    case CaseWork::image:
      break;  // below, with the checking epoch
    case CaseWork::image_nvjpeg: {
      // Workers read the JPEG bytes while the GPU decodes: the slower sets the pace. The
      // validation epoch (GPU decode, copy back, CPU decode of every image) runs once per
      // process, at the CPU decode's rate; each repetition warms up with one untimed epoch.
      const double read_s = suite::transfer_seconds(
          bytes, std::min(workers * r.page_cache_worker_bytes_per_s, r.page_cache_bytes_per_s));
      iteration_s = std::max(read_s, bytes / k_plan_nvjpeg_bytes_per_s);
      suite::CaseCost cost;
      cost.once_s = bytes / k_plan_cpu_check_bytes_per_s;
      cost.setup_s = workers * r.per_allocation_s;
      cost.warmup_s = iteration_s;  // one untimed epoch per repetition
      cost.sample_s = iteration_s;
      cost.samples = c.iterations;
      return suite::case_seconds(cost, repetitions, r);
    }
    case CaseWork::read: {
      const double read_rate =
          c.cold ? r.disk_read_bytes_per_s
                 : std::min(workers * r.page_cache_worker_bytes_per_s, r.page_cache_bytes_per_s);
      double read_s = suite::transfer_seconds(bytes, read_rate);
      if (c.text) read_s += suite::transfer_seconds(bytes, workers * r.text_parse_bytes_per_s);
      // Training steps overlap the loading: the slower of the two sets the pace.
      iteration_s = std::max(read_s, static_cast<double>(c.step_us_total) * 1e-6);
      break;
    }
  }
  suite::CaseCost cost;
  if (c.work == CaseWork::image) {
    // Decode-bound: each image costs its pixels at the 500x375 rate; the reads are the files'
    // compressed bytes (a tenth of the pixels), which the decode hides.
    const double image_s =
        static_cast<double>(c.image_pixels) / (500.0 * 375.0) / r.jpeg_images_per_worker_s;
    iteration_s = static_cast<double>(c.images) * image_s / workers;
    // A training step per batch overlaps the decode: the slower sets the pace.
    iteration_s = std::max(iteration_s, static_cast<double>(c.step_us_total) * 1e-6);
    // One untimed warm-up epoch of a batch per worker each repetition; before the dataset's
    // first case, its checking epoch (once per process): the same decode and augmentation plus
    // the generator's image and its comparison, k_check_epochs epochs' worth, and the reference
    // augmentation of every k_reference_every-th image (k_reference_augment_images each).
    cost.warmup_s = static_cast<double>(c.warmup_images) * image_s / workers;
    const double check_workers = std::max(c.check_workers, 1);
    const double references =
        static_cast<double>((c.checked_images + k_reference_every - 1) / k_reference_every);
    cost.once_s = (k_check_epochs * static_cast<double>(c.checked_images) +
                   references * k_reference_augment_images) *
                  image_s / check_workers;
  }
  cost.setup_s = workers * r.per_allocation_s;  // workers started, staging buffers allocated
  cost.sample_s = iteration_s;
  cost.samples = c.iterations;
  return suite::case_seconds(cost, repetitions, r);
}

suite::SuitePlan plan_dataloader(const suite::PlanRequest& request, const SuiteConfig& config) {
  const suite::ModelRates& r = suite::reference_rates();
  const int repetitions = suite::repetitions_of(request);
  suite::SuitePlan plan;
  plan.fixed_s = r.process_start_s;
  // Datasets not cached yet are generated before their first case.
  std::uint64_t to_generate = 0;
  for (const DatasetSpec& s : planned_datasets(config)) {
    std::error_code ec;
    if (!std::filesystem::exists(config.data_dir / s.directory_name() / "manifest.json", ec)) {
      to_generate += s.estimated_disk_bytes();
    }
  }
  plan.fixed_s += suite::transfer_seconds(static_cast<double>(to_generate), r.generate_bytes_per_s);
  plan.disk_bytes = to_generate;
  for (const CaseOutline& c : case_outlines(config)) {
    plan.cases.push_back({c.name, planned_case_seconds(c, repetitions, r)});
  }
  plan.assumptions = "host input pipeline, worker sweep of this machine (up to " +
                     std::to_string(config.workers.empty() ? 0 : config.workers.back()) +
                     " workers), " + std::to_string(config.dataset_bytes >> 20) +
                     " MiB per binary dataset read " + std::to_string(config.iterations) +
                     " times per repetition; " + std::to_string(to_generate >> 20) +
                     " MiB of datasets not cached yet are generated first; page cache " +
                     std::to_string(static_cast<int>(r.page_cache_worker_bytes_per_s / 1e9)) +
                     " GB/s per worker, disk " +
                     std::to_string(static_cast<int>(r.disk_read_bytes_per_s / 1e9)) +
                     " GB/s (cold), text parsing " +
                     std::to_string(static_cast<int>(r.text_parse_bytes_per_s / 1e6)) +
                     " MB/s per worker, JPEG read, decode and augmentation " +
                     std::to_string(static_cast<int>(r.jpeg_images_per_worker_s)) +
                     " images/s per worker (500x375); " + suite::rates_summary(r);
  return plan;
}

}  // namespace gpubench::dataloader
