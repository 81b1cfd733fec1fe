#include "suites/allreduce/case_outcome.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace gpubench::allreduce {

namespace {
std::string with_rank(int rank, int size, const std::string& reason) {
  return size > 1 ? "rank " + std::to_string(rank) + ": " + reason : reason;
}
}  // namespace

CaseOutcome combine_outcomes(const std::vector<CaseOutcome>& by_rank) {
  CaseOutcome out;
  int who = -1;
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    if (static_cast<int>(by_rank[r].status) > static_cast<int>(out.status)) {
      out.status = by_rank[r].status;
      who = static_cast<int>(r);
    }
  }
  if (who >= 0) {
    out.reason = with_rank(who, static_cast<int>(by_rank.size()),
                           by_rank[static_cast<std::size_t>(who)].reason);
  }
  return out;
}

CaseOutcome agree_outcome(const CaseOutcome& mine, const AgreementOps& ops) {
  const int worst = ops.max(static_cast<int>(mine.status));
  if (worst == static_cast<int>(CaseStatus::ok)) return {};
  const bool have_worst = static_cast<int>(mine.status) == worst;
  const int who = ops.min(have_worst ? ops.rank : INT_MAX);
  const std::string reason = ops.broadcast(ops.rank == who ? mine.reason : std::string(), who);
  return {static_cast<CaseStatus>(worst), with_rank(who, ops.size, reason)};
}

WaitClock steady_wait_clock() {
  WaitClock c;
  c.now_s = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  c.sleep_s = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  return c;
}

WaitResult wait_with_deadline(const std::function<PollResult()>& poll, double timeout_s,
                              const std::function<void()>& abort, const std::string& what,
                              const WaitClock& clock) {
  WaitResult r;
  const double start = clock.now_s();
  for (;;) {
    const PollResult p = poll();
    r.waited_s = clock.now_s() - start;
    if (p.progress == Progress::done) return r;
    if (p.progress == Progress::failed) {
      r.outcome = {CaseStatus::failed, what + " failed: " + p.reason};
      break;
    }
    if (r.waited_s >= timeout_s) {
      r.timed_out = true;
      char secs[32];
      std::snprintf(secs, sizeof secs, "%.0f", timeout_s);
      r.outcome = {CaseStatus::failed,
                   what + " did not finish within " + secs +
                       " s (a peer, a link or the GPU stopped responding; the communicator was "
                       "aborted; raise GPUBENCH_ALLREDUCE_TIMEOUT_S if the network is this slow)"};
      break;
    }
    if (r.waited_s > 1e-3) clock.sleep_s(std::min(1e-3, r.waited_s / 10));
  }
  if (abort) abort();
  r.aborted = static_cast<bool>(abort);
  return r;
}

double wait_timeout_s(std::size_t bytes, int calls, const char* override_text) {
  if (override_text && *override_text) {
    char* end = nullptr;
    const double v = std::strtod(override_text, &end);
    if (end && *end == '\0' && v > 0) return v;
  }
  return 60.0 + static_cast<double>(calls) * static_cast<double>(bytes) / 0.5e9;
}

bool InjectedFailure::matches(const std::string& case_name, int world_rank) const {
  return world_rank == rank && std::regex_search(case_name, pattern);
}

std::optional<InjectedFailure> parse_injected_failure(const char* text) {
  if (!text || !*text) return std::nullopt;
  const std::string s(text);
  const auto colon = s.rfind(':');
  const std::string usage =
      "GPUBENCH_ALLREDUCE_INJECT_FAILURE must be <case regex>:<rank>, e.g. "
      "'bytes:2048/ranks:2/device:host:1'";
  if (colon == std::string::npos || colon + 1 >= s.size()) throw std::invalid_argument(usage);
  const std::string rank_text = s.substr(colon + 1);
  if (rank_text.find_first_not_of("0123456789") != std::string::npos) {
    throw std::invalid_argument(usage);
  }
  InjectedFailure f;
  f.rank = std::atoi(rank_text.c_str());
  f.text = s.substr(0, colon);
  try {
    f.pattern = std::regex(f.text);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument(usage + " (bad regex: " + e.what() + ")");
  }
  return f;
}

}  // namespace gpubench::allreduce
