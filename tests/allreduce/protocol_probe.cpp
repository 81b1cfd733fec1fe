// allreduce_protocol_probe: the allreduce suite's case runner, agreement, series breaker,
// failure-injection hook and ranks' handshake (suites/allreduce) over real MPI ranks, with a fake
// collective backend in place of NCCL, so the failure paths run without a GPU
// (test_mpi_protocol.cpp launches it under mpirun).
//
// The fake "collective" of a series is an exchange of one int with every other member over
// non-blocking point-to-point messages on a duplicate of MPI_COMM_WORLD, polled against the
// suite's deadline (GPUBENCH_ALLREDUCE_TIMEOUT_S) like NCCL's work: a member that leaves its sends
// out (the hook's setup and hang modes) leaves its peers' receives pending, as a missing NCCL
// peer leaves their collectives pending, until the deadline; drop() cancels them, as
// ncclCommAbort would. Two series: "world/2" (ranks 0 and 1; others sit out) and "world/<size>",
// four cases each, named "probe/<series>/case:<i>".
//
// Output (rank 0, stdout): one JSON line per case: {"case", "status", "reason", "timed_out"},
// then {"opens": <series set-ups on this rank>, "drops": <drops on this rank>}. A refused handshake
// prints "protocol_probe: refused: <why>" on stderr (every rank) and exits 2.
// PROBE_EXTRA_CASE_RANK=<r>: rank r registers one case more (the ranks then disagree).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "suites/allreduce/case_runner.hpp"
#include "suites/allreduce/handshake.hpp"
#include "suites/allreduce/world.hpp"

