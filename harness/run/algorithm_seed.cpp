// gemm's cuBLASLt choices seeded from the store before a run and kept in it after
// (algorithm_seed.hpp).
#include "harness/run/algorithm_seed.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "results/algorithm_choices.hpp"
#include "results/store.hpp"
#include "util/algorithm_file.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

namespace {

bool known(const std::string& fact) {
  return !fact.empty() && fact != results::k_unknown;
}

// The CUDA ordinal the name gives ("device:1"), when it gives one.
std::optional<std::size_t> device_of(const std::string& benchmark) {
  for (const results::Param& p : results::parse_benchmark_name(benchmark, "").params) {
    if (p.key == "device" && p.number && *p.number >= 0 &&
        *p.number == static_cast<int>(*p.number)) {
      return static_cast<std::size_t>(*p.number);
    }
  }
  return std::nullopt;
}

// The name a suite registered before Google Benchmark added its own parts ("/iterations:10",
// "/manual_time", ...): the gemm suite keys its scratch file by that name.
std::string registered_name(const std::string& name) {
  std::vector<std::string> parts = split(name, '/');
  auto added = [](const std::string& part) {
    for (const char* key :
         {"iterations:", "repeats:", "threads:", "min_time:", "min_warmup_time:"}) {
      if (part.rfind(key, 0) == 0) return true;
    }
    return part == "manual_time" || part == "real_time" || part == "process_time";
  };
  while (parts.size() > 1 && added(parts.back())) parts.pop_back();
  return join(parts, "/");
}

}  // namespace

std::string case_gpu_model(const std::string& benchmark, const std::vector<results::GpuInfo>& gpus,
                           const std::map<std::string, std::string>& env) {
  if (gpus.empty()) return results::k_unknown;
  const bool one_model = std::all_of(gpus.begin(), gpus.end(), [&](const results::GpuInfo& g) {
    return g.name == gpus.front().name;
  });
  if (one_model) return known(gpus.front().name) ? gpus.front().name : results::k_unknown;
  const std::optional<std::size_t> device = device_of(benchmark);
  if (!device || env.count("CUDA_VISIBLE_DEVICES") || *device >= gpus.size()) {
    return results::k_unknown;
  }
  std::vector<results::GpuInfo> by_bus = gpus;
  for (const results::GpuInfo& g : by_bus) {
    if (!known(g.pci_bus_id)) return results::k_unknown;
  }
  std::sort(by_bus.begin(), by_bus.end(), [](const auto& a, const auto& b) {
    return to_lower(a.pci_bus_id) < to_lower(b.pci_bus_id);
  });
  const std::string& name = by_bus[*device].name;
  return known(name) ? name : results::k_unknown;
}

std::size_t seed_algorithms(results::Store& store, int64_t run_id,
                            const std::filesystem::path& scratch) {
  const results::RunDetail run = store.get_run(run_id);
  const results::SoftwareEnv& sw = run.info.software;
  std::set<std::string> seeded;
  std::string text;
  for (const results::AlgorithmChoiceRow& row :
       results::algorithm_choices_with(store, sw.driver_version, sw.cublas_version, run_id)) {
    if (seeded.count(row.benchmark)) continue;  // a newer run's choice is already in
    const std::string model = case_gpu_model(row.benchmark, run.info.gpus, run.info.config.env);
    if (!known(model) || model != row.gpu_model) continue;
    const std::optional<algorithm_file::AlgorithmBytes> bytes =
        algorithm_file::parse_bytes_hex(row.algorithm);
    if (!bytes) continue;  // not an algorithm (an edited database): the case searches
    algorithm_file::Choice choice;
    choice.bytes = *bytes;
    choice.description = row.description;
    choice.median_call_ms = row.median_call_ms.value_or(0);
    // The run that searched it, however many runs reused it since.
    choice.origin = algorithm_file::history_origin(
        row.origin_run_uuid.empty() ? row.run_uuid : row.origin_run_uuid);
    text += algorithm_file::format_line(row.benchmark, choice);
    seeded.insert(row.benchmark);
  }
  if (!seeded.empty()) write_file_atomic(scratch / algorithm_file::k_file_name, text);
  return seeded.size();
}

std::size_t keep_algorithms(results::Store& store, int64_t run_id,
                            const std::filesystem::path& scratch) {
  const std::map<std::string, algorithm_file::Choice> choices =
      algorithm_file::read_choices(scratch / algorithm_file::k_file_name);
  if (choices.empty()) return 0;
  const results::RunDetail run = store.get_run(run_id);
  std::set<std::string> ran;  // the cases with an ok outcome, by the name the suite keys them
  for (const std::string& name : results::benchmarks_ok_in_run(store, run_id)) {
    ran.insert(registered_name(name));
  }
  std::vector<results::AlgorithmChoiceRow> rows;
  for (const std::string& benchmark : ran) {
    const auto it = choices.find(benchmark);
    if (it == choices.end()) continue;
    results::AlgorithmChoiceRow row;
    row.benchmark = benchmark;
    row.gpu_model = case_gpu_model(benchmark, run.info.gpus, run.info.config.env);
    row.driver_version = run.info.software.driver_version;
    row.cublas_version = run.info.software.cublas_version;
    row.algorithm = algorithm_file::bytes_hex(it->second.bytes);
    row.description = it->second.description;
    row.median_call_ms = it->second.median_call_ms;
    row.origin_run_uuid = algorithm_file::history_run(it->second.origin).value_or("");
    rows.push_back(std::move(row));
  }
  if (!rows.empty()) results::add_algorithm_choices(store, run_id, rows);
  return rows.size();
}

}  // namespace gpubench::harness
