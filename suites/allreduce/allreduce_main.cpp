// gpubench-allreduce: NCCL collectives over sizes and GPU counts, one process or one rank per GPU
// under MPI (mpirun, srun), plus the MPI host reference. See suites/allreduce/README.md.
//
// Under a launcher every rank runs this same binary: MPI is initialised first, and the run is
// refused (exit 2, on every rank) when the launcher started more tasks than the world holds (a
// build without MPI, or an MPI that cannot read the launcher), when random interleaving would
// shuffle each rank's cases differently, or when, after registration, the ranks' builds, libnccl,
// options or case lists differ (rank_checks.hpp). Every rank's identity and environment (host,
// local rank, GPUs, NCCL_* variables, NCCL and MPI versions) is gathered to rank 0 and stored in
// the context as "gpubench.ranks", every rank's GPU as "gpubench.devices" and the GPUs of each
// series as "gpubench.sample_devices" (sample_devices.hpp); only rank 0 writes Google Benchmark
// output (the others drop --benchmark_out and print nothing). Rank 0 rewrites its JSON file as
// cases finish (incremental_reporter.hpp), so a killed suite keeps what it measured; at the end
// it adds the sweep summary (peak busbw, knee, scaling efficiency, slow ranks) as
// "gpubench.allreduce.summary". NCCL and MPI communicators are released before MPI_Finalize.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpubench_version.hpp"
#include "suites/allreduce/allreduce_plan.hpp"
#include "suites/allreduce/cases.hpp"
#include "suites/allreduce/handshake.hpp"
#include "suites/allreduce/incremental_reporter.hpp"
#include "suites/allreduce/rank_checks.hpp"
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
  const nlohmann::json mine = {{"rank", world.rank()},
                               {"local_rank", world.local_rank()},
                               {"host", world.host()},
                               {"gpus", local_gpu_uuids()},
                               {"pci_bus_ids", local_gpu_pci_bus_ids()},
                               {"nccl", nccl_library_text()},
                               {"mpi", world.library()},
                               {"env", rank_env()}};
  const std::vector<std::string> all = world.gather(mine.dump());
  nlohmann::json list = nlohmann::json::array();
  auto& ids = suite_state().ranks;
  ids.clear();
  std::vector<RankGpus> rank_gpus;  // every rank's GPUs, for the record of the samples' GPUs
  for (const auto& text : all) {
    nlohmann::json r = nlohmann::json::parse(text, nullptr, false);
    if (r.is_discarded()) continue;
    rank_gpus.push_back({r.value("rank", 0), r.value("local_rank", 0),
                         r.value("host", std::string("unknown")), r.value("gpus", std::string()),
                         r.value("pci_bus_ids", std::string())});
    RankIdentity id;
    id.rank = r.value("rank", 0);
    id.local_rank = r.value("local_rank", 0);
    id.host = r.value("host", std::string("unknown"));
    const std::string gpus = r.value("gpus", std::string());
    id.gpu_uuid = gpus.empty() ? "none" : gpus;
    ids.push_back(id);
    list.push_back(std::move(r));
  }
  suite_state().slot_gpus = slot_gpus(rank_gpus);
  if (world.size() == 1) {
    for (const auto& u : split(local_gpu_uuids(), ',')) {
      if (!u.empty()) suite_state().device_uuids.push_back(u);
    }
  }
  return list.dump();
}

// A run the ranks cannot carry out together; thrown on every rank at the same point.
struct RefusedRun : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every rank says so on stderr (the launcher's log then shows that each one stopped, and why).
int refuse(World& world, const std::string& why) {
  std::fprintf(stderr, "gpubench-allreduce: error: rank %d of %d: %s\n", world.rank(), world.size(),
               why.c_str());
  std::fflush(stderr);
  world.finalize();
  return 2;
}

RankFingerprint my_fingerprint(const World& world, const std::string& options) {
  RankFingerprint f;
  f.rank = world.rank();
  f.host = world.host();
  f.build = std::string(gpubench::build_info::k_version) + " (git " +
            gpubench::build_info::k_git_sha + ", dirty " + gpubench::build_info::k_git_dirty + ")";
  f.nccl = nccl_library_text();
  f.options = options;
  f.cases_hash = hash_case_names(suite_state().case_names);
  f.cases = suite_state().case_names.size();
  return f;
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
  if (!listing) {
    const EnvReader env = [](const char* name) -> const char* { return std::getenv(name); };
    if (const auto why = launcher_world_mismatch(world.size(), GPUBENCH_ALLREDUCE_MPI != 0, env)) {
      return refuse(world, *why);
    }
    if (world.size() > 1 && random_interleaving_requested(argc, argv, env)) {
      return refuse(world,
                    "--benchmark_enable_random_interleaving (or BENCHMARK_ENABLE_RANDOM_"
                    "INTERLEAVING) shuffles each rank's cases on its own, so the ranks' "
                    "collectives would not line up; run without it under a launcher");
    }
  }
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

  IncrementalJsonReporter reporter(benchmark_out_path(argc, argv), [] {
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
       "Algorithm bandwidth: the case's bytes / the time per call (NCCL: the slowest GPU's timed "
       "batch / its calls; host reference: the median call, slowest rank), decimal",
       Role::secondary},
      {"busbw_mean_GB_per_s", "GB/s", Direction::higher,
       "busbw from the mean over ranks (GPUs) of each one's own time per call: nccl-tests' "
       "default averaging (all_reduce_perf -a 1) under MPI; busbw_GB_per_s takes the slowest",
       Role::secondary},
      {"scaling_efficiency", "ratio", Direction::higher,
       "busbw with this many ranks / busbw with 2 ranks at the same nominal size (more than 2 "
       "ranks, both on one node or both across nodes; not a series across nodes against 2 ranks "
       "on one)",
       Role::secondary}};
  info.availability = [] {
    Availability avail;
    avail.mpi = GPUBENCH_ALLREDUCE_MPI != 0;
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
  const std::string options = run_options(argc, argv);
  info.register_benchmarks = [&world, &options, listing] {
    register_host_reference();
    register_nccl_cases();
    if (listing) return;
    if (world.rank() == 0) {
      // Which GPU, on which node, every sample ran on: the store classifies each allreduce sample
      // over its series' GPUs (sample_devices.hpp, results/sample_gpus.hpp).
      const SuiteState& st = suite_state();
      benchmark::AddCustomContext("gpubench.devices", devices_record(st.slot_gpus).dump());
      benchmark::AddCustomContext("gpubench.sample_devices",
                                  sample_devices_record(st.series, st.slot_gpus).dump());
    }
    if (const std::string why = agree_on_fingerprint(world, my_fingerprint(world, options));
        !why.empty()) {
      throw RefusedRun(why);
    }
  };
  if (world.rank() == 0 && has_flag(argc, argv, "--benchmark_out=")) info.file_reporter = &reporter;
  int rc = 0;
  try {
    rc = suite_main(argc, argv, info);
  } catch (const RefusedRun& e) {
    release_nccl();
    release_host_reference();
    return refuse(world, e.what());
  }
  if (!listing) {
    release_nccl();
    release_host_reference();
  }
  world.finalize();
  return rc;
}
