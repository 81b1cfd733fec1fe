// Internal to suites/dataloader/dataloader_*.cpp: what the benchmark bodies and registration
// (dataloader_cases.cpp) share with the case sweep (dataloader_sweep.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "suites/dataloader/dataloader_cases.hpp"
#include "suites/dataloader/dataset.hpp"
#include "suites/dataloader/host_memory.hpp"
#include "suites/dataloader/image_gpu.hpp"
#include "suites/dataloader/read_paths.hpp"
#include "suites/dataloader/sample_order.hpp"

namespace gpubench::dataloader::detail {

constexpr std::size_t k_image_bytes = k_image_record_bytes;
constexpr std::uint64_t k_seed = 42;
// Parse cases time 8 MiB of text this many times per pass: a single-thread CPU rate settles in a
// few, and the profile's iterations give 4; 2 (was 5) paid for the shuffled-order cases in the
// plan, 1 for the image cases (issue 41).
constexpr int k_parse_iterations_per_pass = 1;

struct ReadCase {
  Format format = Format::raw;
  ReadPath path = ReadPath::pread;
  int workers = 2;
  std::size_t record_bytes = k_image_bytes;
  std::size_t batch = 16;
  bool cold = false;
  int step_us = 0;
  bool h2d = false;
  HostMemory memory = HostMemory::page_aligned;
  Order order = Order::sequential;
  // GPU busy (issue 41): the step is a GEMM on the GPU fed through pinned staging and H2D copies
  // (training_step.hpp), or the emulated sleep without a GPU; max_batches > 0 stops the epoch
  // there (long steps).
  bool gpu_step = false;
  std::uint64_t max_batches = 0;
};

// An image pipeline case (issue 41): JPEG read, CPU decode, crop, augmentation to bf16.
struct ImageCase {
  Format format = Format::wds;  // wds or tfrecord
  int width = 500;              // of the dataset's images, pixels
  int height = 375;
  ReadPath path = ReadPath::pread;
  int workers = 2;
  Order order = Order::shuffled;
  bool cold = false;
  // Augmented images per staging slot (4 x 301056 bytes). Small, so the quick profile's few
  // images still make a batch per worker; a batch costs ~10 ms of decode, which hides the
  // per-batch hand-over (microseconds) at any size.
  std::size_t batch = 4;
  // GPU busy (issue 41 item 4): a training step of step_us per batch (training_step.hpp), a
  // GEMM on the GPU fed through pinned staging and H2D copies, or the emulated sleep without a
  // GPU; 0: no step. max_batches > 0 cuts the timed epoch there (plan share).
  int step_us = 0;
  std::uint64_t max_batches = 0;
};

struct Plan {
  std::vector<std::pair<std::string, ReadCase>> reads;  // (kind, case)
  std::vector<ImageCase> images;
};

// The dataset a case of `format` and `record_bytes` reads, sized by the profile.
DatasetSpec spec_for(const SuiteConfig& config, Format format, std::size_t record_bytes);
// The benchmark name of a read case of `kind` ("read", "train", "h2d").
std::string read_name(const std::string& kind, const ReadCase& c);
// The JPEG dataset of `format` with images of width x height: as many images as decode to a
// fifth of the profile's dataset bytes, at least 8, and, when the worker sweep reads it
// (`sweep_workers` > 0, the largest count), image_batches_per_worker batches of 4 per worker.
DatasetSpec image_spec_for(const SuiteConfig& config, Format format, int width, int height,
                           int sweep_workers);
// The dataset case `c` reads: the headline dataset (wds 500x375, which the sweep reads) sized
// for the sweep's largest worker count, the others by the profile alone.
DatasetSpec image_spec_for(const SuiteConfig& config, const ImageCase& c);
// Batches per worker an image dataset holds at the sweep's largest count, and each timed epoch
// takes (issue 41): enough that every worker has several and thread start-up (milliseconds)
// stays small against an epoch. 4 in quick (its plan share), 8 otherwise.
std::uint64_t image_batches_per_worker(const SuiteConfig& config);
// Batches one timed epoch of image case `c` takes on its dataset `spec`: max(8 in quick else 12,
// image_batches_per_worker x workers), at most the whole epoch. A shuffled epoch cut there is a
// random subset of the dataset, and the case's time stays about constant across worker counts.
std::uint64_t image_case_batches(const SuiteConfig& config, const ImageCase& c,
                                 const DatasetSpec& spec);
// `dataloader/image/format:F/size:WxH/decode:cpu/path:P/workers:W/order:O/cache:C`; with a
// step, `.../workers:W/step_us:S/memory:pinned/order:O/...` (as the h2d cases name them).
std::string image_name(const ImageCase& c);
// Batches of the untimed epoch each repetition of image case `c` runs first on its timed
// pipeline's image source: one per worker, which sizes the workers' buffers (the checking epoch
// is once per dataset and process).
std::uint64_t image_warmup_batches(const ImageCase& c);
// Workers of an image dataset's checking epoch: the sweep's largest count (it runs once).
int image_check_workers(const SuiteConfig& config);
// Timed epochs per repetition of an image case: half the read cases' (each costs seconds), 1 in
// quick.
int image_iterations(const SuiteConfig& config);
// The read cases the configuration sweeps, in registration order.
Plan make_plan(const SuiteConfig& config);
// Google Benchmark's run names of the cases with a GPU-busy step (train and image), for the
// suite main's question whether the run's filter selects one (gemm_step_cases_run).
std::vector<std::string> gpu_step_run_names(const SuiteConfig& config);
// The GPU-decode image cases (`decode:nvjpeg`), in registration order.
std::vector<NvjpegCase> nvjpeg_cases(const SuiteConfig& config);

}  // namespace gpubench::dataloader::detail
