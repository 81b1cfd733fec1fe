#include "util/uuid.hpp"

#include <sys/random.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gpubench {

std::string make_uuid_v4() {
  // getrandom(2) (glibc 2.25), not std::random_device: GCC 12's libstdc++ implements that with
  // arc4random, which needs GLIBC_2.36 and would keep the static bundle (ci/bundle) off older
  // systems; and getrandom needs no /dev/urandom (the bundle test's chroot has none).
  uint8_t b[16];
  size_t filled = 0;
  while (filled < sizeof b) {
    const ssize_t got = getrandom(b + filled, sizeof b - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("getrandom failed (") + std::strerror(errno) +
                               "; the kernel is older than 3.17?)");
    }
    filled += static_cast<size_t>(got);
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);
  char out[37];
  std::snprintf(out, sizeof out,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return out;
}

bool is_uuid(const std::string& text) {
  if (text.size() != 36) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(text[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace gpubench
