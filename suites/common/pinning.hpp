// The measuring thread's CPU: one CPU of the NUMA node of the GPU a case runs on, chosen from
// sysfs and set before the device's CUDA context exists (CUDA-free; the bus ids come from
// suites/common/cuda/pinning.hpp).
//
// Why before the context: host memory the thread touches first (pinned staging buffers, the
// driver's host-side allocations for the context) lands on the node of the CPU it runs on, and
// threads the driver starts with the context inherit the creating thread's CPU mask (Linux), so
// they share that CPU (the suites queue no host callbacks, so those threads mostly sleep). Why
// one CPU: a launch or a synchronisation measured in microseconds changes when the thread
// migrates between cores or sockets mid-sample.
//
// Choice (choose_pin): the GPU's node from <root>/bus/pci/devices/<bus id>/numa_node; its CPUs
// from local_cpulist (else node<N>/cpulist), intersected with the CPUs the process may use
// (sched_getaffinity at start); the lowest of them that is not CPU 0 (Linux leaves work that is
// not bound elsewhere, such as unbalanced interrupts and timers, on CPU 0), CPU 0 only when it is
// the only one. No node (-1: a VM or a single-socket platform that does not say; no sysfs), no
// allowed CPU on the node, or a refused sched_setaffinity: the reason is recorded and the thread
// stays unpinned.
//
// Multi-device processes (cases on devices 0..7 one after another on the one main thread that
// Google Benchmark runs them on): contexts are created lazily, at a device's first case, so the
// thread is moved before every case to its device's CPU (a no-op when it is there already);
// a case without a device (memory's and fusion's host cases) gets back the CPUs the thread had
// before the first pin, so host thread pools see every allowed CPU.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::suite {

struct PinChoice {
  int device = 0;          // CUDA ordinal
  std::string pci_bus_id;  // as CUDA reports it; empty when unknown
  std::optional<int> node;
  std::optional<int> cpu;  // empty: the thread stays unpinned for this device
  std::string reason;      // why cpu is empty
};

// The CPU for a GPU at `pci_bus_id` (see the header comment); device is left 0.
PinChoice choose_pin(const std::string& sysfs_root, const std::string& pci_bus_id,
                     const std::vector<int>& allowed_cpus);

// The device of a case from its name's "/device:N" part (suites/README.md "GPU identity");
// nullopt for a host case.
std::optional<int> device_of_case(std::string_view name);

// A device's PCI bus id, or why it is unknown.
struct BusId {
  std::string id;
  std::string reason;
};

// The thread-affinity calls DevicePinning makes; tests replace them.
struct AffinityCalls {
  std::function<std::vector<int>()> get;                         // default: thread_cpus
  std::function<std::string(const std::vector<int>& cpus)> set;  // default: set_thread_cpus
};
AffinityCalls system_affinity_calls();

class DevicePinning {
 public:
  // Chooses a CPU per device and checks that the system lets the thread move there (moving it
  // and back). The CPUs the calling thread may use now are the allowed set: construct it before
  // anything pins the thread.
  DevicePinning(const std::vector<int>& devices, const std::function<BusId(int)>& bus_id_of,
                std::string sysfs_root = "/sys", AffinityCalls calls = system_affinity_calls());

  // Before a case's body: moves the calling thread to `device`'s CPU; a device without one, or
  // no device (a host case), gets back the CPUs the thread had before the first move.
  void before_case(std::optional<int> device);

  // For a helper thread a case starts, which inherits the measuring thread's one CPU: moves the
  // calling thread back to every CPU the process may use.
  void release_calling_thread() const;

  // nullptr for a device that was not listed.
  const PinChoice* choice(int device) const;
  // For a case's label: "pinned to CPU 5 (NUMA node 0 of the GPU)", or "not pinned: <reason>".
  // A move that failed at the case says so.
  std::string label(int device) const;
  // The JSON array stored as the context key "gpubench.pinning":
  // [{"index":0,"pci_bus_id":"0000:19:00.0","numa_node":0,"cpu":5}, {"index":1,...,"cpu":null,
  //  "reason":"..."}].
  std::string context_json() const;

 private:
  void restore();

  AffinityCalls m_calls;
  std::vector<int> m_allowed;  // the CPUs the process may use, at construction
  std::vector<PinChoice> m_choices;
  std::vector<std::pair<int, std::string>> m_failed;  // device, why the move at a case failed
  std::optional<int> m_current_cpu;                   // where the thread is pinned now
  std::vector<int> m_saved;  // the thread's CPUs before the first move; empty when not moved
};

// Process-wide: from now on every case registered with register_timed (and so register_measured)
// calls pinning->before_case with the device in its name before its body runs, and the context
// key "gpubench.pinning" holds pinning->context_json(). Call from a suite's main, before the
// benchmarks run.
void install_device_pinning(std::unique_ptr<DevicePinning> pinning);
// The installed pinning; nullptr when none.
const DevicePinning* device_pinning();
// device_pinning()->release_calling_thread(), when one is installed: the first thing a helper
// thread of a case does (transfer's second issuing thread), so two threads never share one CPU.
void release_thread_pin();

}  // namespace gpubench::suite
