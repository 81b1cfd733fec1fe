// The MPI host reference: MPI_Allreduce (sum) of fp32 host buffers over the same sizes, rank counts
// and bus factors as the NCCL cases, named `.../device:host`. It measures the MPI library and the
// host (shared memory or network), not a GPU; on a machine without a GPU it is what exercises the
// multi-rank path end to end (bootstrap, per-rank timing, gathering, storing).
//
// One repetition: every rank prepares its buffers and the ranks agree (world.agree) that all are
// ready, so a rank that cannot run the case (out of memory, the failure-injection test hook) fails
// it on every rank before anyone enters an MPI_Allreduce; the first call is checked exactly
// against crafted inputs and the check's outcome agreed the same way; then
// plan.warmups - 1 more warm-ups, then plan.iterations timed calls, each after an MPI_Barrier and
// timed alone with MPI_Wtime; per call, the maximum across ranks is the call's time; the
// repetition's time is the median call.
#include <mpi.h>

#include <csignal>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "suites/allreduce/cases.hpp"
#include "suites/allreduce/world.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::allreduce {

namespace {

// The communicators of every series made so far (freed before MPI_Finalize).
std::map<std::pair<Scope, int>, MPI_Comm>& comms() {
  static auto* m = new std::map<std::pair<Scope, int>, MPI_Comm>();
  return *m;
}

// The communicator of a series (MPI_COMM_NULL on ranks that sit it out): the first `ranks` world
// ranks, every node's ranks (one communicator per node), or each node's local rank 0. Made the
// first time a case needs it, by every rank at the same point of the benchmark sequence.
MPI_Comm comm_of(const SeriesKey& key) {
  const auto id = std::make_pair(key.scope, key.ranks);
  auto it = comms().find(id);
  if (it != comms().end()) return it->second;
  const World& w = World::get();
  int color = MPI_UNDEFINED;
  switch (key.scope) {
    case Scope::world:
      color = w.rank() < key.ranks ? 0 : MPI_UNDEFINED;
      break;
    case Scope::intra_node:
      color = w.node_index();
      break;
    case Scope::inter_node:
      color = w.local_rank() == 0 ? 0 : MPI_UNDEFINED;
      break;
  }
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, w.rank(), &comm);
  comms().emplace(id, comm);
  return comm;
}

// The dying-rank test hook: GPUBENCH_ALLREDUCE_TEST_KILL_RANK=N[:<case regex>] makes world rank N
// kill itself (SIGKILL) in its first timed call (of the first case whose name matches the regex,
// when given), the way a crashed node would vanish. Only for tests of the failure path.
void maybe_die(int rank, const std::string& name) {
  struct Doom {
    int rank = -1;
    std::optional<std::regex> pattern;
  };
  static const Doom doom = [] {
    Doom d;
    const char* v = std::getenv("GPUBENCH_ALLREDUCE_TEST_KILL_RANK");
    if (!v || !*v) return d;
    const std::string text(v);
    const auto colon = text.find(':');
    d.rank = std::atoi(text.substr(0, colon).c_str());
    if (colon != std::string::npos) d.pattern.emplace(text.substr(colon + 1));
    return d;
  }();
  if (doom.rank == rank && (!doom.pattern || std::regex_search(name, *doom.pattern))) {
    std::raise(SIGKILL);
  }
}

// The failing-rank test hook (case_outcome.hpp): parsed once; a malformed value fails every host
// case on every rank with the reason (every rank reads the same environment from the launcher).
struct Injection {
  std::optional<InjectedFailure> failure;
  std::string problem;
};
const Injection& injection() {
  static const Injection* i = [] {
    auto* out = new Injection();
    try {
      out->failure = parse_injected_failure(std::getenv("GPUBENCH_ALLREDUCE_INJECT_FAILURE"));
    } catch (const std::invalid_argument& e) {
      out->problem = e.what();
    }
    return out;
  }();
  return *i;
}

// This rank's part of a case before any MPI call of it: the hook, then the buffers. A rank that
// fails here never enters the case's collectives; agreement makes every rank skip them too.
CaseOutcome prepare(const std::string& name, std::size_t count, std::vector<float>& send,
                    std::vector<float>& recv) {
  const Injection& inj = injection();
  if (!inj.problem.empty()) return {CaseStatus::failed, inj.problem};
  // Only the fail mode: a host rank left out of MPI_Allreduce would hang its peers without a
  // deadline (setup and hang are for the NCCL cases, which have one).
  if (inj.failure && inj.failure->mode == InjectedMode::fail &&
      inj.failure->matches(name, World::get().rank())) {
    return {CaseStatus::failed, inj.failure->reason()};
  }
  try {
    send.assign(count, 0.0f);
    recv.assign(count, 0.0f);
  } catch (const std::bad_alloc&) {
    return {CaseStatus::skipped,
            "out of memory: two host buffers of " + std::to_string(count * sizeof(float)) + " B"};
  }
  return {};
}

