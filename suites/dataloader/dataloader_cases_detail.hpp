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
// few; 2 (was 5) paid for the shuffled-order cases in the plan (issue 41).
constexpr int k_parse_iterations_per_pass = 2;

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

struct Plan {
  std::vector<std::pair<std::string, ReadCase>> reads;  // (kind, case)
};

// The dataset a case of `format` and `record_bytes` reads, sized by the profile.
DatasetSpec spec_for(const SuiteConfig& config, Format format, std::size_t record_bytes);
// The benchmark name of a read case of `kind` ("read", "train", "h2d").
std::string read_name(const std::string& kind, const ReadCase& c);
// The read cases the configuration sweeps, in registration order.
Plan make_plan(const SuiteConfig& config);
// The GPU-decode image cases (`decode:nvjpeg`), in registration order.
std::vector<NvjpegCase> nvjpeg_cases(const SuiteConfig& config);

}  // namespace gpubench::dataloader::detail
