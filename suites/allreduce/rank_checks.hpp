// Checks that refuse a run whose ranks cannot line up, before any collective is called. CUDA-,
// NCCL- and MPI-free, so unit-tested everywhere; allreduce_main.cpp and handshake.cpp apply them.
//
//  - The launcher's view against the world's: mpirun or srun started N tasks, but this process is
//    in a world of one (a build without MPI, or an MPI that cannot read this launcher's process
//    manager). Each task would then drive every GPU of its node on its own and write the same
//    result file, and the contended numbers would be stored as valid.
//  - The ranks' fingerprints: every rank must run the same gpubench build, the same case list and
//    options and the same libnccl, or their MPI and NCCL call sequences diverge (a hang or NCCL
//    errors instead of a message).
//  - Google Benchmark's random interleaving shuffles each rank's cases on its own.
//  - NCCL_COMM_BLOCKING=1 turns the communicators' deadlines off.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::allreduce {

// Reads one environment variable (nullptr when unset): std::getenv, or a fake in tests.
using EnvReader = std::function<const char*(const char*)>;

// How many tasks the launcher says it started, and the variable that says so.
struct LauncherTasks {
  int tasks = 0;       // at least this many (PMIX_RANK=r only shows r + 1)
  std::string source;  // e.g. "OMPI_COMM_WORLD_SIZE=16"
};
// The first of OMPI_COMM_WORLD_SIZE (Open MPI's mpirun), PMI_SIZE (MPICH's Hydra, Intel MPI, srun
// --mpi=pmi2), MV2_COMM_WORLD_SIZE (MVAPICH), SLURM_STEP_NUM_TASKS (an srun step; not
// SLURM_NTASKS, which a batch script sees too) and PMIX_RANK (PMIx: a rank above 0) that shows more
// than one task; nullopt when none does.
std::optional<LauncherTasks> launcher_tasks(const EnvReader& env);

// The refusal ("<what> (<why>; <what to do>)") when the launcher started more than one task but
// this process's world has `world_size` ranks (fewer); nullopt when they agree or nothing says.
std::optional<std::string> launcher_world_mismatch(int world_size, bool built_with_mpi,
                                                   const EnvReader& env);

// What every rank must have in common, and who it is for the message.
struct RankFingerprint {
  int rank = 0;
  std::string host;
  std::string build;       // gpubench version, git sha and dirty flag
  std::string nccl;        // "NCCL 2.28.9", "NCCL unknown", "not built"
  std::string options;     // the Google Benchmark flags that choose or repeat cases
  std::string cases_hash;  // hex FNV-1a over the registered case names, in order
  std::size_t cases = 0;   // how many
};
// FNV-1a (64 bit) of the names, each followed by a newline, as 16 hex digits.
std::string hash_case_names(const std::vector<std::string>& names);
// The --benchmark_* flags of argv that decide which cases run and how often (filter, repetitions,
// min time, interleaving...), sorted; --benchmark_out* (rank 0's alone) and argv[0] left out.
std::string run_options(int argc, char** argv);
// nullopt when every rank matches rank 0 (index 0); otherwise what differs first, build before NCCL
// before options before cases, naming rank 0 and the first rank that differs with their values.
std::optional<std::string> fingerprint_mismatch(const std::vector<RankFingerprint>& by_rank);

// Whether Google Benchmark will interleave cases at random: --benchmark_enable_random_interleaving
// in argv, else the BENCHMARK_ENABLE_RANDOM_INTERLEAVING variable, read as Google Benchmark does.
bool random_interleaving_requested(int argc, char** argv, const EnvReader& env);

// NCCL_COMM_BLOCKING (its value; nullptr when unset) overrides ncclConfig_t.blocking (NCCL 2.28
// src/init.cc), so a value other than 0 makes setup and a first call's connection wait for every
// peer without the suite's deadline. Under a launcher (world_size > 1), where a missing peer would
// hang the whole job until --timeout-per-suite, the NCCL cases are skipped with `skip_reason`;
// alone they run and `warning` says what is lost (the timed calls are held either way, so the two
// can be compared on one node). Both empty when unset or 0.
struct CommBlockingVerdict {
  std::string skip_reason;
  std::string warning;
};
CommBlockingVerdict judge_comm_blocking(const char* value, int world_size);

}  // namespace gpubench::allreduce
