// The spin kernel's host side: flags, noted launch, release and the timed-out check.
#include "suites/common/cuda/spin_hold.hpp"

#include <atomic>
#include <stdexcept>
#include <string>

#include "kernels/common/spin.hpp"
#include "suites/common/cuda/preload.hpp"

namespace gpubench::suite::cuda {

namespace {
// The host side of a flag: an atomic store so the compiler neither delays nor drops it.
void store_flag(int* flag, int value) {
  std::atomic_ref<int>(*flag).store(value, std::memory_order_seq_cst);
}
}  // namespace

SpinHold::SpinHold(unsigned long long timeout_ns)
    : m_timeout_ns(timeout_ns), m_flags(2, HostMapping::mapped) {}

void SpinHold::clear_flags() {
  int* flags = m_flags.data();
  store_flag(&flags[0], 0);
  store_flag(&flags[1], 0);
}

void SpinHold::hold(cudaStream_t stream) {
  clear_flags();
  launch_noted("common::spin_wait", [&] {
    return static_cast<int>(kernels::launch_spin_wait(device_release_flag(), m_timeout_ns,
                                                      device_timed_out_flag(), stream));
  });
}

void SpinHold::release() {
  store_flag(&m_flags.data()[0], 1);
}

void SpinHold::throw_if_timed_out(const char* while_queueing) const {
  if (std::atomic_ref<int>(m_flags.data()[1]).load() != 0) {
    throw std::runtime_error("the spin kernel timed out after " +
                             std::to_string(m_timeout_ns / 1'000'000) + " ms " + while_queueing);
  }
}

}  // namespace gpubench::suite::cuda
