// Which kernels have been launched once, per device, and what the calling thread is queueing into:
// work the GPU cannot start yet (behind the spin kernel of a timed batch: `gated`) or work that is
// only recorded (stream capture: `capturing`). CUDA-free, so the rule below is host-tested.
//
// Why: since CUDA 12.2 modules load lazily at a kernel's first launch, and a load can wait for the
// device to go idle. Behind a spin kernel that waits for the host, the device never goes idle: the
// first launch of a kernel inside a gated batch stalls until the spin times out, and a kernel
// first used inside stream capture has the same problem when the graph is replayed behind one.
// So every kernel a suite times is launched once outside those scopes first (its preload step;
// METHODOLOGY rule 2), and a first launch inside one is a logic error, reported with the kernel's
// name instead of a misleading spin timeout.
//
// Thread safety: the ledger is shared (a mutex); scopes belong to the thread that entered them
// (as cudaStreamCaptureModeThreadLocal does).
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpubench::suite {

enum class LaunchScope { open, gated, capturing };

const char* to_string(LaunchScope scope);

// A kernel's first launch on a device was about to be queued inside a gated or capturing scope.
class FirstLaunchInScope : public std::logic_error {
 public:
  FirstLaunchInScope(int device, std::string kernel, LaunchScope scope);
  const std::string& kernel() const noexcept { return m_kernel; }
  int device() const noexcept { return m_device; }
  LaunchScope scope() const noexcept { return m_scope; }

 private:
  int m_device;
  std::string m_kernel;
  LaunchScope m_scope;
};

class LaunchLedger {
 public:
  // Throws FirstLaunchInScope when the calling thread is in a gated or capturing scope and
  // `kernel` (a stable name such as "launch::empty") has never been launched on `device`.
  void require_loaded(int device, std::string_view kernel) const;
  // Records that `kernel` was launched on `device` (call after the launch succeeded).
  void record(int device, std::string_view kernel);
  // require_loaded, then record: for callers that note a kernel once before queueing it many times.
  void note(int device, std::string_view kernel);
  bool launched(int device, std::string_view kernel) const;

  // Checks, runs `launch` (returns a cudaError_t as int, 0 = success) and records the kernel when
  // it succeeded; returns launch's status.
  template <class Launch>
  int launch(int device, std::string_view kernel, Launch&& launch_call) {
    require_loaded(device, kernel);
    const int status = launch_call();
    if (status == 0) record(device, kernel);
    return status;
  }

  // The calling thread's innermost scope.
  static LaunchScope current_scope() noexcept;
  // The ledger of this process, used by every suite.
  static LaunchLedger& process();

 private:
  mutable std::mutex m_mutex;
  std::map<int, std::set<std::string, std::less<>>> m_launched;  // device -> kernels
};

// RAII: the calling thread queues inside `scope` until this is destroyed. Scopes nest; a gated
// or capturing scope stays in force inside a nested `open` one (nothing inside it runs earlier).
class ScopedLaunchScope {
 public:
  explicit ScopedLaunchScope(LaunchScope scope) noexcept;
  ~ScopedLaunchScope();
  ScopedLaunchScope(const ScopedLaunchScope&) = delete;
  ScopedLaunchScope& operator=(const ScopedLaunchScope&) = delete;

 private:
  LaunchScope m_previous;
};

}  // namespace gpubench::suite
