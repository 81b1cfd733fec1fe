// Shared bits of the results tests: a realistic RunInfo and fixture loading.
#pragma once

#include <filesystem>
#include <string>

#include "results/ingest/ingest.hpp"
#include "results/store.hpp"
#include "util/fs.hpp"

namespace gpubench::results::testing {

inline std::filesystem::path fixture_path(const std::string& name) {
  return std::filesystem::path(GPUBENCH_SOURCE_DIR) / "tests" / "results" / "fixtures" / name;
}

inline nlohmann::json load_fixture(const std::string& name) {
  return parse_benchmark_json(read_file(fixture_path(name)), name);
}

// A two-GPU run with made-up (fixture) environment facts.
inline RunInfo sample_run_info() {
  RunInfo info;
  info.user = "tester";
  info.argv = {"gpubench", "run", "--suite", "memory"};
  info.tags = {{"job", "nightly"}, {"rack", "a7"}};
  info.note = "fixture run";
  info.host.hostname = "node01";
  info.host.cpu_model = "Fixture CPU";
  info.host.cores = 64;
  info.host.memory_bytes = int64_t{1} << 40;
  for (int i = 0; i < 2; ++i) {
    GpuInfo g;
    g.nvml_index = i;
    g.uuid = i == 0 ? "GPU-11111111-2222-3333-4444-555555555555"
                    : "GPU-66666666-7777-8888-9999-000000000000";
    g.name = "NVIDIA H200";
    g.sm_count = 132;
    g.power_limit_w = 700.0;
    info.gpus.push_back(g);
  }
  info.software.driver_version = "560.35.03";
  info.software.cuda_runtime_version = "13.0";
  info.config.profile = "quick";
  info.config.env = {{"CUDA_VISIBLE_DEVICES", "0,1"}};
  return info;
}

inline SuiteRunInfo sample_suite_run(const std::string& suite = "memory") {
  SuiteRunInfo s;
  s.suite = suite;
  s.executable = "gpubench-" + suite;
  s.argv = {s.executable, "--benchmark_format=json"};
  s.duration_s = 1.5;
  s.exit_code = 0;
  return s;
}

}  // namespace gpubench::results::testing
