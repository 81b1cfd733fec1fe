// NCCL collectives: allreduce (sum), allgather, reduce_scatter (sum), broadcast (root 0); fp32,
// bf16, fp16; out of place and in place; 1, 2, 4, ... GPUs; sizes by x2 (sweep.hpp).
//
// Two ways to drive the GPUs (nccl-tests' -g and MPI modes):
//  - alone (world of one process): one process drives n GPUs, one communicator per GPU made in
//    one group;
//  - under a launcher: one rank per GPU (device = local rank), the first n world ranks form the
//    communicator; ranks >= n sit the case out but keep the benchmark sequence in step.
// Communicators are non-blocking and every wait has a deadline (nccl_clique.hpp). The phases of a
// repetition and their agreement are case_runner.hpp's; NcclBackend below is what each phase does
// here. A failure on one rank (out of memory, a communicator that could not be made, an NCCL or
// CUDA error, a wrong result, a timeout) fails the case on every rank, the communicators are
// aborted everywhere after the agreement and the next case starts afresh on every rank; a series
// whose setup failed, or that timed out twice in a row, is skipped for the rest of the run.
//
// One repetition (Google Benchmark runs this function once per repetition):
//  A. inputs made on the device (crafted integers, kernels/collective_check) on each GPU's NCCL
//     stream, outputs set to NaN; the first call; its output checked on the device (a mismatch
//     counter); plan.warmups - 1 more calls; out of place, the output set to NaN again.
//  B. every GPU's stream held by a spin kernel; behind it a device-side barrier (a 1-element
//     allreduce), a start event, plan.iterations calls (one group over this process's GPUs each), a
//     stop event; the ranks agree that all have queued (the MPI barrier), then release the hold:
//     the calls run back to back, without the host's per-call cost (on NCCL >= 2.23 a thread per
//     call on non-blocking communicators) in between. A GPU's time per call is its elapsed time /
//     iterations; the repetition's time is the slowest GPU's (max over GPUs and ranks; nccl-tests
//     averages over ranks instead: busbw_mean_GB_per_s). Out of place, the output is checked on the
//     device again, so timed calls that did nothing (leaving NaN) fail the case.
// In place, the timed calls feed on their own output (sums grow), so only phase A's call is
// checked; ranks:1 in place is skipped (NCCL has nothing to move and enqueues no work).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "kernels/collective_check/collective_check.hpp"
#include "suites/allreduce/case_runner.hpp"
#include "suites/allreduce/cases.hpp"
#include "suites/allreduce/nccl_clique.hpp"
#include "suites/allreduce/rank_checks.hpp"
#include "suites/allreduce/world.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/libraries.hpp"
#include "suites/common/launch_ledger.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::allreduce {

