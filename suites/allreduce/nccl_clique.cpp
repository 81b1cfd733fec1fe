#include "suites/allreduce/nccl_clique.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/common/spin.hpp"
#include "suites/allreduce/world.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/preload.hpp"

namespace gpubench::allreduce {

namespace {

ncclConfig_t non_blocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // calls return ncclInProgress instead of blocking; we poll with a deadline
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  // As nccl-tests built against NCCL >= 2.28 (src/common.cu initComms), so side-by-sides compare
  // like with like; NCCL applies it on sm_100 and newer only, and a libnccl older than this header
  // copies only the fields it knows (src/init.cc parseCommConfig).
  config.nvlinkCentricSched = 1;
#endif
  return config;
}

bool left_out(const std::vector<int>& leave_out, int rank) {
  return std::find(leave_out.begin(), leave_out.end(), rank) != leave_out.end();
}

std::string left_out_reason(int rank) {
  return "injected setup failure of rank " + std::to_string(rank) +
         " (GPUBENCH_ALLREDUCE_INJECT_FAILURE, a test hook): its communicator was not made";
}

// Streams, events and the small buffers of every member (after its communicator exists).
void add_resources(Clique& c) {
  for (Member& m : c.members) {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
    m.stream = suite::cuda::Stream::create();
    m.start = suite::cuda::Event::create();
    m.stop = suite::cuda::Event::create();
    m.scratch = suite::cuda::DeviceAllocation(16);
    GPUBENCH_CUDA_CHECK(cudaMemsetAsync(m.scratch.data(), 0, 16, m.stream.get()));
    m.counter = suite::cuda::DeviceAllocation(sizeof(unsigned long long));
    m.mismatches =
        suite::cuda::PinnedBuffer<unsigned long long>(1, suite::cuda::HostMapping::unmapped);
  }
}

void launch_spin(Clique& q, Member& m) {
  GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
  suite::cuda::SpinHold& h = *q.hold;
  suite::cuda::launch_noted("common::spin_wait", [&] {
    return static_cast<int>(kernels::launch_spin_wait(h.device_release_flag(), h.timeout_ns(),
                                                      h.device_timed_out_flag(), m.stream.get()));
  });
}

// The spin kernel's first launch on every device, released at once, outside any held batch (a
// lazy module load behind a held stream would stall until the spin timeout: launch_ledger.hpp).
void preload_spin(Clique& q) {
  q.hold->clear_flags();
  q.hold->release();
  for (Member& m : q.members) launch_spin(q, m);
}

}  // namespace

void check_enqueue(ncclResult_t status, ncclComm_t comm, const char* call) {
  if (status != ncclSuccess && status != ncclInProgress) {
    throw_nccl_error(status, comm, call, __FILE__, __LINE__);
  }
}