namespace gpubench::allreduce {
namespace {

MPI_Comm g_fake = MPI_COMM_NULL;  // the fake collectives' communicator
int g_cases = 0;                  // cases begun, counted alike on every rank
int g_opens = 0;
int g_drops = 0;

double deadline_s() {
  return wait_timeout_s(0, 0, std::getenv("GPUBENCH_ALLREDUCE_TIMEOUT_S"));
}

// The phases that exchange messages; with the case's number they make each exchange's tag, the
// same on every rank whether or not it takes part, so a stale message never matches a later one.
enum Phase { k_setup = 1, k_warm_up = 2, k_timed = 3 };
int tag_of(Phase phase) {
  return g_cases * 4 + phase;
}

// One exchange: receives posted from every other member, sends to every other member unless
// `send` is false; the requests stay pending until wait() or cancel().
class Exchange {
 public:
  void start(const std::vector<int>& members, int me, bool send, int tag) {
    m_in.assign(members.size(), 0);
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (members[i] == me) continue;
      MPI_Request r;
      MPI_Irecv(&m_in[i], 1, MPI_INT, members[i], tag, g_fake, &r);
      m_recvs.push_back(r);
    }
    if (!send) return;
    for (int peer : members) {
      if (peer == me) continue;
      MPI_Request r;
      MPI_Isend(&m_out, 1, MPI_INT, peer, tag, g_fake, &r);
      m_sends.push_back(r);
    }
  }
  CaseOutcome wait(const std::string& what) {
    auto poll = [&] {
      int done = 0;
      MPI_Testall(static_cast<int>(m_recvs.size()), m_recvs.data(), &done, MPI_STATUSES_IGNORE);
      if (done) {
        m_recvs.clear();
        return PollResult{Progress::done, ""};
      }
      return PollResult{Progress::pending, ""};
    };
    const CaseOutcome out = wait_with_deadline(poll, deadline_s(), {}, what).outcome;
    if (out.ok()) complete_sends();
    return out;
  }
  // What ncclCommAbort is to NCCL: nothing pending survives.
  void cancel() {
    for (MPI_Request& r : m_recvs) {
      MPI_Cancel(&r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    m_recvs.clear();
    complete_sends();
  }

 private:
  // One-int sends are eager: they complete without their receiver.
  void complete_sends() {
    if (!m_sends.empty()) {
      MPI_Waitall(static_cast<int>(m_sends.size()), m_sends.data(), MPI_STATUSES_IGNORE);
    }
    m_sends.clear();
  }
  int m_out = 1;
  std::vector<int> m_in;
  std::vector<MPI_Request> m_recvs, m_sends;
};

struct FakeSeries {
  std::string name;
  std::vector<int> members;  // world ranks
  bool open = false;
  Exchange pending;
};
FakeSeries g_current;

class FakeBackend final : public CollectiveBackend {
 public:
  FakeBackend(std::string series, int ranks) : m_series(std::move(series)), m_ranks(ranks) {
    ++g_cases;
  }

  std::vector<int> ranks_here() const override {
    const int me = World::get().rank();
    return me < m_ranks ? std::vector<int>{me} : std::vector<int>{};
  }
  CaseOutcome open_series(const std::vector<int>& leave_out) override {
    if (g_current.open && g_current.name == m_series) return {};
    g_current = FakeSeries{};
    g_current.name = m_series;
    for (int r = 0; r < m_ranks; ++r) g_current.members.push_back(r);
    g_current.open = true;
    const int me = World::get().rank();
    if (me >= m_ranks) return {};
    ++g_opens;
    const bool left_out = !leave_out.empty();
    // The "bootstrap": every member hears from every other one.
    g_current.pending.start(g_current.members, me, !left_out, tag_of(k_setup));
    if (left_out) {
      return {CaseStatus::failed, "injected setup failure of rank " + std::to_string(me)};
    }
    return g_current.pending.wait("fake setup of " + m_series);
  }
  CaseOutcome prepare() override { return {}; }
  CaseOutcome warm_up() override {
    if (!is_member()) return {};
    g_current.pending.start(g_current.members, World::get().rank(), true, tag_of(k_warm_up));
    return g_current.pending.wait("fake warm-up of " + m_series);
  }
  CaseOutcome queue_timed(const std::vector<int>& leave_out) override {
    m_send = leave_out.empty();
    return {};
  }
  void release() noexcept override {
    if (is_member()) {
      g_current.pending.start(g_current.members, World::get().rank(), m_send, tag_of(k_timed));
    }
  }
  CaseOutcome finish_timed(OwnTimes& times) override {
    if (!is_member()) return {};
    const CaseOutcome out = g_current.pending.wait("the fake timed calls of " + m_series);
    if (out.ok()) {
      times.slowest_call_s = 1e-6;
      times.own = {{World::get().rank(), 1e-6}};
    }
    return out;
  }
  void drop() noexcept override {
    ++g_drops;
    g_current.pending.cancel();
    g_current.open = false;
  }

 private:
  bool is_member() const { return World::get().rank() < m_ranks; }
  std::string m_series;
  int m_ranks;
  bool m_send = true;
};

}  // namespace
}  // namespace gpubench::allreduce

int main(int argc, char** argv) {
  using namespace gpubench::allreduce;
  World& world = World::init(argc, argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_fake);
  struct Case {
    std::string series;
    int ranks;
    std::string name;
  };
  std::vector<Case> cases;
  for (int ranks : {2, world.size()}) {
    const std::string series = "world/" + std::to_string(ranks);
    for (int i = 0; i < 4; ++i) {
      cases.push_back({series, ranks, "probe/" + series + "/case:" + std::to_string(i)});
    }
  }
  std::vector<std::string> names;
  for (const Case& c : cases) names.push_back(c.name);
  if (const char* extra = std::getenv("PROBE_EXTRA_CASE_RANK");
      extra && std::atoi(extra) == world.rank()) {
    names.push_back("probe/extra");
  }
  RankFingerprint mine;
  mine.rank = world.rank();
  mine.host = world.host();
  mine.build = "probe";
  mine.nccl = "none";
  mine.cases_hash = hash_case_names(names);
  mine.cases = names.size();
  if (const std::string why = agree_on_fingerprint(world, mine); !why.empty()) {
    std::fprintf(stderr, "protocol_probe: refused: rank %d: %s\n", world.rank(), why.c_str());
    MPI_Comm_free(&g_fake);
    world.finalize();
    return 2;
  }

  std::optional<InjectedFailure> injected;
  try {
    injected = parse_injected_failure(std::getenv("GPUBENCH_ALLREDUCE_INJECT_FAILURE"));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "protocol_probe: %s\n", e.what());
    MPI_Comm_free(&g_fake);
    world.finalize();
    return 2;
  }
  SeriesBreaker breaker;
  CaseRunner runner(world.agreement_ops(), breaker, injected);
  for (const Case& c : cases) {
    FakeBackend backend(c.series, c.ranks);
    const RepetitionResult r = runner.run(backend, c.series, c.name);
    if (world.rank() == 0) {
      const char* status = r.outcome.status == CaseStatus::ok        ? "ok"
                           : r.outcome.status == CaseStatus::skipped ? "skipped"
                                                                     : "failed";
      std::printf("%s\n", nlohmann::json({{"case", c.name},
                                          {"status", status},
                                          {"reason", r.outcome.reason},
                                          {"timed_out", r.outcome.timed_out}})
                              .dump()
                              .c_str());
      std::fflush(stdout);
    }
  }
  if (world.rank() == 0)
    std::printf("%s\n", nlohmann::json({{"opens", g_opens}, {"drops", g_drops}}).dump().c_str());
  if (g_current.open) g_current.pending.cancel();
  MPI_Comm_free(&g_fake);
  world.finalize();
  return 0;
}
