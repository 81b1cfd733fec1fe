#include "suites/allreduce/rank_checks.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace gpubench::allreduce {

namespace {

// A whole positive decimal number, or nullopt.
std::optional<long> whole_number(const char* text) {
  if (!text || !*text) return std::nullopt;
  long value = 0;
  for (const char* p = text; *p; ++p) {
    if (*p < '0' || *p > '9') return std::nullopt;
    value = value * 10 + (*p - '0');
    if (value > 1'000'000'000) return std::nullopt;
  }
  return value;
}

std::string described(const RankFingerprint& f) {
  return "rank " + std::to_string(f.rank) + " (host " + f.host + ")";
}

}  // namespace

std::optional<LauncherTasks> launcher_tasks(const EnvReader& env) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"}) {
    if (const auto n = whole_number(env(name)); n && *n > 1) {
      return LauncherTasks{static_cast<int>(*n), std::string(name) + "=" + env(name)};
    }
  }
  if (env("SLURM_PROCID")) {
    if (const auto n = whole_number(env("SLURM_STEP_NUM_TASKS")); n && *n > 1) {
      return LauncherTasks{static_cast<int>(*n),
                           std::string("SLURM_STEP_NUM_TASKS=") + env("SLURM_STEP_NUM_TASKS")};
    }
  }
  if (const auto r = whole_number(env("PMIX_RANK")); r && *r > 0) {
    return LauncherTasks{static_cast<int>(*r) + 1, std::string("PMIX_RANK=") + env("PMIX_RANK")};
  }
  return std::nullopt;
}

std::optional<std::string> launcher_world_mismatch(int world_size, bool built_with_mpi,
                                                   const EnvReader& env) {
  const auto launched = launcher_tasks(env);
  if (!launched || launched->tasks <= world_size) return std::nullopt;
  const std::string tasks = "the launcher started " + std::to_string(launched->tasks) +
                            (launched->source.rfind("PMIX_RANK", 0) == 0 ? " or more" : "") +
                            " tasks (" + launched->source + ")";
  if (!built_with_mpi) {
    return "gpubench-allreduce was built without MPI, but " + tasks +
           " (each would run alone, drive every GPU of its node against the others and write the "
           "same result file; build gpubench with MPI against the site's MPI, ci/setup on a node "
           "with a compiler, and run that build under the launcher, or run this one without a "
           "launcher: one process drives every GPU of the node)";
  }
  return "MPI started this process as a world of " + std::to_string(world_size) + ", but " + tasks +
         " (the MPI library cannot read this launcher's process manager; with srun add "
         "--mpi=pmix or --mpi=pmi2 as the site's MPI needs, with mpirun use the mpirun of the MPI "
         "gpubench was built against)";
}

std::string hash_case_names(const std::vector<std::string>& names) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64-bit offset basis
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;  // FNV-1a 64-bit prime
  };
  for (const std::string& name : names) {
    for (char c : name) mix(static_cast<unsigned char>(c));
    mix('\n');
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

std::string run_options(int argc, char** argv) {
  std::vector<std::string> flags;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a(argv[i]);
    if (a.rfind("--benchmark_", 0) != 0 || a.rfind("--benchmark_out", 0) == 0) continue;
    // Console formatting and colour change no call.
    if (a.rfind("--benchmark_format", 0) == 0 || a.rfind("--benchmark_color", 0) == 0 ||
        a.rfind("--benchmark_counters_tabular", 0) == 0) {
      continue;
    }
    flags.emplace_back(a);
  }
  std::sort(flags.begin(), flags.end());
  std::string out;
  for (const std::string& f : flags) out += (out.empty() ? "" : " ") + f;
  return out;
}

std::optional<std::string> fingerprint_mismatch(const std::vector<RankFingerprint>& by_rank) {
  if (by_rank.size() < 2) return std::nullopt;
  const RankFingerprint& ref = by_rank.front();
  struct Part {
    const char* what;
    std::string RankFingerprint::*field;
  };
  const Part parts[] = {{"gpubench build", &RankFingerprint::build},
                        {"NCCL library", &RankFingerprint::nccl},
                        {"benchmark options", &RankFingerprint::options},
                        {"case list", &RankFingerprint::cases_hash}};
  for (const Part& part : parts) {
    for (const RankFingerprint& f : by_rank) {
      if (f.*part.field == ref.*part.field) continue;
      auto value = [&](const RankFingerprint& x) {
        if (part.field == &RankFingerprint::cases_hash) {
          return std::to_string(x.cases) + " cases (hash " + x.cases_hash + ")";
        }
        const std::string& v = x.*part.field;
        return v.empty() ? std::string("(none)") : v;
      };
      return std::string("the ranks disagree on the ") + part.what + ": " + described(ref) +
             " has " + value(ref) + ", " + described(f) + " has " + value(f) +
             " (every rank must run the same gpubench build with the same libnccl and arguments, "
             "or their collective calls would not line up)";
    }
  }
  return std::nullopt;
}

bool random_interleaving_requested(int argc, char** argv, const EnvReader& env) {
  // Google Benchmark 1.7.1's rule (commandlineflags.cc IsTruthyFlagValue): empty is true; one
  // character is true unless it is not alphanumeric or is 0, f, F, n or N; longer text is true
  // unless it is false, no or off in any case.
  auto truthy = [](std::string_view v) {
    if (v.size() == 1) {
      const char c = v.front();
      return std::isalnum(static_cast<unsigned char>(c)) != 0 &&
             std::string_view("0fFnN").find(c) == std::string_view::npos;
    }
    std::string lower(v);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
      return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    });
    return !(lower == "false" || lower == "no" || lower == "off");
  };
  // The environment variable is the flag's default; a flag on the command line wins.
  const char* from_env = env("BENCHMARK_ENABLE_RANDOM_INTERLEAVING");
  bool on = from_env && truthy(from_env);
  constexpr std::string_view flag = "--benchmark_enable_random_interleaving";
  for (int i = 1; i < argc; ++i) {
    const std::string_view a(argv[i]);
    if (a.rfind(flag, 0) != 0) continue;
    const std::string_view rest = a.substr(flag.size());
    if (rest.empty()) {
      on = true;
    } else if (rest.front() == '=') {
      on = truthy(rest.substr(1));
    }
  }
  return on;
}

CommBlockingVerdict judge_comm_blocking(const char* value, int world_size) {
  CommBlockingVerdict v;
  if (!value || !*value || std::string_view(value) == "0") return v;
  const std::string what = std::string("NCCL_COMM_BLOCKING=") + value +
                           " makes NCCL's communicators blocking: their setup and first-call "
                           "connections wait for every peer without the suite's deadline";
  if (world_size > 1) {
    v.skip_reason = what + "; unset it under a launcher, where a missing peer would hang the job";
  } else {
    v.warning = what + " (unset it unless comparing the two)";
  }
  return v;
}

}  // namespace gpubench::allreduce
