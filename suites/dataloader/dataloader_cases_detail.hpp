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
};

struct Plan {
  std::vector<std::pair<std::string, ReadCase>> reads;  // (kind, case)
  std::vector<ImageCase> images;
};

// The dataset a case of `format` and `record_bytes` reads, sized by the profile.
DatasetSpec spec_for(const SuiteConfig& config, Format format, std::size_t record_bytes);
// The benchmark name of a read case of `kind` ("read", "train", "h2d").
std::string read_name(const std::string& kind, const ReadCase& c);
// The JPEG dataset of `format` with images of width x height, sized by the profile.
DatasetSpec image_spec_for(const SuiteConfig& config, Format format, int width, int height);
// `dataloader/image/format:F/size:WxH/decode:cpu/path:P/workers:W/order:O/cache:C`.
std::string image_name(const ImageCase& c);
// Timed epochs per repetition of an image case: half the read cases' (each costs seconds), 1 in
// quick.
int image_iterations(const SuiteConfig& config);
// The read cases the configuration sweeps, in registration order.
Plan make_plan(const SuiteConfig& config);
// The GPU-decode image cases (`decode:nvjpeg`), in registration order.
std::vector<NvjpegCase> nvjpeg_cases(const SuiteConfig& config);

}  // namespace gpubench::dataloader::detail