namespace {

namespace check = kernels::collective_check;
using suite::cuda::DeviceAllocation;

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

check::Dtype check_type(ElementType type) {
  return type == ElementType::fp32   ? check::Dtype::fp32
         : type == ElementType::bf16 ? check::Dtype::bf16
                                     : check::Dtype::fp16;
}

struct NcclState {
  suite::cuda::DeviceProbe probe;
  int devices = 0;  // usable per process (alone) or agreed per node (MPI)
  std::unique_ptr<Clique> clique;
  SeriesBreaker breaker;
  std::optional<InjectedFailure> injected;  // GPUBENCH_ALLREDUCE_INJECT_FAILURE
  std::string injected_problem;             // a malformed value: every case fails with it
};
NcclState& nccl_state() {
  static auto* s = new NcclState();
  return *s;
}

double timeout_for(std::size_t bytes, int calls) {
  return wait_timeout_s(bytes, calls, std::getenv("GPUBENCH_ALLREDUCE_TIMEOUT_S"));
}

std::string series_id(Scope scope, int ranks) {
  return std::string(to_string(scope)) + "/" + std::to_string(ranks);
}

struct NcclCase {
  SeriesKey key;
  ElementType type = ElementType::fp32;
  ElementCounts counts;
  std::size_t nominal_bytes = 0;  // the sweep's size before rounding (scaling efficiency's key)
  std::string name;
};

std::string describe_case(const NcclCase& c) {
  return std::string(to_string(c.key.collective)) + " " + c.key.dtype + " of " +
         std::to_string(c.counts.bytes) + " B on " + std::to_string(c.key.ranks) + " GPUs";
}

bool in_place(const NcclCase& c) {
  return c.key.placement == Placement::in_place;
}

// Where a member's result lies: in place, reduce_scatter writes its slice of the send buffer.
char* output_of(const NcclCase& c, Member& m) {
  if (in_place(c) && c.key.collective == Collective::reduce_scatter) {
    return static_cast<char*>(m.send.data()) +
           static_cast<std::size_t>(m.rank) * c.counts.recv * element_bytes(c.type);
  }
  return static_cast<char*>(m.recv.data());
}

void enqueue_collective(const NcclCase& c, Member& m) {
  const ncclDataType_t t = nccl_type(c.type);
  const std::size_t eb = element_bytes(c.type);
  auto* recv = static_cast<char*>(m.recv.data());
  auto* send = static_cast<char*>(m.send.data());
  const bool ip = in_place(c);
  const auto offset = static_cast<std::size_t>(m.rank);
  ncclComm_t comm = m.comm.get();
  cudaStream_t stream = m.stream.get();
  switch (c.key.collective) {
    case Collective::allreduce:
      check_enqueue(ncclAllReduce(ip ? recv : send, recv, c.counts.recv, t, ncclSum, comm, stream),
                    comm, "ncclAllReduce");
      break;
    case Collective::allgather:
      check_enqueue(ncclAllGather(ip ? recv + offset * c.counts.send * eb : send, recv,
                                  c.counts.send, t, comm, stream),
                    comm, "ncclAllGather");
      break;
    case Collective::reduce_scatter:
      check_enqueue(ncclReduceScatter(send, ip ? send + offset * c.counts.recv * eb : recv,
                                      c.counts.recv, t, ncclSum, comm, stream),
                    comm, "ncclReduceScatter");
      break;
    case Collective::broadcast:
      check_enqueue(ncclBroadcast(ip ? recv : send, recv, c.counts.recv, t, 0, comm, stream), comm,
                    "ncclBroadcast");
      break;
  }
}

// Stream-ordered inputs on the member's NCCL stream: crafted values where the collective reads,
// NaN (all bits set) where only the result goes, so a call that writes nothing is caught.
void prepare_inputs(const NcclCase& c, Member& m, int modulus) {
  const std::size_t eb = element_bytes(c.type);
  cudaStream_t st = m.stream.get();
  const check::Dtype t = check_type(c.type);
  auto fill = [&](void* at, std::size_t count) {
    GPUBENCH_CUDA_CHECK(
        static_cast<cudaError_t>(check::launch_fill_input(at, count, 0, t, m.rank, modulus, st)));
  };
  if (!in_place(c)) {
    GPUBENCH_CUDA_CHECK(cudaMemsetAsync(m.recv.data(), 0xFF, c.counts.recv * eb, st));
    fill(m.send.data(), c.counts.send);
    return;
  }
  switch (c.key.collective) {
    case Collective::allreduce:
    case Collective::broadcast:
      fill(m.recv.data(), c.counts.recv);
      break;
    case Collective::allgather:
      GPUBENCH_CUDA_CHECK(cudaMemsetAsync(m.recv.data(), 0xFF, c.counts.recv * eb, st));
      fill(
          static_cast<char*>(m.recv.data()) + static_cast<std::size_t>(m.rank) * c.counts.send * eb,
          c.counts.send);
      break;
    case Collective::reduce_scatter:
      fill(m.send.data(), c.counts.send);
      break;
  }
}

// Counts the member's wrong result elements on its device, then copies the count to pinned host
// memory (read after wait_clique).
void enqueue_check(const NcclCase& c, Member& m, int modulus) {
  check::CheckSpec spec;
  spec.layout = static_cast<check::Layout>(static_cast<int>(c.key.collective));
  spec.type = check_type(c.type);
  spec.ranks = c.key.ranks;
  spec.rank = m.rank;
  spec.modulus = modulus;
  spec.send_count = c.counts.send;
  spec.recv_count = c.counts.recv;
  cudaStream_t st = m.stream.get();
  auto* counter = static_cast<unsigned long long*>(m.counter.data());
  GPUBENCH_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof *counter, st));
  GPUBENCH_CUDA_CHECK(
      static_cast<cudaError_t>(check::launch_count_mismatches(output_of(c, m), spec, counter, st)));
  GPUBENCH_CUDA_CHECK(
      cudaMemcpyAsync(m.mismatches.data(), counter, sizeof *counter, cudaMemcpyDeviceToHost, st));
}

