// gpubench-allreduce: NCCL collectives over sizes and GPU counts, one process or one rank per GPU
// under MPI (mpirun, srun), plus the MPI host reference. See suites/allreduce/README.md.
//
// Under a launcher every rank runs this same binary: MPI is initialised first, every rank's
// identity and environment (host, local rank, GPUs, NCCL_* variables, NCCL and MPI versions) is
// gathered to rank 0 and stored in the context as "gpubench.ranks"; only rank 0 writes Google
// Benchmark output (the others drop --benchmark_out and print nothing). At the end rank 0 adds the
// sweep summary (peak busbw, knee, scaling efficiency, slow ranks) as
// "gpubench.allreduce.summary".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "suites/allreduce/allreduce_plan.hpp"
#include "suites/allreduce/cases.hpp"
#include "suites/allreduce/deferred_reporter.hpp"
#include "suites/allreduce/world.hpp"
#include "suites/common/suite_support.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace gpubench::allreduce {
namespace {

bool has_flag(int argc, char** argv, const char* prefix) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0) return true;
  }
  return false;
}

// The variables that change what NCCL and MPI do, as this rank sees them.
nlohmann::json rank_env() {
  nlohmann::json env = nlohmann::json::object();
  // Not OMPI_MCA_*: Open MPI passes its own plumbing (URIs, session dirs) to every rank that way.
  static const char* const prefixes[] = {"NCCL_",        "CUDA_VISIBLE_DEVICES", "GPUBENCH_",
                                         "SLURM_JOB_ID", "SLURM_NODEID",         "SLURM_PROCID"};
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = entry.substr(0, eq);
    for (const char* p : prefixes) {
      if (key.rfind(p, 0) == 0) {
        env[key] = entry.substr(eq + 1);
        break;
      }
    }
  }
  return env;
}

// Gathers who every rank is; rank 0 keeps the table and returns the context JSON.
std::string gather_ranks(World& world) {
  const nlohmann::json mine = {
      {"rank", world.rank()},      {"local_rank", world.local_rank()}, {"host", world.host()},
      {"gpus", local_gpu_uuids()}, {"nccl", nccl_library_text()},      {"mpi", world.library()},
      {"env", rank_env()}};
  const std::vector<std::string> all = world.gather(mine.dump());
  nlohmann::json list = nlohmann::json::array();
  auto& ids = suite_state().ranks;
  ids.clear();
  for (const auto& text : all) {
    nlohmann::json r = nlohmann::json::parse(text, nullptr, false);
    if (r.is_discarded()) continue;
    RankIdentity id;
    id.rank = r.value("rank", 0);
    id.local_rank = r.value("local_rank", 0);
    id.host = r.value("host", std::string("unknown"));
    const std::string gpus = r.value("gpus", std::string());
    id.gpu_uuid = gpus.empty() ? "none" : gpus;
    ids.push_back(id);
    list.push_back(std::move(r));
  }
  if (world.size() == 1) {
    for (const auto& u : split(local_gpu_uuids(), ',')) {
      if (!u.empty()) suite_state().device_uuids.push_back(u);
    }
  }
  return list.dump();
}

// Ranks other than 0 run without output: no JSON file, console to /dev/null.
void silence_rank(int& argc, char** argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_out", 15) == 0) continue;
    argv[out++] = argv[i];
  }
  argv[out] = nullptr;
  argc = out;
  if (!std::freopen("/dev/null", "w", stdout)) std::fprintf(stderr, "cannot silence stdout\n");
}

}  // namespace
}  // namespace gpubench::allreduce

int main(int argc, char** argv) {
  using namespace gpubench::allreduce;
  using namespace gpubench::suite;
  // Listing (gpubench suites) and --gpubench_info never start MPI: they run outside launchers.
  const bool listing = has_flag(argc, argv, "--gpubench_info") ||
                       has_flag(argc, argv, "--benchmark_list_tests") ||
                       has_flag(argc, argv, "--gpubench_plan");
  World& world = listing ? World::get() : World::init(argc, argv);
  // Every rank must register the same cases: rank 0's profile is everyone's (a remote rank may not
  // have inherited GPUBENCH_PROFILE from the launcher).
  int profile = static_cast<int>(profile_from_env());
  world.broadcast(&profile, sizeof profile, 0);
  suite_state().profile = static_cast<Profile>(profile);
  if (!listing) {
    const std::string ranks = gather_ranks(world);
    if (world.rank() == 0) benchmark::AddCustomContext("gpubench.ranks", ranks);
    if (world.rank() != 0) silence_rank(argc, argv);
  }

  DeferredJsonReporter reporter([] {
    benchmark::AddCustomContext("gpubench.allreduce.summary",
                                suite_state().recorder.summary().dump());
  });
  SuiteInfo info;
  info.name = "allreduce";
  info.description =
      "NCCL allreduce, allgather, reduce-scatter and broadcast over sizes and GPU counts (one "
      "process, or one rank per GPU under mpirun/srun), plus MPI_Allreduce on host buffers as the "
      "CPU reference (device:host)";
  info.metrics = {
      {"busbw_GB_per_s", "GB/s", Direction::higher,
       "Bus bandwidth: algbw x the collective's bus factor (allreduce 2(n-1)/n, allgather and "
       "reduce_scatter (n-1)/n, broadcast 1), as nccl-tests; only for 2 or more ranks"},
      {"algbw_GB_per_s", "GB/s", Direction::higher,
       "Algorithm bandwidth: the case's bytes / the median call's time (slowest rank), decimal",
       Role::secondary},
      {"scaling_efficiency", "ratio", Direction::higher,
       "busbw with this many ranks / busbw with 2 ranks at the same size (more than 2 ranks)",
       Role::secondary}};
  info.availability = [] {
    Availability avail;
    avail.notes.push_back(host_reference_note());
    avail.notes.push_back(nccl_note());
    // Built with neither MPI nor NCCL, every case is a skip: say so up front.
    if (!GPUBENCH_ALLREDUCE_MPI && nccl_library_text() == "not built") {
      avail.runnable = false;
      avail.reason = "built without MPI and without NCCL: every case is skipped (see the notes)";
    }
    return avail;
  };
  info.plan = [](const PlanRequest& request) {
    return plan_allreduce(request, nccl_library_text() != "not built");
  };
  info.register_benchmarks = [] {
    register_host_reference();
    register_nccl_cases();
  };
  if (world.rank() == 0 && has_flag(argc, argv, "--benchmark_out=")) info.file_reporter = &reporter;
  const int rc = suite_main(argc, argv, info);
  world.finalize();
  return rc;
}
