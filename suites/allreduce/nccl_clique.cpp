#include "suites/allreduce/nccl_clique.hpp"

#include "suites/allreduce/world.hpp"
#include "suites/common/cuda/check.hpp"

namespace gpubench::allreduce {

namespace {

ncclConfig_t non_blocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // calls return ncclInProgress instead of blocking; we poll with a deadline
  return config;
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

}  // namespace

void check_enqueue(ncclResult_t status, ncclComm_t comm, const char* call) {
  if (status != ncclSuccess && status != ncclInProgress) {
    throw_nccl_error(status, comm, call, __FILE__, __LINE__);
  }
}

CaseOutcome make_clique(Scope scope, int ranks, int device_count, double timeout_s,
                        std::unique_ptr<Clique>& out) {
  out.reset();
  World& world = World::get();
  auto c = std::make_unique<Clique>();
  c->scope = scope;
  c->ranks = ranks;
  ncclConfig_t config = non_blocking_config();
  CaseOutcome mine;
  if (world.size() == 1) {
    // One process, `ranks` GPUs: ncclCommInitRankConfig for each inside one group (what
    // ncclCommInitAll does, but with a config, which ncclCommInitAll does not take).
    mine = guarded("NCCL communicators", [&] {
      ncclUniqueId id{};
      GPUBENCH_NCCL_CHECK(ncclGetUniqueId(&id), nullptr);
      std::vector<ncclComm_t> comms(static_cast<std::size_t>(ranks), nullptr);
      ncclResult_t end = ncclSuccess;
      {
        NcclGroup group(&ncclGroupStart, &ncclGroupEnd, ncclSuccess);
        if (!group.started()) GPUBENCH_NCCL_CHECK(group.start_status(), nullptr);
        for (int i = 0; i < ranks; ++i) {
          GPUBENCH_CUDA_CHECK(cudaSetDevice(i));
          check_enqueue(
              ncclCommInitRankConfig(&comms[static_cast<std::size_t>(i)], ranks, id, i, &config),
              nullptr, "ncclCommInitRankConfig");
        }
        end = group.end();
      }
      for (int i = 0; i < ranks; ++i) {  // owned from here on: aborted if anything below fails
        Member m;
        m.device = i;
        m.rank = i;
        m.world_rank = i;
        m.comm = NcclComm(comms[static_cast<std::size_t>(i)]);
        c->members.push_back(std::move(m));
      }
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
        c->members.push_back(std::move(m));
        check_enqueue(r, comm, "ncclCommInitRankConfig");
      });
    }
  }
  if (mine.ok() && !c->members.empty()) {
    // Initialisation finishes in the background: the state leaves ncclInProgress when done.
    mine = wait_with_deadline([&] { return poll_clique(*c, false); }, timeout_s,
                              [&] { abort_clique(*c); },
                              "NCCL communicator setup for " + std::to_string(ranks) + " ranks")
               .outcome;
  }
  if (mine.ok()) mine = guarded("streams and events", [&] { add_resources(*c); });
  if (!mine.ok()) {
    abort_clique(*c);
    return mine;
  }
  out = std::move(c);
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
  return wait_with_deadline([&] { return poll_clique(q, true); }, timeout_s,
                            [&] { abort_clique(q); }, what)
      .outcome;
}

CaseOutcome group_call(Clique& q, const std::function<void(Member&)>& enqueue, double timeout_s,
                       const std::string& what) {
  if (q.members.empty()) return {};
  ncclResult_t end = ncclSuccess;
  {
    NcclGroup group(&ncclGroupStart, &ncclGroupEnd, ncclSuccess);
    if (!group.started()) GPUBENCH_NCCL_CHECK(group.start_status(), nullptr);
    for (Member& m : q.members) {
      GPUBENCH_CUDA_CHECK(cudaSetDevice(m.device));
      enqueue(m);  // may throw: the guard still ends the group
    }
    end = group.end();
  }
  if (end == ncclSuccess) return {};
  check_enqueue(end, q.members.front().comm.get(), "ncclGroupEnd");
  // ncclInProgress: the operations are still being enqueued; poll until they are (or fail).
  return wait_with_deadline([&] { return poll_clique(q, false); }, timeout_s,
                            [&] { abort_clique(q); }, what)
      .outcome;
}

void abort_clique(Clique& q) noexcept {
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
