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

// Agreement order: ok < skipped < failed by a timeout < failed on its own. A rank that failed on
// its own (an error, a wrong result, the test hook) is usually why its peers timed out waiting for
// it, so its reason wins over theirs even when a lower rank timed out.
int severity(const CaseOutcome& o) {
  const int own_failure = o.status == CaseStatus::failed && !o.timed_out ? 1 : 0;
  return static_cast<int>(o.status) * 2 + own_failure;
}

CaseOutcome combine_outcomes(const std::vector<CaseOutcome>& by_rank) {
  CaseOutcome out;
  int worst = severity(out);
  int who = -1;
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    if (severity(by_rank[r]) > worst) {
      worst = severity(by_rank[r]);
      who = static_cast<int>(r);
    }
  }
  if (who >= 0) {
    const CaseOutcome& chosen = by_rank[static_cast<std::size_t>(who)];
    out.status = chosen.status;
    out.timed_out = chosen.timed_out;
    out.reason = with_rank(who, static_cast<int>(by_rank.size()), chosen.reason);
  }
  return out;
}

CaseOutcome agree_outcome(const CaseOutcome& mine, const AgreementOps& ops) {
  const int worst = ops.max(severity(mine));
  if (worst == severity(CaseOutcome{})) return {};
  const int who = ops.min(severity(mine) == worst ? ops.rank : INT_MAX);
  // The chosen rank's timeout flag travels as the first character of its reason.
  const std::string sent =
      ops.rank == who ? std::string(mine.timed_out ? "T" : "-") + mine.reason : std::string();
  const std::string got = ops.broadcast(sent, who);
  CaseOutcome out{static_cast<CaseStatus>(worst / 2),
                  with_rank(who, ops.size, got.empty() ? got : got.substr(1))};
  out.timed_out = !got.empty() && got[0] == 'T';
  return out;
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
                       " s (a peer, a link or the GPU stopped responding; " +
                       (abort ? "the communicator was aborted"
                              : "the communicators are aborted once the ranks agreed") +
                       "; raise GPUBENCH_ALLREDUCE_TIMEOUT_S if the network is this slow)"};
      r.outcome.timed_out = true;
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

const char* to_string(InjectedMode mode) {
  switch (mode) {
    case InjectedMode::fail:
      return "fail";
    case InjectedMode::setup:
      return "setup";
    case InjectedMode::hang:
      return "hang";
  }
  return "fail";
}

bool InjectedFailure::matches(const std::string& case_name, int rank_here) const {
  return rank_here == rank && std::regex_search(case_name, pattern);
}

std::string InjectedFailure::reason() const {
  std::string spec = text + ":" + std::to_string(rank);
  if (mode != InjectedMode::fail) spec += std::string(":") + to_string(mode);
  return "injected failure (GPUBENCH_ALLREDUCE_INJECT_FAILURE=" + spec + ", a test hook)";
}

std::optional<InjectedFailure> parse_injected_failure(const char* text) {
  if (!text || !*text) return std::nullopt;
  std::string s(text);
  const std::string usage =
      "GPUBENCH_ALLREDUCE_INJECT_FAILURE must be <case regex>:<rank>[:fail|setup|hang], e.g. "
      "'bytes:2048/ranks:2/device:host:1'";
  InjectedFailure f;
  // A mode is a trailing word; a trailing number is the rank (the regex may hold colons).
  for (InjectedMode mode : {InjectedMode::fail, InjectedMode::setup, InjectedMode::hang}) {
    const std::string suffix = std::string(":") + to_string(mode);
    if (s.size() > suffix.size() &&
        s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
      f.mode = mode;
      s.resize(s.size() - suffix.size());
      break;
    }
  }
  const auto colon = s.rfind(':');
  if (colon == std::string::npos || colon + 1 >= s.size()) throw std::invalid_argument(usage);
  const std::string rank_text = s.substr(colon + 1);
  if (rank_text.find_first_not_of("0123456789") != std::string::npos) {
    throw std::invalid_argument(usage);
  }
  f.rank = std::atoi(rank_text.c_str());
  f.text = s.substr(0, colon);
  try {
    f.pattern = std::regex(f.text);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument(usage + " (bad regex: " + e.what() + ")");
  }
  return f;
}

std::optional<std::string> SeriesBreaker::blocked(const std::string& series) const {
  const auto it = m_blocked.find(series);
  if (it == m_blocked.end()) return std::nullopt;
  return it->second;
}

void SeriesBreaker::setup_failed(const std::string& series, const std::string& case_name,
                                 const CaseOutcome& agreed) {
  m_blocked.emplace(series, "the communicator setup of this series failed at " + case_name + ": " +
                                agreed.reason + "; the rest of the series is skipped");
}

void SeriesBreaker::case_finished(const std::string& series, const std::string& case_name,
                                  const CaseOutcome& agreed) {
  auto& [in_a_row, first] = m_timeouts[series];
  if (agreed.status != CaseStatus::failed || !agreed.timed_out) {
    in_a_row = 0;
    return;
  }
  if (++in_a_row == 1) {
    first = case_name;
    return;
  }
  m_blocked.emplace(series, "two cases of this series in a row timed out (" + first + ", then " +
                                case_name + ": " + agreed.reason +
                                "); the rest of the series is skipped");
}

}  // namespace gpubench::allreduce
