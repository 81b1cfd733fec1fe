// The checks that refuse a run whose ranks cannot line up (rank_checks.hpp): the launcher's
// environment against the world's size, the ranks' fingerprints, random interleaving. Fake
// environments; the MPI tests (test_mpi_protocol.cpp) run the handshake over real ranks.
#include "suites/allreduce/rank_checks.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace gpubench::allreduce {
namespace {

EnvReader env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(LauncherTasks, EachLaunchersVariableCountsAndOneTaskIsNoLauncher) {
  EXPECT_FALSE(launcher_tasks(env_of({})));
  EXPECT_FALSE(launcher_tasks(env_of({{"OMPI_COMM_WORLD_SIZE", "1"}})));
  const auto ompi = launcher_tasks(env_of({{"OMPI_COMM_WORLD_SIZE", "8"}}));
  ASSERT_TRUE(ompi);
  EXPECT_EQ(ompi->tasks, 8);
  EXPECT_EQ(ompi->source, "OMPI_COMM_WORLD_SIZE=8");
  EXPECT_EQ(launcher_tasks(env_of({{"PMI_SIZE", "16"}}))->tasks, 16);
  EXPECT_EQ(launcher_tasks(env_of({{"MV2_COMM_WORLD_SIZE", "4"}}))->tasks, 4);
  // An srun step, not the batch script: SLURM_NTASKS alone (which sbatch sets) says nothing.
  EXPECT_FALSE(launcher_tasks(env_of({{"SLURM_NTASKS", "16"}, {"SLURM_PROCID", "0"}})));
  EXPECT_FALSE(launcher_tasks(env_of({{"SLURM_STEP_NUM_TASKS", "16"}})));
  const auto srun = launcher_tasks(env_of({{"SLURM_STEP_NUM_TASKS", "16"}, {"SLURM_PROCID", "3"}}));
  ASSERT_TRUE(srun);
  EXPECT_EQ(srun->source, "SLURM_STEP_NUM_TASKS=16");
  // PMIx tells the rank only: rank 0 cannot know, rank 5 knows there are at least 6.
  EXPECT_FALSE(launcher_tasks(env_of({{"PMIX_RANK", "0"}})));
  EXPECT_EQ(launcher_tasks(env_of({{"PMIX_RANK", "5"}}))->tasks, 6);
  EXPECT_FALSE(launcher_tasks(env_of({{"PMI_SIZE", "eight"}})));
}

TEST(LauncherTasks, ANoMpiBuildUnderALauncherIsRefusedNamingCauseAndFix) {
  const EnvReader mpirun = env_of({{"OMPI_COMM_WORLD_SIZE", "8"}});
  const auto no_mpi = launcher_world_mismatch(1, false, mpirun);
  ASSERT_TRUE(no_mpi);
  EXPECT_NE(no_mpi->find("built without MPI"), std::string::npos) << *no_mpi;
  EXPECT_NE(no_mpi->find("the launcher started 8 tasks (OMPI_COMM_WORLD_SIZE=8)"),
            std::string::npos)
      << *no_mpi;
  EXPECT_NE(no_mpi->find("ci/setup"), std::string::npos) << *no_mpi;
  EXPECT_NE(no_mpi->find("write the same result file"), std::string::npos) << *no_mpi;
  // An MPI build that came up alone: the MPI cannot read the launcher's process manager.
  const auto singleton = launcher_world_mismatch(
      1, true, env_of({{"SLURM_STEP_NUM_TASKS", "16"}, {"SLURM_PROCID", "0"}}));
  ASSERT_TRUE(singleton);
  EXPECT_NE(singleton->find("--mpi=pmix"), std::string::npos) << *singleton;
  // Consistent worlds pass.
  EXPECT_FALSE(launcher_world_mismatch(8, true, mpirun));
  EXPECT_FALSE(launcher_world_mismatch(1, false, env_of({})));
  EXPECT_FALSE(launcher_world_mismatch(1, false, env_of({{"OMPI_COMM_WORLD_SIZE", "1"}})));
}

RankFingerprint fp(int rank, const std::string& host) {
  RankFingerprint f;
  f.rank = rank;
  f.host = host;
  f.build = "0.1.0 (git abc, dirty false)";
  f.nccl = "NCCL 2.28.9";
  f.options = "--benchmark_repetitions=5";
  f.cases_hash = hash_case_names({"a", "b"});
  f.cases = 2;
  return f;
}

TEST(Fingerprint, MatchingRanksPassAndEachDifferenceIsNamedWithBothSides) {
  std::vector<RankFingerprint> ranks = {fp(0, "n1"), fp(1, "n1"), fp(2, "n2"), fp(3, "n2")};
  EXPECT_FALSE(fingerprint_mismatch(ranks));
  EXPECT_FALSE(fingerprint_mismatch({fp(0, "n1")}));

  ranks[3].nccl = "NCCL 2.27.3";
  auto why = fingerprint_mismatch(ranks);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("disagree on the NCCL library: rank 0 (host n1) has NCCL 2.28.9, rank 3 "
                      "(host n2) has NCCL 2.27.3"),
            std::string::npos)
      << *why;