void run_host_case(benchmark::State& state, const SeriesKey& key, std::size_t nominal_bytes,
                   std::size_t bytes, const std::string& name) {
  World& world = World::get();
  const SweepPlan plan = host_plan(suite_state().profile);
  const std::size_t count = bytes / sizeof(float);
  MPI_Comm comm = comm_of(key);
  const bool member = comm != MPI_COMM_NULL;
  int sub_rank = 0;
  if (member) MPI_Comm_rank(comm, &sub_rank);
  std::vector<float> send, recv;
  const CaseOutcome prepared =
      world.agree(member ? prepare(name, count, send, recv) : CaseOutcome{});
  if (!prepared.ok()) {
    report_outcome(state, name, prepared);
    return;
  }
  const bool in_place = key.placement == Placement::in_place;
  auto call = [&] {
    MPI_Allreduce(in_place ? MPI_IN_PLACE : send.data(), recv.data(), static_cast<int>(count),
                  MPI_FLOAT, MPI_SUM, comm);
  };

  // Exact check of the first call of every repetition (each repetition runs this function).
  CaseOutcome checked;
  if (member) {
    fill_crafted(ElementType::fp32, sub_rank, 0, count, in_place ? recv.data() : send.data());
    call();
    float sums[k_crafted_period];
    for (std::size_t k = 0; k < k_crafted_period; ++k) {
      sums[k] = static_cast<float>(crafted_sum(key.ranks, k));
    }
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (recv[i] != sums[i % k_crafted_period]) ++wrong;
    }
    if (wrong > 0) {
      checked = {CaseStatus::failed, "wrong result: " + std::to_string(wrong) + " of " +
                                         std::to_string(count) +
                                         " elements differ from the exact sum"};
    }
    for (int w = 1; w < plan.warmups && checked.ok(); ++w) call();
  }
  const CaseOutcome agreed = world.agree(checked);
  if (!agreed.ok()) {
    report_outcome(state, name, agreed);
    return;
  }
  for (auto _ : state) {
    std::vector<double> times(static_cast<std::size_t>(plan.iterations), 0.0);
    if (member) {
      for (auto& t : times) {
        MPI_Barrier(comm);
        maybe_die(world.rank(), name);
        const double t0 = MPI_Wtime();
        call();
        t = MPI_Wtime() - t0;
      }
    }
    std::vector<std::pair<int, double>> own;
    if (member) own.emplace_back(world.rank(), median(times));
    world.max_in_place(times);
    report_repetition(state, key, nominal_bytes, bytes, name, times, own);
  }
}

}  // namespace

void release_host_reference() {
  for (auto& [id, comm] : comms()) {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
  comms().clear();
}

std::string host_reference_note() {
  const World& w = World::get();
  const std::string what = "host reference (MPI_Allreduce, fp32 host buffers): ";
  if (!w.mpi() || w.size() < 2) {
    return what +
           "needs 2 or more ranks: run under a launcher, e.g. gpubench run --launcher "
           "\"mpirun -np 2\"";
  }
  return what + w.library() + ", " + std::to_string(w.size()) + " ranks";
}

void register_host_reference() {
  const World& world = World::get();
  const SweepPlan plan = host_plan(suite_state().profile);
  std::vector<int> counts;
  for (int n : rank_counts(world.size())) {
    if (n >= 2) counts.push_back(n);
  }
  const bool alone = counts.empty();
  if (alone) counts.push_back(1);
  // Alone, one skipped case per placement says what is missing (not a whole sweep of skips).
  const std::vector<std::size_t> sizes =
      alone ? std::vector<std::size_t>{std::size_t{1} << 20}
            : size_sweep(plan.min_bytes, plan.max_bytes, plan.factor);
  // Several nodes: also every node on its own (intra) and one rank per node (inter).
  std::vector<std::pair<Scope, int>> series;
  for (int n : counts) series.emplace_back(Scope::world, n);
  if (world.node_count() > 1) {
    if (world.uniform_nodes() && world.local_size() >= 2) {
      series.emplace_back(Scope::intra_node, world.local_size());
    }
    series.emplace_back(Scope::inter_node, world.node_count());
  }
  for (const auto& [scope, ranks] : series) {
    suite_state().recorder.set_nodes(scope, ranks, world.nodes_spanned(scope, ranks));
  }
  for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
    for (const auto& [scope, ranks] : series) {
      for (std::size_t raw : sizes) {
        const auto c = element_counts(Collective::allreduce, raw, sizeof(float), ranks);
        if (!c) continue;
        SeriesKey key{Collective::allreduce, "fp32", placement, ranks, true, scope};
        const std::string name =
            case_name(key.collective, key.dtype, placement, c->bytes, ranks, true, scope);
        suite_state().case_names.push_back(name);
        const std::size_t bytes = c->bytes;
        suite::register_timed(name, 1, [key, raw, bytes, name, alone](benchmark::State& state) {
          if (alone) {
            suite::skip(state,
                        "one rank: the MPI host reference needs 2 or more ranks (run under "
                        "a launcher, e.g. gpubench run --launcher \"mpirun -np 2\")");
            return;
          }
          run_host_case(state, key, raw, bytes, name);
        });
      }
    }
  }
}

}  // namespace gpubench::allreduce