CaseOutcome make_clique(Scope scope, int ranks, int device_count, double timeout_s,
                        const std::vector<int>& leave_out, std::unique_ptr<Clique>& out) {
  World& world = World::get();
  out = std::make_unique<Clique>();
  Clique& c = *out;
  c.scope = scope;
  c.ranks = ranks;
  ncclConfig_t config = non_blocking_config();
  CaseOutcome mine;
  if (world.size() == 1) {
    // One process, `ranks` GPUs: ncclCommInitRankConfig for each inside one group (what
    // ncclCommInitAll does, but with a config, which ncclCommInitAll does not take).
    mine = guarded("NCCL communicators", [&] {
      ncclUniqueId id{};
      GPUBENCH_NCCL_CHECK(ncclGetUniqueId(&id), nullptr);
      std::vector<int> devices;
      for (int i = 0; i < ranks; ++i) {
        if (!left_out(leave_out, i)) devices.push_back(i);  // the others' inits then wait for it
      }
      const ncclResult_t end = init_in_group<ncclComm_t>(
          devices, &ncclGroupStart, &ncclGroupEnd, ncclSuccess,
          [&](int i, ncclComm_t* comm) {
            GPUBENCH_CUDA_CHECK(cudaSetDevice(i));
            return ncclCommInitRankConfig(comm, ranks, id, i, &config);
          },
          [&](int i, ncclComm_t comm) {
            Member m;
            m.device = i;
            m.rank = i;
            m.world_rank = i;
            m.comm = NcclComm(comm);
            c.members.push_back(std::move(m));
          },
          [](ncclResult_t status, ncclComm_t comm) {
            check_enqueue(status, comm, "ncclCommInitRankConfig");
          });
      check_enqueue(end, nullptr, "ncclGroupEnd (communicator setup)");
    });
  } else {
    // The id travels with a flag, so a rank that could not make one does not leave the others
    // waiting in MPI_Bcast for an id that never comes.
    struct {
      ncclUniqueId id;
      int ok;
    } msg{};
    const bool maker = scope == Scope::intra_node ? world.local_rank() == 0 : world.rank() == 0;
    std::string why;
    if (maker) {
      const ncclResult_t r = ncclGetUniqueId(&msg.id);
      msg.ok = r == ncclSuccess ? 1 : 0;
      if (!msg.ok) why = "ncclGetUniqueId: " + nccl_error_text(r, nullptr);
    }
    if (scope == Scope::intra_node) {
      world.broadcast_in_node(&msg, sizeof msg);
    } else {
      world.broadcast(&msg, sizeof msg, 0);
    }
    int comm_rank = -1;
    if (scope == Scope::intra_node) comm_rank = world.local_rank();
    if (scope == Scope::world && world.rank() < ranks) comm_rank = world.rank();
    if (scope == Scope::inter_node && world.local_rank() == 0) comm_rank = world.node_index();
    if (!msg.ok) {
      mine = {CaseStatus::failed, maker ? why : "no NCCL unique id (the rank making it failed)"};
    } else if (comm_rank >= 0 && left_out(leave_out, world.rank())) {
      mine = {CaseStatus::failed, left_out_reason(world.rank())};
    } else if (comm_rank >= 0) {
      mine = guarded("NCCL communicator", [&] {
        Member m;
        m.device = world.local_rank() % device_count;
        m.rank = comm_rank;
        m.world_rank = world.rank();
        GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
        ncclComm_t comm = nullptr;
        const ncclResult_t r = ncclCommInitRankConfig(&comm, ranks, msg.id, m.rank, &config);
        m.comm = NcclComm(comm);
        c.members.push_back(std::move(m));
        check_enqueue(r, comm, "ncclCommInitRankConfig");
      });
    }
  }
  if (mine.ok() && !c.members.empty()) {
    // Initialisation finishes in the background: the state leaves ncclInProgress when done.
    mine = wait_with_deadline([&] { return poll_clique(c, false); }, timeout_s, {},
                              "NCCL communicator setup for " + std::to_string(ranks) + " ranks")
               .outcome;
  }
  if (world.size() == 1 && mine.status != CaseStatus::skipped) {
    for (int i = 0; i < ranks; ++i) {
      if (!left_out(leave_out, i)) continue;
      // After the others' bounded wait, so the hook exercises the setup deadline alone too.
      mine = {CaseStatus::failed, left_out_reason(i) + (mine.ok() ? "" : " (" + mine.reason + ")")};
      break;
    }
  }
  if (mine.ok() && !c.members.empty()) {
    mine = guarded("streams and events", [&] {
      add_resources(c);
      // The spin kernel gives up after the base deadline: queueing the timed calls and the
      // agreement after it take milliseconds when all is well.
      c.hold =
          std::make_unique<suite::cuda::SpinHold>(static_cast<unsigned long long>(timeout_s * 1e9));
      preload_spin(c);
    });
    if (mine.ok()) mine = wait_clique(c, timeout_s, "loading the spin kernel");
    // The barrier's first call sets up its connections here, not behind a held stream.
    if (mine.ok()) {
      CaseOutcome thrown = guarded("the first device barrier", [&] {
        mine = device_barrier(c, timeout_s, "the first device barrier");
      });
      if (!thrown.ok()) mine = thrown;
    }
    if (mine.ok()) mine = wait_clique(c, timeout_s, "the first device barrier");
  }
  return mine;
}

PollResult poll_clique(Clique& q, bool streams) {
  bool pending = false;
  for (Member& m : q.members) {
    if (!m.comm.get()) return {Progress::failed, "the communicator was aborted"};
    ncclResult_t state = ncclSuccess;
    const ncclResult_t r = ncclCommGetAsyncError(m.comm.get(), &state);
    if (r != ncclSuccess) {
      return {Progress::failed, "ncclCommGetAsyncError: " + nccl_error_text(r, m.comm.get())};
    }
    if (state == ncclInProgress) {
      pending = true;
      continue;
    }
    if (state != ncclSuccess) {
      return {Progress::failed,
              "GPU " + std::to_string(m.device) + ": " + nccl_error_text(state, m.comm.get())};
    }
    if (!streams) continue;
    (void)cudaSetDevice(m.device);
    const cudaError_t e = cudaStreamQuery(m.stream.get());
    if (e == cudaErrorNotReady) {
      pending = true;
    } else if (e != cudaSuccess) {
      return {Progress::failed, "GPU " + std::to_string(m.device) + ": CUDA " +
                                    cudaGetErrorName(e) + ": " + cudaGetErrorString(e)};
    }
  }
  return {pending ? Progress::pending : Progress::done, ""};
}