  ranks[2].cases_hash = hash_case_names({"a", "b", "c"});
  ranks[2].cases = 3;
  why = fingerprint_mismatch(ranks);  // NCCL comes before the case list
  EXPECT_NE(why->find("NCCL library"), std::string::npos) << *why;
  ranks[3].nccl = ranks[0].nccl;
  why = fingerprint_mismatch(ranks);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("disagree on the case list: rank 0 (host n1) has 2 cases (hash "),
            std::string::npos)
      << *why;
  EXPECT_NE(why->find("rank 2 (host n2) has 3 cases"), std::string::npos) << *why;

  ranks[1].build = "0.1.0 (git def, dirty true)";
  EXPECT_NE(fingerprint_mismatch(ranks)->find("gpubench build"), std::string::npos);
  ranks[1].build = ranks[0].build;
  ranks[2] = fp(2, "n2");
  ranks[1].options = "";
  EXPECT_NE(fingerprint_mismatch(ranks)->find("benchmark options: rank 0 (host n1) has "
                                              "--benchmark_repetitions=5, rank 1 (host n1) has "
                                              "(none)"),
            std::string::npos);
}

TEST(Fingerprint, CaseHashesFollowNamesAndOrder) {
  EXPECT_EQ(hash_case_names({"a", "b"}), hash_case_names({"a", "b"}));
  EXPECT_NE(hash_case_names({"a", "b"}), hash_case_names({"b", "a"}));
  EXPECT_NE(hash_case_names({"ab"}), hash_case_names({"a", "b"}));
  EXPECT_EQ(hash_case_names({}), "cbf29ce484222325");  // FNV-1a 64 offset basis
  EXPECT_EQ(hash_case_names({"a", "b"}).size(), 16u);
}

TEST(Fingerprint, RunOptionsKeepWhatChoosesCasesNotRankZerosOutputFile) {
  std::vector<std::string> args = {"gpubench-allreduce",
                                   "--benchmark_repetitions=3",
                                   "--benchmark_out=/tmp/x.json",
                                   "--benchmark_out_format=json",
                                   "--benchmark_filter=ranks:2",
                                   "--benchmark_color=false",
                                   "--other"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  EXPECT_EQ(run_options(static_cast<int>(argv.size()), argv.data()),
            "--benchmark_filter=ranks:2 --benchmark_repetitions=3");
}

TEST(RandomInterleaving, ReadAsGoogleBenchmarkReadsItsFlag) {
  auto requested = [](std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    std::string program = "gpubench-allreduce";
    std::vector<char*> argv = {program.data()};
    for (auto& a : args) argv.push_back(a.data());
    return random_interleaving_requested(static_cast<int>(argv.size()), argv.data(),
                                         env_of(std::move(env)));
  };
  EXPECT_FALSE(requested({}));
  EXPECT_TRUE(requested({"--benchmark_enable_random_interleaving"}));
  EXPECT_TRUE(requested({"--benchmark_enable_random_interleaving=true"}));
  EXPECT_TRUE(requested({"--benchmark_enable_random_interleaving=1"}));
  EXPECT_TRUE(requested({"--benchmark_enable_random_interleaving=y"}));
  EXPECT_FALSE(requested({"--benchmark_enable_random_interleaving=false"}));
  EXPECT_FALSE(requested({"--benchmark_enable_random_interleaving=OFF"}));
  EXPECT_FALSE(requested({"--benchmark_enable_random_interleaving=0"}));
  EXPECT_FALSE(requested({"--benchmark_enable_random_interleaving=n"}));
  EXPECT_TRUE(requested({}, {{"BENCHMARK_ENABLE_RANDOM_INTERLEAVING", "true"}}));
  EXPECT_FALSE(requested({"--benchmark_enable_random_interleaving=false"},
                         {{"BENCHMARK_ENABLE_RANDOM_INTERLEAVING", "true"}}));
}

TEST(CommBlocking, SkippedUnderALauncherWarnedAloneIgnoredWhenOff) {
  EXPECT_TRUE(judge_comm_blocking(nullptr, 16).skip_reason.empty());
  EXPECT_TRUE(judge_comm_blocking("0", 16).skip_reason.empty());
  EXPECT_TRUE(judge_comm_blocking("", 16).warning.empty());
  const CommBlockingVerdict launched = judge_comm_blocking("1", 16);
  EXPECT_NE(launched.skip_reason.find("NCCL_COMM_BLOCKING=1 makes NCCL's communicators blocking"),
            std::string::npos)
      << launched.skip_reason;
  EXPECT_NE(launched.skip_reason.find("unset it under a launcher"), std::string::npos);
  EXPECT_TRUE(launched.warning.empty());
  const CommBlockingVerdict alone = judge_comm_blocking("1", 1);
  EXPECT_TRUE(alone.skip_reason.empty());
  EXPECT_NE(alone.warning.find("without the suite's deadline"), std::string::npos);
}

}  // namespace
}  // namespace gpubench::allreduce
