// Expected hardware (issue 23): a server that lost a GPU must not pass. What a run should have
// (`--expect-gpus N`, a spec's `expect_gpus N` / `expect_gpu_model "..."`, or what its
// reference run saw), what it had, which GPUs went missing and when the store last saw them;
// a comparison's lost-GPU series counted `missing` instead of `removed`; and a benchmark's name
// with its `device:N` component removed, which groups one benchmark across sibling GPUs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/doctor_store.hpp"
#include "results/model.hpp"

namespace gpubench::results {
class Store;
struct ResultRow;
struct RunDetail;
}  // namespace gpubench::results

namespace gpubench::compare {

struct Side;
struct Comparison;

// What a server should have. Unset fields expect nothing.
struct ExpectedHardware {
  std::optional<int> gpus;  // usable GPUs (of gpu_model when set)
  std::string gpu_model;    // a substring of the NVML name, case-insensitive ("H200")
  std::string source;       // of `gpus`: "--expect-gpus", "spec F line 3", "reference run 41"
  // Of `gpu_model`, which --expect-gpus does not set: a count from the command line and a model
  // from a spec line are each attributed to where they were written. Empty: `source`.
  std::string model_source;
  bool any() const { return gpus.has_value() || !gpu_model.empty(); }
};

// `--expect-gpus N`: N >= 1, else Error(bad_input) naming the option and the value.
int check_expect_gpus(int value, const std::string& option);

// The hardware lines of an acceptance spec (the rest is compare/accept/accept.hpp parse_spec's):
//   expect_gpus 8
//   expect_gpu_model "H200"
// Bad lines: Error(bad_input) with file:line and an example. source / model_source: "spec FILE
// line N" of the line that set each.
ExpectedHardware parse_spec_hardware(std::string_view text, const std::string& origin);
// True for a spec line parse_spec_hardware reads (its first word starts with "expect_").
bool is_spec_hardware_line(std::string_view first_word);

// What a reference remembers of its hardware: the most GPUs any of its runs saw, and their
// model when they were all one; nothing when it saw no GPU.
ExpectedHardware expected_from_reference(const Side& reference);

// A GPU a run lacks that the store saw on the same host before.
struct MissingGpu {
  std::string uuid;
  std::string pci_bus_id;
  std::string name;
  int64_t last_seen_run = 0;
};

// GPUs the store recorded in runs on `hostname` (other than `run_id`; 0: none excluded) that are
// not in `present`, the most recently seen first (by the runs' start times), each with the newest
// run that had it. With `before` (ISO 8601, the run's own start) only runs that started before it
// count (at the same instant: those with a smaller id); empty: every run. Unknown UUIDs are left
// out.
std::vector<MissingGpu> missing_gpus(results::Store& store, const std::string& hostname,
                                     int64_t run_id, const std::vector<results::GpuInfo>& present,
                                     const std::string& before = "");

// What falls short of `expected`, one line each, e.g.
//   "incomplete: expected 8 GPUs, found 7 (missing GPU-1234, last seen run 41)"
//   "wrong GPU model: GPU-5678 (index 3, bus 0000:9B:00.0) is \"NVIDIA A100\", expected \"H200\""
//   "incomplete: expected \"H200\" GPU(s), found none" (a model expected, no GPU at all)
//   "incomplete: expected 16 \"H200\" GPUs, found 0 \"H200\" (8 GPUs of another model, named
//    above)" (the count is of the model as written, when one is expected)
// `missing` names up to the shortfall's number of GPUs (missing_gpus' order). Empty: enough.
std::vector<std::string> hardware_problems(const ExpectedHardware& expected,
                                           const std::vector<results::GpuInfo>& gpus,
                                           const std::vector<MissingGpu>& missing);

// hardware_problems of `run` (its GPUs, missing ones named from the store's runs on its host)
// and, when a GPU is expected, lost_device_skips of its rows.
std::vector<std::string> run_hardware_problems(results::Store& store, const results::RunDetail& run,
                                               const std::vector<results::ResultRow>& rows,
                                               const ExpectedHardware& expected);

// The readiness check "gpu.expected_count" (doctor, run): fail with the first of `problems`
// (hardware_problems of the GPUs found), else pass.
results::DoctorCheck expected_gpus_check(const ExpectedHardware& expected, std::size_t found,
                                         const std::vector<std::string>& problems);

// True when a skip or error message says the GPU or its driver was not there ("no CUDA device
// (...)", "no NVIDIA driver (...)", "NVIDIA driver older than the CUDA runtime", "GPU is lost"):
// a hardware fault, not a benchmark that does not apply.
bool no_device_reason(std::string_view message);

// "incomplete: 24 GPU benchmark(s) skipped: no CUDA device (...)" when rows were skipped or
// failed for no_device_reason; nullopt when none.
std::optional<std::string> lost_device_skips(const std::vector<results::ResultRow>& rows);

// The benchmark name without its `device:N` component: "memory/triad/bytes:1/device:3/manual_time"
// -> "memory/triad/bytes:1/manual_time". The same benchmark on sibling GPUs has one such name.
std::string without_device(std::string_view benchmark);

// Moves series measured on base and lost with their GPU on the candidate from `removed` to
// entries with verdict `missing` and lost_hardware set: the candidate skipped the same benchmark
// (on any GPU) for no_device_reason, or ran their suite without the GPU that measured them on
// base (its UUID absent from the candidate's runs). Their candidate-only skip rows leave `added`.
// Keeps cmp.entries sorted by key.
void count_lost_hardware(const Side& base, const Side& candidate, Comparison& cmp);

}  // namespace gpubench::compare
