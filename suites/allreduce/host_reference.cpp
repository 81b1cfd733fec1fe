// The MPI host reference: MPI_Allreduce (sum) of fp32 host buffers over the same sizes, rank counts
// and bus factors as the NCCL cases, named `.../device:host`. It measures the MPI library and the
// host (shared memory or network), not a GPU; on a machine without a GPU it is what exercises the
// multi-rank path end to end (bootstrap, per-rank timing, gathering, storing).
//
// One repetition: the first warm-up call is checked exactly against crafted inputs (every rank's
// result must equal the known sum; a mismatch on any rank fails the case on all ranks), then
// plan.warmups - 1 more warm-ups, then plan.iterations timed calls, each after an MPI_Barrier and
// timed alone with MPI_Wtime; per call, the maximum across ranks is the call's time; the
// repetition's time is the median call.
#include <mpi.h>

#include <csignal>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "suites/allreduce/cases.hpp"
#include "suites/allreduce/world.hpp"

namespace gpubench::allreduce {

namespace {

// Sub-communicator of the first `ranks` world ranks (MPI_COMM_NULL on the others). Made the first
// time a case needs it, by every rank at the same point of the benchmark sequence.
MPI_Comm comm_of(int ranks) {
  static auto* comms = new std::map<int, MPI_Comm>();
  auto it = comms->find(ranks);
  if (it != comms->end()) return it->second;
  const int rank = World::get().rank();
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank < ranks ? 0 : MPI_UNDEFINED, rank, &comm);
  comms->emplace(ranks, comm);
  return comm;
}

// The dying-rank test hook: GPUBENCH_ALLREDUCE_TEST_KILL_RANK=N makes rank N kill itself (SIGKILL)
// in its first timed call, the way a crashed node would vanish. Only for tests of the failure path.
void maybe_die(int rank) {
  static const int doomed = [] {
    const char* v = std::getenv("GPUBENCH_ALLREDUCE_TEST_KILL_RANK");
    return v && *v ? std::atoi(v) : -1;
  }();
  if (doomed == rank) std::raise(SIGKILL);
}

void run_host_case(benchmark::State& state, const SeriesKey& key, std::size_t bytes,
                   const std::string& name) {
  World& world = World::get();
  const SweepPlan plan = host_plan(suite_state().profile);
  const std::size_t count = bytes / sizeof(float);
  MPI_Comm comm = comm_of(key.ranks);
  const bool member = comm != MPI_COMM_NULL;
  int sub_rank = 0;
  if (member) MPI_Comm_rank(comm, &sub_rank);
  std::vector<float> send(count), recv(count);
  const bool in_place = key.placement == Placement::in_place;
  auto call = [&] {
    MPI_Allreduce(in_place ? MPI_IN_PLACE : send.data(), recv.data(), static_cast<int>(count),
                  MPI_FLOAT, MPI_SUM, comm);
  };

  // Exact check of the first call.
  int wrong = 0;
  if (member) {
    fill_crafted(ElementType::fp32, sub_rank, 0, count, in_place ? recv.data() : send.data());
    call();
    for (std::size_t i = 0; i < count; ++i) {
      if (recv[i] != static_cast<float>(crafted_sum(key.ranks, i))) ++wrong;
    }
    for (int w = 1; w < plan.warmups; ++w) call();
  }
  const int wrong_anywhere = -world.min(-wrong);  // max over ranks
  if (wrong_anywhere > 0) {
    suite::fail(state, "wrong result: " + std::to_string(wrong_anywhere) +
                           " elements differ from the exact sum on at least one rank");
    return;
  }
  for (auto _ : state) {
    std::vector<double> times(static_cast<std::size_t>(plan.iterations), 0.0);
    if (member) {
      for (auto& t : times) {
        MPI_Barrier(comm);
        maybe_die(world.rank());
        const double t0 = MPI_Wtime();
        call();
        t = MPI_Wtime() - t0;
      }
    }
    std::vector<std::pair<int, double>> own;
    if (member) own.emplace_back(world.rank(), median(times));
    world.max_in_place(times);
    report_repetition(state, key, bytes, name, times, own);
  }
}

}  // namespace

std::string host_reference_note() {
  const World& w = World::get();
  return "host reference (MPI_Allreduce, fp32 host buffers): " + w.library() + ", " +
         std::to_string(w.size()) + " rank" + (w.size() == 1 ? "" : "s") +
         (w.size() < 2 ? " (needs 2 or more: run under a launcher)" : "");
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
  for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
    for (int ranks : counts) {
      for (std::size_t raw : size_sweep(plan.min_bytes, plan.max_bytes, plan.factor)) {
        const auto c = element_counts(Collective::allreduce, raw, sizeof(float), ranks);
        if (!c) continue;
        SeriesKey key{Collective::allreduce, "fp32", placement, ranks, true};
        const std::string name = case_name(key.collective, key.dtype, placement, c->bytes, ranks, true);
        const std::size_t bytes = c->bytes;
        auto* b = benchmark::RegisterBenchmark(
            name.c_str(), [key, bytes, name, alone](benchmark::State& state) {
              if (alone) {
                suite::skip(state,
                            "one rank: the MPI host reference needs 2 or more ranks (run under "
                            "a launcher, e.g. gpubench run --launcher \"mpirun -np 2\")");
                return;
              }
              run_host_case(state, key, bytes, name);
            });
        b->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

}  // namespace gpubench::allreduce
