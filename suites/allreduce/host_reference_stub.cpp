// Built without MPI (GPUBENCH_MPI=OFF or no MPI found): the host reference cases exist, skipped
// with the reason, so a run says what is missing instead of silently measuring less.
#include "suites/allreduce/cases.hpp"

namespace gpubench::allreduce {

namespace {
constexpr const char* k_reason =
    "gpubench was built without MPI (install libopenmpi-dev and openmpi-bin, configure with "
    "-DGPUBENCH_MPI=AUTO or ON, rebuild)";
}

std::string host_reference_note() {
  return std::string("host reference: not built: ") + k_reason;
}

void release_host_reference() {}

void register_host_reference() {
  for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
    const std::string name = case_name(Collective::allreduce, "fp32", placement, 1 << 20, 1, true);
    suite_state().case_names.push_back(name);
    benchmark::RegisterBenchmark(name.c_str(), [](benchmark::State& state) {
      suite::skip(state, k_reason);
    })->Iterations(1);
  }
}

}  // namespace gpubench::allreduce
