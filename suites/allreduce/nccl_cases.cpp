// NCCL collectives: allreduce (sum), allgather, reduce_scatter (sum), broadcast (root 0); fp32,
// bf16, fp16; out of place and in place; 1, 2, 4, ... GPUs; sizes by x2 (sweep.hpp).
//
// Two ways to drive the GPUs (nccl-tests' -g and MPI modes):
//  - alone (world of one process): one process drives n GPUs, communicators from ncclCommInitAll;
//  - under a launcher: one rank per GPU (device = local rank), the first n world ranks form the
//    communicator (ncclCommInitRank, the ncclUniqueId made by rank 0 and broadcast over MPI);
//    ranks >= n sit the case out but keep the benchmark sequence in step.
// One repetition: the first call is checked exactly (crafted small integers, collectives.hpp),
// plan.warmups - 1 more warm-ups, then plan.iterations timed calls, each between two CUDA events
// per GPU after a barrier; a call's time is the maximum over GPUs and ranks (as nccl-tests takes
// the slowest rank); the repetition's time is the median call.
#include <algorithm>
#include <map>
#include <memory>

#include "suites/allreduce/cases.hpp"
#include "suites/allreduce/nccl_comm.hpp"
#include "suites/allreduce/world.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/libraries.hpp"

namespace gpubench::allreduce {

namespace {

using suite::cuda::DeviceAllocation;
using suite::cuda::Event;
using suite::cuda::Stream;

ncclDataType_t nccl_type(ElementType type) {
  switch (type) {
    case ElementType::fp32:
      return ncclFloat32;
    case ElementType::bf16:
      return ncclBfloat16;
    case ElementType::fp16:
      return ncclFloat16;
  }
  return ncclFloat32;
}

// One GPU taking part: its communicator, stream, events and buffers.
struct Member {
  int device = 0;
  int rank = 0;        // rank in the communicator (and, alone, its device index)
  int world_rank = 0;  // who it is for per-rank times (alone: its device index)
  NcclComm comm;
  Stream stream;
  Event start;
  Event stop;
  DeviceAllocation send;
  DeviceAllocation recv;
};

// The GPUs this process drives for one rank count. One clique lives at a time.
struct Clique {
  Scope scope = Scope::world;
  int ranks = 0;
  std::vector<Member> members;  // empty on ranks that sit out
};

struct NcclState {
  suite::cuda::DeviceProbe probe;
  int devices = 0;  // usable per process (alone) or agreed per node (MPI)
  std::unique_ptr<Clique> clique;
};
NcclState& nccl_state() {
  static auto* s = new NcclState();
  return *s;
}

Clique& clique_for(Scope scope, int ranks) {
  NcclState& s = nccl_state();
  if (s.clique && s.clique->ranks == ranks && s.clique->scope == scope) return *s.clique;
  s.clique.reset();  // communicators of the previous count are destroyed first
  auto c = std::make_unique<Clique>();
  c->scope = scope;
  c->ranks = ranks;
  World& world = World::get();
  if (world.size() == 1) {
    std::vector<int> devs(static_cast<std::size_t>(ranks));
    for (int i = 0; i < ranks; ++i) devs[static_cast<std::size_t>(i)] = i;
    std::vector<ncclComm_t> comms(static_cast<std::size_t>(ranks), nullptr);
    GPUBENCH_NCCL_CHECK(ncclCommInitAll(comms.data(), ranks, devs.data()), nullptr);
    for (int i = 0; i < ranks; ++i) {
      Member m;
      m.device = i;
      m.rank = i;
      m.world_rank = i;
      m.comm = NcclComm(comms[static_cast<std::size_t>(i)]);
      c->members.push_back(std::move(m));
    }
  } else {
    // world: the first `ranks` ranks; intra_node: each node's ranks (one id per node, made by its
    // local rank 0); inter_node: each node's local rank 0, numbered by node.
    ncclUniqueId id{};
    int comm_rank = -1;
    if (scope == Scope::intra_node) {
      if (world.local_rank() == 0) GPUBENCH_NCCL_CHECK(ncclGetUniqueId(&id), nullptr);
      world.broadcast_in_node(&id, sizeof id);
      comm_rank = world.local_rank();
    } else {
      if (world.rank() == 0) GPUBENCH_NCCL_CHECK(ncclGetUniqueId(&id), nullptr);
      world.broadcast(&id, sizeof id, 0);
      if (scope == Scope::world && world.rank() < ranks) comm_rank = world.rank();
      if (scope == Scope::inter_node && world.local_rank() == 0) comm_rank = world.node_index();
    }
    if (comm_rank >= 0) {
      Member m;
      m.device = world.local_rank() % s.probe.count;
      m.rank = comm_rank;
      m.world_rank = world.rank();
      GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
      ncclComm_t comm = nullptr;
      GPUBENCH_NCCL_CHECK(ncclCommInitRank(&comm, ranks, id, m.rank), nullptr);
      m.comm = NcclComm(comm);
      c->members.push_back(std::move(m));
    }
  }
  for (Member& m : c->members) {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
    m.stream = Stream::create();
    m.start = Event::create();
    m.stop = Event::create();
  }
  s.clique = std::move(c);
  return *s.clique;
}

struct NcclCase {
  SeriesKey key;
  ElementType type = ElementType::fp32;
  ElementCounts counts;
  std::string name;
};

void enqueue(const NcclCase& c, Member& m) {
  const ncclDataType_t t = nccl_type(c.type);
  const std::size_t eb = element_bytes(c.type);
  auto* recv = static_cast<char*>(m.recv.data());
  auto* send = static_cast<char*>(m.send.data());
  const bool in_place = c.key.placement == Placement::in_place;
  const auto offset = static_cast<std::size_t>(m.rank);
  switch (c.key.collective) {
    case Collective::allreduce:
      GPUBENCH_NCCL_CHECK(ncclAllReduce(in_place ? recv : send, recv, c.counts.recv, t, ncclSum,
                                        m.comm.get(), m.stream.get()),
                          m.comm.get());
      break;
    case Collective::allgather:
      GPUBENCH_NCCL_CHECK(ncclAllGather(in_place ? recv + offset * c.counts.send * eb : send, recv,
                                        c.counts.send, t, m.comm.get(), m.stream.get()),
                          m.comm.get());
      break;
    case Collective::reduce_scatter:
      GPUBENCH_NCCL_CHECK(
          ncclReduceScatter(send, in_place ? send + offset * c.counts.recv * eb : recv,
                            c.counts.recv, t, ncclSum, m.comm.get(), m.stream.get()),
          m.comm.get());
      break;
    case Collective::broadcast:
      GPUBENCH_NCCL_CHECK(ncclBroadcast(in_place ? recv : send, recv, c.counts.recv, t, 0,
                                        m.comm.get(), m.stream.get()),
                          m.comm.get());
      break;
  }
}

// One call on every member (a group when this process drives several GPUs).
void call_all(const NcclCase& c, Clique& q) {
  GPUBENCH_NCCL_CHECK(ncclGroupStart(), nullptr);
  for (Member& m : q.members) {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
    enqueue(c, m);
  }
  GPUBENCH_NCCL_CHECK(ncclGroupEnd(), nullptr);
}

// Fills the inputs with crafted values; returns how many result elements are wrong after a call.
std::size_t checked_call(const NcclCase& c, Clique& q) {
  const std::size_t eb = element_bytes(c.type);
  const bool in_place = c.key.placement == Placement::in_place;
  for (Member& m : q.members) {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
    // Every rank's input is `send` elements; in place, allgather reads its own slice of recv,
    // allreduce and broadcast work in recv, reduce_scatter in send.
    const bool into_recv = in_place && c.key.collective != Collective::reduce_scatter;
    const std::size_t n = c.counts.send;
    std::vector<unsigned char> host(n * eb);
    fill_crafted(c.type, m.rank, 0, n, host.data());
    char* dst = static_cast<char*>(into_recv ? m.recv.data() : m.send.data());
    if (into_recv && c.key.collective == Collective::allgather) {
      dst += static_cast<std::size_t>(m.rank) * c.counts.send * eb;
    }
    GPUBENCH_CUDA_CHECK(cudaMemcpy(dst, host.data(), host.size(), cudaMemcpyHostToDevice));
  }
  call_all(c, q);
  std::size_t wrong = 0;
  for (Member& m : q.members) {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
    GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
    const bool rs_in_place = in_place && c.key.collective == Collective::reduce_scatter;
    const char* src = static_cast<const char*>(rs_in_place ? m.send.data() : m.recv.data());
    if (rs_in_place) src += static_cast<std::size_t>(m.rank) * c.counts.recv * eb;
    std::vector<unsigned char> host(c.counts.recv * eb);
    GPUBENCH_CUDA_CHECK(cudaMemcpy(host.data(), src, host.size(), cudaMemcpyDeviceToHost));
    // Crafted values repeat every k_crafted_period elements: the sums come from a small table.
    int sums[k_crafted_period];
    for (std::size_t k = 0; k < k_crafted_period; ++k) sums[k] = crafted_sum(q.ranks, k);
    for (std::size_t i = 0; i < c.counts.recv; ++i) {
      int expected = 0;
      switch (c.key.collective) {
        case Collective::allreduce:
          expected = sums[i % k_crafted_period];
          break;
        case Collective::allgather:
          expected = crafted_value(static_cast<int>(i / c.counts.send), i % c.counts.send);
          break;
        case Collective::reduce_scatter:
          expected =
              sums[(static_cast<std::size_t>(m.rank) * c.counts.recv + i) % k_crafted_period];
          break;
        case Collective::broadcast:
          expected = crafted_value(0, i);
          break;
      }
      if (element_value(c.type, host.data(), i) != static_cast<float>(expected)) ++wrong;
    }
  }
  return wrong;
}

void run_nccl_case(benchmark::State& state, const NcclCase& c) {
  World& world = World::get();
  NcclState& s = nccl_state();
  if (s.devices == 0) {
    suite::skip(state, s.probe.reason.empty() ? "no CUDA device on some rank" : s.probe.reason);
    return;
  }
  const SweepPlan plan = nccl_plan(suite_state().profile);
  std::vector<std::pair<int, double>> own;
  std::vector<double> times(static_cast<std::size_t>(plan.iterations), 0.0);
  bool timed = false;
  suite::run_guarded(state, c.name, [&] {
    Clique& q = clique_for(c.key.scope, c.key.ranks);
    for (Member& m : q.members) {
      GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
      if (m.send.bytes() < c.counts.send * element_bytes(c.type)) {
        m.send = DeviceAllocation();
        m.send = DeviceAllocation(c.counts.send * element_bytes(c.type));
      }
      if (m.recv.bytes() < c.counts.recv * element_bytes(c.type)) {
        m.recv = DeviceAllocation();
        m.recv = DeviceAllocation(c.counts.recv * element_bytes(c.type));
      }
    }
    const std::size_t wrong = q.members.empty() ? 0 : checked_call(c, q);
    const int wrong_anywhere = -world.min(-static_cast<int>(std::min<std::size_t>(wrong, 1 << 30)));
    if (wrong_anywhere > 0) {
      suite::fail(state, "wrong result: " + std::to_string(wrong_anywhere) +
                             " elements differ from the exact expected values on some GPU");
      return;
    }
    for (int w = 1; w < plan.warmups && !q.members.empty(); ++w) call_all(c, q);
    for (Member& m : q.members) GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
    for (auto _ : state) {
      std::vector<std::vector<double>> per_member(q.members.size());
      for (auto& t : times) {
        world.barrier();
        t = 0;
        if (q.members.empty()) continue;
        for (Member& m : q.members) {
          GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
          m.start.record(m.stream.get());
        }
        call_all(c, q);
        for (std::size_t i = 0; i < q.members.size(); ++i) {
          Member& m = q.members[i];
          GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
          m.stop.record(m.stream.get());
        }
        for (std::size_t i = 0; i < q.members.size(); ++i) {
          Member& m = q.members[i];
          m.stop.synchronize();
          const double ms = m.stop.elapsed_ms_since(m.start);
          per_member[i].push_back(ms / 1e3);
          t = std::max(t, ms / 1e3);
        }
      }
      own.clear();
      for (std::size_t i = 0; i < q.members.size(); ++i) {
        own.emplace_back(q.members[i].world_rank, median(per_member[i]));
      }
      world.max_in_place(times);
      timed = true;
      report_repetition(state, c.key, c.counts.bytes, c.name, times, own);
    }
  });
  if (!timed && state.error_occurred() && nccl_state().clique) {
    // A failed communicator may hold work that never ends: abort it rather than wait.
    for (Member& m : nccl_state().clique->members) m.comm.abort();
    nccl_state().clique.reset();
  }
}

}  // namespace

std::string nccl_library_text() {
  return nccl_version_text();
}

std::string local_gpu_uuids() {
  const auto probe = suite::cuda::probe_devices();
  if (probe.count == 0) return "";
  World& world = World::get();
  std::string out;
  for (int d = 0; d < probe.count; ++d) {
    if (world.size() > 1 && d != world.local_rank() % probe.count) continue;
    try {
      if (!out.empty()) out += ",";
      out += suite::cuda::query_device(d).uuid;
    } catch (const std::exception&) {
      out += "unknown";
    }
  }
  return out;
}

std::string nccl_note() {
  // libnccl is loaded at run time: without it the cases are skipped with where it was looked for.
  if (const auto& lib = suite::cuda::library_status(suite::cuda::Library::nccl); !lib.loaded) {
    return "NCCL cases: skipped: " + lib.reason;
  }
  const auto probe = suite::cuda::probe_devices();
  if (probe.count == 0) return "NCCL cases (" + nccl_version_text() + "): skipped: " + probe.reason;
  return "NCCL cases (" + nccl_version_text() + "): " + std::to_string(probe.count) + " GPU" +
         (probe.count == 1 ? "" : "s") + " visible to each process";
}

void register_nccl_cases() {
  World& world = World::get();
  NcclState& s = nccl_state();
  s.probe = suite::cuda::probe_devices();
  suite::cuda::add_libraries_context({suite::cuda::Library::nccl});  // where libnccl came from
  if (const auto& lib = suite::cuda::library_status(suite::cuda::Library::nccl); !lib.loaded) {
    s.probe.count = 0;  // no usable GPU for NCCL on this rank: one skipped case per series
    s.probe.reason = lib.reason;
  }
  // Every rank must register the same cases: agree on the smallest device count.
  s.devices = world.min(s.probe.count);
  if (s.devices > 0 && world.size() > 1) {
    // One rank per GPU: two ranks of a node on one GPU would make NCCL fail (or measure a GPU
    // against itself). The identity table on rank 0 has every rank's GPU UUID.
    std::string shared;
    if (world.rank() == 0) {
      std::map<std::pair<std::string, std::string>, int> seen;  // (host, uuid) -> rank
      for (const RankIdentity& id : suite_state().ranks) {
        auto [it, fresh] = seen.emplace(std::make_pair(id.host, id.gpu_uuid), id.rank);
        if (!fresh && shared.empty()) {
          shared = "ranks " + std::to_string(it->second) + " and " + std::to_string(id.rank) +
                   " on " + id.host + " would share GPU " + id.gpu_uuid +
                   ": run one rank per GPU (e.g. mpirun -np <GPUs per node x nodes>)";
        }
      }
    }
    int ok = shared.empty() ? 1 : 0;
    world.broadcast(&ok, sizeof ok, 0);
    if (!ok) {
      s.probe.reason = world.rank() == 0 ? shared : "two ranks would share a GPU";
      s.devices = 0;
    }
  }
  const suite::Profile profile = suite_state().profile;
  const SweepPlan plan = nccl_plan(profile);
  const bool usable = s.devices > 0;
  const int available = world.size() > 1 ? world.size() : std::max(s.devices, 1);
  // Without a usable GPU, one skipped case per collective, dtype and placement says why.
  const std::vector<int> counts = usable ? rank_counts(available) : std::vector<int>{available};
  const std::vector<std::size_t> sizes =
      usable ? size_sweep(plan.min_bytes, plan.max_bytes, plan.factor)
             : std::vector<std::size_t>{plan.max_bytes};
  // Series (scope, rank count) outermost: each one's communicators are made once (ncclCommInitAll
  // or ncclCommInitRank) and used by every case of that count; 2 ranks run before more, so scaling
  // efficiency can be reported as the larger counts run.
  std::vector<std::pair<Scope, int>> series;
  for (int n : counts) series.emplace_back(Scope::world, n);
  if (usable && world.size() > 1 && world.node_count() > 1) {
    if (world.uniform_nodes() && world.local_size() >= 2) {
      series.emplace_back(Scope::intra_node, world.local_size());
    }
    series.emplace_back(Scope::inter_node, world.node_count());
  }
  for (const auto& [scope, ranks] : series) {
    for (Collective collective : k_all_collectives) {
      for (ElementType type : {ElementType::fp32, ElementType::bf16, ElementType::fp16}) {
        // quick: allreduce in every dtype, the other collectives in fp32 only.
        if (profile == suite::Profile::quick && collective != Collective::allreduce &&
            type != ElementType::fp32) {
          continue;
        }
        for (Placement placement : {Placement::out_of_place, Placement::in_place}) {
          for (std::size_t raw : sizes) {
            const auto counts_of = element_counts(collective, raw, element_bytes(type), ranks);
            if (!counts_of) continue;
            NcclCase c;
            c.key = SeriesKey{collective, to_string(type), placement, ranks, false, scope};
            c.type = type;
            c.counts = *counts_of;
            c.name =
                case_name(collective, c.key.dtype, placement, c.counts.bytes, ranks, false, scope);
            benchmark::RegisterBenchmark(c.name.c_str(),
                                         [c](benchmark::State& state) { run_nccl_case(state, c); })
                ->UseManualTime()
                ->Iterations(1)
                ->Unit(benchmark::kMicrosecond);
          }
        }
      }
    }
  }
}

}  // namespace gpubench::allreduce