CaseOutcome wait_clique(Clique& q, double timeout_s, const std::string& what) {
  if (q.members.empty()) return {};
  return wait_with_deadline([&] { return poll_clique(q, true); }, timeout_s, {}, what).outcome;
}

CaseOutcome group_call(Clique& q, const std::function<void(Member&)>& enqueue, double timeout_s,
                       const std::string& what,
                       const std::function<bool(const Member&)>& take_part) {
  if (q.members.empty()) return {};
  ncclResult_t end = ncclSuccess;
  ncclComm_t first = nullptr;
  {
    NcclGroup group(&ncclGroupStart, &ncclGroupEnd, ncclSuccess);
    if (!group.started()) GPUBENCH_NCCL_CHECK(group.start_status(), nullptr);
    for (Member& m : q.members) {
      if (take_part && !take_part(m)) continue;
      GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
      if (!first) first = m.comm.get();
      enqueue(m);  // may throw: the guard still ends the group
    }
    end = group.end();
  }
  if (end == ncclSuccess) return {};
  check_enqueue(end, first, "ncclGroupEnd");
  // ncclInProgress: the operations are still being enqueued; poll until they are (or fail).
  return wait_with_deadline([&] { return poll_clique(q, false); }, timeout_s, {}, what).outcome;
}

CaseOutcome device_barrier(Clique& q, double timeout_s, const std::string& what,
                           const std::function<bool(const Member&)>& take_part) {
  return group_call(
      q,
      [](Member& m) {
        check_enqueue(ncclAllReduce(m.scratch.data(), m.scratch.data(), 1, ncclFloat32, ncclSum,
                                    m.comm.get(), m.stream.get()),
                      m.comm.get(), "ncclAllReduce (barrier)");
      },
      timeout_s, what, take_part);
}

void hold_streams(Clique& q) {
  q.hold->clear_flags();
  for (Member& m : q.members) launch_spin(q, m);
}

void release_streams(Clique& q) noexcept {
  if (q.hold) q.hold->release();
}

void check_hold(const Clique& q) {
  q.hold->throw_if_timed_out(
      "while the timed calls were being queued on every rank; the time would include the gaps "
      "between them (a rank was slow to queue its calls, or to reach the agreement after them)");
}

double probe_clock_mhz(Member& m) {
  GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
  if (m.probe.size() == 0) {
    m.probe = suite::cuda::PinnedBuffer<kernels::ClockProbe>(1, suite::cuda::HostMapping::mapped);
  }
  m.probe.data()->cycles = 0;
  m.probe.data()->ns = 0;
  suite::cuda::launch_noted("common::clock_probe", [&] {
    return static_cast<int>(kernels::launch_clock_probe(kernels::k_clock_probe_ns,
                                                        m.probe.device_pointer(), m.stream.get()));
  });
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(m.stream.get()));
  const kernels::ClockProbe p = *m.probe.data();
  return p.ns == 0 ? 0.0 : static_cast<double>(p.cycles) / static_cast<double>(p.ns) * 1000.0;
}

void abort_clique(Clique& q) noexcept {
  release_streams(q);  // a spin kernel left waiting would hold the stream until its timeout
  for (Member& m : q.members) m.comm.abort();
}

void release_clique(Clique& q, double timeout_s) noexcept {
  try {
    bool ok = true;
    for (Member& m : q.members) {
      if (!m.comm.get()) continue;
      const ncclResult_t r = ncclCommFinalize(m.comm.get());
      ok = ok && (r == ncclSuccess || r == ncclInProgress);
    }
    if (ok) {
      ok = wait_with_deadline([&] { return poll_clique(q, false); }, timeout_s, {},
                              "ncclCommFinalize")
               .outcome.ok();
    }
    for (Member& m : q.members) {
      if (ok) {
        m.comm.destroy();
      } else {
        m.comm.abort();
      }
    }
  } catch (...) {
    abort_clique(q);
  }
}

}  // namespace gpubench::allreduce
