#include "suites/allreduce/case_runner.hpp"

#include <exception>

namespace gpubench::allreduce {

namespace {

// A backend call as this process's outcome: a throw (a backend bug) fails the phase, so the ranks
// still agree instead of one rank leaving the protocol.
template <class Call>
CaseOutcome own(Call&& call) {
  try {
    return call();
  } catch (const std::exception& e) {
    return {CaseStatus::failed, e.what()};
  } catch (...) {
    return {CaseStatus::failed, "unknown exception"};
  }
}

}  // namespace

std::vector<int> CaseRunner::injected_ranks(const std::vector<int>& here,
                                            const std::string& case_name, InjectedMode mode) const {
  std::vector<int> out;
  if (!m_injected || m_injected->mode != mode) return out;
  for (int r : here) {
    if (m_injected->matches(case_name, r)) out.push_back(r);
  }
  return out;
}

RepetitionResult CaseRunner::run(CollectiveBackend& backend, const std::string& series,
                                 const std::string& case_name) {
  RepetitionResult result;
  if (const auto why = m_breaker.blocked(series)) {
    result.outcome = {CaseStatus::skipped, *why};
    return result;
  }
  const std::vector<int> here = backend.ranks_here();
  // Every phase's outcome is agreed; after a failure that may have left work queued, the series is
  // dropped on every rank together.
  auto give_up = [&](const CaseOutcome& agreed) {
    backend.drop();
    result.outcome = agreed;
  };

  const std::vector<int> no_setup = injected_ranks(here, case_name, InjectedMode::setup);
  CaseOutcome agreed = agree_outcome(own([&] { return backend.open_series(no_setup); }), m_ops);
  if (!agreed.ok()) {
    m_breaker.setup_failed(series, case_name, agreed);
    give_up(agreed);
    return result;
  }

  CaseOutcome mine = own([&] { return backend.prepare(); });
  if (mine.ok() && !injected_ranks(here, case_name, InjectedMode::fail).empty()) {
    mine = {CaseStatus::failed, m_injected->reason()};
  }
  agreed = agree_outcome(mine, m_ops);
  if (agreed.status == CaseStatus::skipped) {  // nothing was queued: the series stays open
    result.outcome = agreed;
    return result;
  }
  if (!agreed.ok()) {
    give_up(agreed);
    return result;
  }

  agreed = agree_outcome(own([&] { return backend.warm_up(); }), m_ops);
  if (agreed.ok()) {
    const std::vector<int> hang = injected_ranks(here, case_name, InjectedMode::hang);
    mine = own([&] { return backend.queue_timed(hang); });
    agreed = agree_outcome(mine, m_ops);  // also the barrier before the release
    backend.release();
  }
  if (agreed.ok())
    agreed = agree_outcome(own([&] { return backend.finish_timed(result.times); }), m_ops);
  m_breaker.case_finished(series, case_name, agreed);
  if (!agreed.ok()) {
    result.times = {};
    give_up(agreed);
    return result;
  }
  return result;
}

}  // namespace gpubench::allreduce