// Checks every member's output on its device and waits for the counts (bounded).
CaseOutcome check_outputs(const NcclCase& c, Clique& q, int modulus, double timeout_s,
                          const char* when) {
  for (Member& m : q.members) {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
    enqueue_check(c, m, modulus);
  }
  CaseOutcome out = wait_clique(q, timeout_s, "the result check of " + describe_case(c));
  if (!out.ok()) return out;
  for (Member& m : q.members) {
    const unsigned long long wrong = *m.mismatches.data();
    if (wrong > 0) {
      return {CaseStatus::failed,
              "wrong result " + std::string(when) + ": " + std::to_string(wrong) + " of " +
                  std::to_string(c.counts.recv) +
                  " elements differ from the exact expected values on GPU " +
                  std::to_string(m.device) + " (communicator rank " + std::to_string(m.rank) + ")"};
    }
  }
  return {};
}

// Every member's send and receive buffers, grown when a case needs more.
void size_buffers(const NcclCase& c, Clique& q) {
  const std::size_t eb = element_bytes(c.type);
  for (Member& m : q.members) {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
    if (m.send.bytes() < c.counts.send * eb) {
      m.send = DeviceAllocation();
      m.send = DeviceAllocation(c.counts.send * eb);
    }
    if (m.recv.bytes() < c.counts.recv * eb) {
      m.recv = DeviceAllocation();
      m.recv = DeviceAllocation(c.counts.recv * eb);
    }
  }
}

bool member_of(const std::vector<int>& ranks, const Member& m) {
  return std::find(ranks.begin(), ranks.end(), m.world_rank) != ranks.end();
}

// The phases of case_runner.hpp for one NCCL case, on the process-wide clique.
class NcclBackend final : public CollectiveBackend {
 public:
  NcclBackend(const NcclCase& c, int modulus)
      : m_case(c),
        m_modulus(modulus),
        m_plan(nccl_plan(suite_state().profile)),
        m_timeout_s(timeout_for(c.counts.bytes, m_plan.iterations)),
        m_what(describe_case(c)) {}

  std::vector<int> ranks_here() const override {
    World& world = World::get();
    std::vector<int> out;
    const int n = m_case.key.ranks;
    if (world.size() == 1) {
      for (int i = 0; i < n; ++i) out.push_back(i);
      return out;
    }
    switch (m_case.key.scope) {
      case Scope::world:
        if (world.rank() < n) out.push_back(world.rank());
        break;
      case Scope::intra_node:
        out.push_back(world.rank());
        break;
      case Scope::inter_node:
        if (world.local_rank() == 0) out.push_back(world.rank());
        break;
    }
    return out;
  }

  // The series changes on every rank at the same case: the previous one is released (finalize,
  // bounded, then destroy) and the new one made.
  CaseOutcome open_series(const std::vector<int>& leave_out) override {
    NcclState& s = nccl_state();
    const Scope scope = m_case.key.scope;
    const int ranks = m_case.key.ranks;
    if (s.clique && s.clique->ranks == ranks && s.clique->scope == scope) return {};
    if (s.clique) release_clique(*s.clique, timeout_for(0, 0));
    s.clique.reset();
    return make_clique(scope, ranks, s.probe.count, timeout_for(0, 0), leave_out, s.clique);
  }

  CaseOutcome prepare() override {
    return guarded(m_what, [&] { size_buffers(m_case, clique()); });
  }

  // Phase A: inputs, the checked first call, the other warm-ups (see the file comment).
  CaseOutcome warm_up() override {
    CaseOutcome out;
    const CaseOutcome thrown = guarded(m_what, [&] {
      Clique& q = clique();
      auto call = [&](Member& m) { enqueue_collective(m_case, m); };
      for (Member& m : q.members) {
        GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
        prepare_inputs(m_case, m, m_modulus);
      }
      out = group_call(q, call, m_timeout_s, m_what);
      if (out.ok()) out = check_outputs(m_case, q, m_modulus, m_timeout_s, "of the first call");
      for (int w = 1; w < m_plan.warmups && out.ok(); ++w) {
        out = group_call(q, call, m_timeout_s, m_what);
      }
      if (out.ok() && !in_place(m_case)) {
        for (Member& m : q.members) {
          GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
          GPUBENCH_CUDA_CHECK(cudaMemsetAsync(m.recv.data(), 0xFF,
                                              m_case.counts.recv * element_bytes(m_case.type),
                                              m.stream.get()));
        }
      }
      if (out.ok()) out = wait_clique(q, m_timeout_s, "the warm-up calls of " + m_what);
    });
    return thrown.ok() ? out : thrown;
  }

