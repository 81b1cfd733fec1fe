// Built without NCCL (no CUDA, or NCCL not found at configure time): one case per collective and
// placement, skipped with the build's reason, so runs and `gpubench suites` say what is missing.
#include "suites/allreduce/cases.hpp"
#include "suites/allreduce/world.hpp"

#ifndef GPUBENCH_NCCL_REASON
#define GPUBENCH_NCCL_REASON "NCCL was not found when gpubench was built"
#endif

namespace gpubench::allreduce {

std::string nccl_library_text() {
  return "not built";
}
std::string local_gpu_uuids() {
  return "";
}
std::string local_gpu_pci_bus_ids() {
  return "";
}
std::string nccl_note() {
  return std::string("NCCL cases: not built: ") + GPUBENCH_NCCL_REASON;
}

void release_nccl() {}

void register_nccl_cases() {
  const int ranks = World::get().size();
  for (Collective collective : k_all_collectives) {
    for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
      const std::string name = case_name(collective, "fp32", placement, 1 << 20, ranks, false);
      suite_state().case_names.push_back(name);
      benchmark::RegisterBenchmark(name.c_str(), [](benchmark::State& state) {
        suite::skip(state, std::string("NCCL cases not built: ") + GPUBENCH_NCCL_REASON);
      })->Iterations(1);
    }
  }
}

}  // namespace gpubench::allreduce
