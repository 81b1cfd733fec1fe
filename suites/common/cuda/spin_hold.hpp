// The host side of the spin kernel that holds a stream while a batch is queued behind it
// (kernels/common/spin.hpp, METHODOLOGY rule 1): its two host-mapped flags (release, timed out),
// its noted launch, the release however a queueing scope is left, and the timed-out check.
// Used by BatchTimer, StreamPairTimer and transfer's ConcurrentPairTimer.
//
// Not thread-safe. The flags are mapped pinned memory, usable from every device.
#pragma once

#include <cuda_runtime_api.h>

#include "suites/common/cuda/resources.hpp"

namespace gpubench::suite::cuda {

// The spin kernel gives up after this long (ns): a host-side bug never hangs the GPU.
inline constexpr unsigned long long k_default_spin_timeout_ns = 5'000'000'000ull;

class SpinHold {
 public:
  // Allocates the two flags (cudaHostAlloc, mapped). timeout_ns: how long the kernel waits at most.
  explicit SpinHold(unsigned long long timeout_ns);

  // Clears both flags, then queues the spin kernel on `stream` through launch_noted
  // ("common::spin_wait"). Throws CudaError when the launch failed.
  void hold(cudaStream_t stream);
  // Only the first half of hold(), for a caller that launches the kernel itself.
  void clear_flags();
  // Device addresses of the flags, for kernels::launch_spin_wait.
  int* device_release_flag() const noexcept { return m_flags.device_pointer(); }
  int* device_timed_out_flag() const noexcept { return m_flags.device_pointer() + 1; }
  unsigned long long timeout_ns() const noexcept { return m_timeout_ns; }

  // Sets the release flag: the spin kernel returns and the queued work runs.
  void release();

  // After the held stream's work completed: throws std::runtime_error when the timeout, not the
  // release, ended the wait (the sample would include launch latency). The message reads "the
  // spin kernel timed out after <ms> ms " followed by `while_queueing`.
  void throw_if_timed_out(const char* while_queueing) const;

  // Releases the spin kernel however the scope is left, so an exception while queueing never
  // leaves the GPU spinning until the timeout.
  class ScopedRelease {
   public:
    explicit ScopedRelease(SpinHold& hold) : m_hold(hold) {}
    ~ScopedRelease() { m_hold.release(); }
    ScopedRelease(const ScopedRelease&) = delete;
    ScopedRelease& operator=(const ScopedRelease&) = delete;

   private:
    SpinHold& m_hold;
  };

 private:
  unsigned long long m_timeout_ns;
  PinnedBuffer<int> m_flags;  // [0] release, [1] timed out (mapped)
};

}  // namespace gpubench::suite::cuda
