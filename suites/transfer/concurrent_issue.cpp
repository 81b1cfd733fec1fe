#include "suites/transfer/concurrent_issue.hpp"

#include <chrono>
#include <exception>
#include <latch>
#include <thread>

#include "suites/common/pinning.hpp"

namespace gpubench::transfer {

double time_concurrently(const std::function<void()>& first, const std::function<void()>& second) {
  std::latch ready(1), go(1);
  std::exception_ptr second_error;
  std::thread helper([&] {
    // Started by a thread pinned to one CPU (suites/common/pinning.hpp), it would share that CPU
    // with the first direction's thread: the directions would again run one at a time.
    suite::release_thread_pin();
    ready.count_down();
    go.wait();
    try {
      second();
    } catch (...) {
      second_error = std::current_exception();
    }
  });
  ready.wait();
  const auto t0 = std::chrono::steady_clock::now();
  go.count_down();
  std::exception_ptr first_error;
  try {
    first();
  } catch (...) {
    first_error = std::current_exception();
  }
  helper.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (first_error) std::rethrow_exception(first_error);
  if (second_error) std::rethrow_exception(second_error);
  return seconds;
}

}  // namespace gpubench::transfer
