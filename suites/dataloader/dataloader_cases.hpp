// The benchmark layer of the dataloader suite: which cases a profile runs, and the benchmark
// bodies. Everything measured lives in dataloader_core; this file only sizes, names and reports.
//
// Environment (read once, checked before any work; bad values exit 2):
//   GPUBENCH_DATA_DIR               where datasets are generated and cached
//   GPUBENCH_DATALOADER_WORKERS     worker sweep override, e.g. "1,2,8" (each 1..1024)
//   GPUBENCH_DATALOADER_DATASET_MIB bytes of samples per binary dataset, overrides the profile
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "suites/common/suite_support.hpp"
#include "suites/dataloader/dataset.hpp"
#include "suites/dataloader/read_paths.hpp"

namespace gpubench::dataloader {

constexpr std::size_t k_image_record_bytes = 3 * 224 * 224;  // one 224x224 RGB uint8 image
constexpr std::size_t k_small_record_bytes = 4096;

struct SuiteConfig {
  suite::Profile profile = suite::Profile::standard;
  std::filesystem::path data_dir;
  std::vector<int> workers;         // worker sweep: default_worker_sweep, or the override
  std::uint64_t dataset_bytes = 0;  // sample bytes per binary dataset (text formats use 1/4)
  std::vector<std::size_t> record_sizes;
  int iterations = 3;  // epochs per benchmark run
};

// Throws Error(bad_input) for an unusable data directory or malformed overrides.
SuiteConfig load_suite_config(suite::Profile profile);
// The default worker sweep: 1, 2, 4, ... below `usable_cpus` and `usable_cpus` itself
// (util/cpu_budget.hpp). Never more workers than CPUs: warm reads are memcpy out of the page
// cache, so extra workers time-slice the same cores and measure the scheduler (issue 23 item 21).
// GPUBENCH_DATALOADER_WORKERS still asks for more, e.g. to overlap cold reads' disk waits.
std::vector<int> default_worker_sweep(int usable_cpus);
// "1,2,4" -> {1,2,4}; throws Error(bad_input) on 0, > k_max_workers or junk.
std::vector<int> parse_worker_list(const std::string& text);
// The datasets the configured cases read.
std::vector<DatasetSpec> planned_datasets(const SuiteConfig& config);
// Refuses (Error(bad_input), with the numbers) when the datasets not yet cached need more space
// than the data directory has free.
void preflight(const SuiteConfig& config);
void register_dataloader_benchmarks(const SuiteConfig& config);

// What each registered benchmark does, for the run plan (dataloader_plan.cpp): the same list, in
// the same order and with the same names, as register_dataloader_benchmarks registers.
enum class CaseWork { memcpy_ceiling, seq_read, read, parse, generate, image, image_nvjpeg };
struct CaseOutline {
  std::string name;
  CaseWork work = CaseWork::read;
  int iterations = 1;       // Google Benchmark iterations per repetition
  std::uint64_t bytes = 0;  // bytes one iteration reads, parses or writes (memcpy: per thread)
  int workers = 1;          // threads or loader workers
  bool cold = false;        // page cache dropped before each epoch
  bool text = false;        // a text format (parsed, not just read)
  std::uint64_t step_us_total = 0;  // emulated training steps per iteration, microseconds
  std::uint64_t images = 0;         // image cases: images per timed epoch
  // decode:cpu image cases: images of one untimed warm-up epoch per repetition, and of the
  // checking epoch of the dataset (once per process: the first case of a dataset runs it, on
  // check_workers workers; 0 on the others).
  std::uint64_t warmup_images = 0;
  std::uint64_t checked_images = 0;
  int check_workers = 1;
  std::uint64_t image_pixels = 0;  // image cases (decode:cpu): pixels per image (width x height)
};
std::vector<CaseOutline> case_outlines(const SuiteConfig& config);
// The availability notes shown by --gpubench_info (io_uring, CUDA).
std::vector<std::string> availability_notes();

}  // namespace gpubench::dataloader