  // Phase B, first half: everything queued behind the held streams, nothing waited for on the GPU.
  CaseOutcome queue_timed(const std::vector<int>& leave_out) override {
    Clique& q = clique();
    if (q.members.empty()) return {};
    m_held = true;
    CaseOutcome out;
    const CaseOutcome thrown = guarded(m_what, [&] {
      hold_streams(q);
      // Nothing queued here runs before the release: no kernel's first launch (launch_ledger.hpp).
      const suite::ScopedLaunchScope gated(suite::LaunchScope::gated);
      auto take_part = [&](const Member& m) { return !member_of(leave_out, m); };
      // Device-side barrier: every GPU leaves this 1-element allreduce at about the same moment,
      // so the start events below mark a common start.
      out = device_barrier(q, m_timeout_s, "the device barrier before " + m_what, take_part);
      for (Member& m : q.members) {
        if (!out.ok()) break;
        GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
        m.start.record(m.stream.get());
      }
      for (int i = 0; i < m_plan.iterations && out.ok(); ++i) {
        out = group_call(
            q, [&](Member& m) { enqueue_collective(m_case, m); }, m_timeout_s, m_what, take_part);
      }
      for (Member& m : q.members) {
        if (!out.ok()) break;
        GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
        m.stop.record(m.stream.get());
      }
    });
    return thrown.ok() ? out : thrown;
  }

  void release() noexcept override {
    // The timed calls run from here on (the device barrier first): the sample's window opens.
    m_window_start_s = suite::SampleStateRecorder::now_s();
    if (m_held) release_streams(clique());
    m_held = false;
  }

  // Phase B, second half: the timed calls waited for, their times, the out-of-place check.
  CaseOutcome finish_timed(OwnTimes& times) override {
    CaseOutcome out;
    const CaseOutcome thrown = guarded(m_what, [&] {
      Clique& q = clique();
      out = wait_clique(q, m_timeout_s, "the timed calls of " + m_what);
      if (!out.ok() || q.members.empty()) return;
      times.window_start_s = m_window_start_s;
      times.window_end_s = suite::SampleStateRecorder::now_s();
      check_hold(q);
      for (Member& m : q.members) {
        const double per_call_s = m.stop.elapsed_ms_since(m.start) / 1e3 / m_plan.iterations;
        times.own.emplace_back(m.world_rank, per_call_s);
        times.slowest_call_s = std::max(times.slowest_call_s, per_call_s);
      }
      // The clock each GPU ran the calls at, read right after them (outside the timed interval).
      for (Member& m : q.members) {
        const double mhz = probe_clock_mhz(m);
        if (mhz > 0 && (times.min_clock_mhz == 0 || mhz < times.min_clock_mhz)) {
          times.min_clock_mhz = mhz;
        }
      }
      if (!in_place(m_case)) {
        out = check_outputs(m_case, q, m_modulus, m_timeout_s, "after the timed calls");
      }
    });
    return thrown.ok() ? out : thrown;
  }

  // After a failure every rank agreed on: the communicators may hold work that never ends.
  void drop() noexcept override {
    NcclState& s = nccl_state();
    if (s.clique) abort_clique(*s.clique);
    s.clique.reset();
  }

 private:
  Clique& clique() const { return *nccl_state().clique; }

  const NcclCase& m_case;
  int m_modulus;
  SweepPlan m_plan;
  double m_timeout_s;
  std::string m_what;
  bool m_held = false;
  double m_window_start_s = 0;
};

void run_nccl_case(benchmark::State& state, const NcclCase& c) {
  World& world = World::get();
  NcclState& s = nccl_state();
  if (s.devices == 0) {
    suite::skip(state, s.probe.reason.empty() ? "no CUDA device on some rank" : s.probe.reason);
    return;
  }
  if (!s.injected_problem.empty()) {
    report_outcome(state, c.name, {CaseStatus::failed, s.injected_problem});
    return;
  }
  const int modulus = check::crafted_modulus(check_type(c.type), c.key.ranks);
  if (modulus == 0) {
    suite::skip(state, std::string("no exact crafted input: sums over ") +
                           std::to_string(c.key.ranks) + " ranks are not exact in " + c.key.dtype);
    return;
  }
  CaseRunner runner(world.agreement_ops(), s.breaker, s.injected);
  for (auto _ : state) {
    NcclBackend backend(c, modulus);
    const RepetitionResult r = runner.run(backend, series_id(c.key.scope, c.key.ranks), c.name);
    if (!r.outcome.ok()) {
      report_outcome(state, c.name, r.outcome);
      break;
    }
    // The slowest GPU's time, and (negated, so one max finds it) the lowest clock over every
    // GPU of every rank; a rank without a clock reading (or sitting the case out) adds -inf.
    const double clock = r.times.min_clock_mhz;
    std::vector<double> times{r.times.slowest_call_s,
                              clock > 0 ? -clock : -std::numeric_limits<double>::infinity()};
    world.max_in_place(times);
    const double lowest_clock_mhz = std::isfinite(times[1]) ? -times[1] : 0.0;
    times.pop_back();
    suite::SampleStateRecorder gpu_states;
    if (r.times.window_end_s > 0) {
      gpu_states.add(lowest_clock_mhz, r.times.window_start_s, r.times.window_end_s);
    }
    report_repetition(state, c.key, c.nominal_bytes, c.counts.bytes, c.name, times, r.times.own,
                      &gpu_states);
  }
}

}  // namespace

