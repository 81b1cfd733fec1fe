#include "suites/common/launch_ledger.hpp"

#include <utility>

namespace gpubench::suite {

namespace {
thread_local LaunchScope t_scope = LaunchScope::open;
}  // namespace

const char* to_string(LaunchScope scope) {
  switch (scope) {
    case LaunchScope::open:
      return "open";
    case LaunchScope::gated:
      return "a spin-gated batch";
    case LaunchScope::capturing:
      return "stream capture";
  }
  return "?";
}

FirstLaunchInScope::FirstLaunchInScope(int device, std::string kernel, LaunchScope scope)
    : std::logic_error("kernel " + kernel + " was first launched on device " +
                       std::to_string(device) + " inside " + to_string(scope) +
                       " (its module may load lazily and wait for an idle device, which never "
                       "comes behind the spin kernel; launch it once outside before timing)"),
      m_device(device),
      m_kernel(std::move(kernel)),
      m_scope(scope) {}

void LaunchLedger::require_loaded(int device, std::string_view kernel) const {
  const LaunchScope scope = t_scope;
  if (scope == LaunchScope::open || launched(device, kernel)) return;
  throw FirstLaunchInScope(device, std::string(kernel), scope);
}

void LaunchLedger::record(int device, std::string_view kernel) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  auto& kernels = m_launched[device];
  if (kernels.find(kernel) == kernels.end()) kernels.emplace(kernel);
}

void LaunchLedger::note(int device, std::string_view kernel) {
  require_loaded(device, kernel);
  record(device, kernel);
}

bool LaunchLedger::launched(int device, std::string_view kernel) const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  const auto it = m_launched.find(device);
  return it != m_launched.end() && it->second.find(kernel) != it->second.end();
}

LaunchScope LaunchLedger::current_scope() noexcept {
  return t_scope;
}

LaunchLedger& LaunchLedger::process() {
  static LaunchLedger ledger;
  return ledger;
}

ScopedLaunchScope::ScopedLaunchScope(LaunchScope scope) noexcept : m_previous(t_scope) {
  if (scope != LaunchScope::open) t_scope = scope;
}

ScopedLaunchScope::~ScopedLaunchScope() {
  t_scope = m_previous;
}

}  // namespace gpubench::suite
