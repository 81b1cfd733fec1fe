// arc4random for executables that link libstdc++ statically (GPUBENCH_STATIC_RUNTIME, the bundle).
//
// GCC 12's libstdc++.a, built on glibc 2.36, implements std::random_device with arc4random, and
// every program pulls that in (cow-string-inst.o refers to random_device::_M_init), so each
// executable would import arc4random@GLIBC_2.36 and refuse to start on glibc 2.35 (Ubuntu 22.04)
// or 2.34 (RHEL 9). Defined here, in the executable, the static link resolves libstdc++'s
// reference to this function and imports nothing. cmake/Bundle.cmake adds this file to the
// bundled programs only. Not exported (no -rdynamic): libc and shared libraries keep their own.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" uint32_t arc4random() noexcept {
  uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  size_t filled = 0;
  while (filled < sizeof value) {
    const ssize_t got = getrandom(bytes + filled, sizeof value - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      std::abort();  // arc4random cannot fail; getrandom(2) only does before Linux 3.17
    }
    filled += static_cast<size_t>(got);
  }
  return value;
}