void release_nccl() {
  NcclState& s = nccl_state();
  if (s.clique) release_clique(*s.clique, timeout_for(0, 0));
  s.clique.reset();
}

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

std::string local_gpu_pci_bus_ids() {
  const auto probe = suite::cuda::probe_devices();
  if (probe.count == 0) return "";
  World& world = World::get();
  std::string out;
  bool first = true;
  for (int d = 0; d < probe.count; ++d) {
    if (world.size() > 1 && d != world.local_rank() % probe.count) continue;
    if (!first) out += ",";
    first = false;
    try {
      out += suite::cuda::query_device(d).pci_bus_id;
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

// ranks:1 in place: NCCL returns without enqueuing anything (there is nothing to move), so events
// around it would time an empty stream. Out of place, one rank times NCCL's local copy.
constexpr const char* k_one_rank_in_place =
    "one rank in place: NCCL has nothing to move and enqueues no work, so there is nothing to "
    "time (mode:out_of_place ranks:1 measures NCCL's local copy)";

void register_nccl_cases() {
  World& world = World::get();
  NcclState& s = nccl_state();
  s.probe = suite::cuda::probe_devices();
  suite::cuda::add_libraries_context({suite::cuda::Library::nccl});  // where libnccl came from
  if (const auto& lib = suite::cuda::library_status(suite::cuda::Library::nccl); !lib.loaded) {
    s.probe.count = 0;  // no usable GPU for NCCL on this rank: one skipped case per series
    s.probe.reason = lib.reason;
  }
  // Every rank reads the same environment from the launcher, so every rank decides the same.
  try {
    s.injected = parse_injected_failure(std::getenv("GPUBENCH_ALLREDUCE_INJECT_FAILURE"));
  } catch (const std::invalid_argument& e) {
    s.injected_problem = e.what();
  }
  const CommBlockingVerdict blocking =
      judge_comm_blocking(std::getenv("NCCL_COMM_BLOCKING"), world.size());
  if (!blocking.skip_reason.empty()) {
    s.probe.count = 0;
    s.probe.reason = blocking.skip_reason;
  } else if (!blocking.warning.empty()) {
    std::fprintf(stderr, "gpubench-allreduce: warning: %s\n", blocking.warning.c_str());
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
  // Series (scope, rank count) outermost: each one's communicators are made once
  // (ncclCommInitRankConfig) and used by every case of that count; 2 ranks run before more, so
  // scaling efficiency can be reported as the larger counts run.
  std::vector<std::pair<Scope, int>> series;
  for (int n : counts) series.emplace_back(Scope::world, n);
  if (usable && world.size() > 1 && world.node_count() > 1) {
    if (world.uniform_nodes() && world.local_size() >= 2) {
      series.emplace_back(Scope::intra_node, world.local_size());
    }
    series.emplace_back(Scope::inter_node, world.node_count());
  }
  for (const auto& [scope, ranks] : series) {
    suite_state().recorder.set_nodes(scope, ranks, world.nodes_spanned(scope, ranks));
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
            c.nominal_bytes = raw;
            c.name =
                case_name(collective, c.key.dtype, placement, c.counts.bytes, ranks, false, scope);
            suite_state().case_names.push_back(c.name);
            if (ranks == 1 && placement == Placement::in_place && usable) {
              benchmark::RegisterBenchmark(c.name.c_str(), [](benchmark::State& state) {
                suite::skip(state, k_one_rank_in_place);
              })->Iterations(1);
              continue;
            }
            suite::register_timed(c.name, 1,
                                  [c](benchmark::State& state) { run_nccl_case(state, c); });
          }
        }
      }
    }
  }
  if (usable) suite_state().series = series;
}

}  // namespace gpubench::allreduce
