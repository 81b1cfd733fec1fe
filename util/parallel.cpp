#include "util/parallel.hpp"

#include <exception>
#include <thread>

namespace gpubench {

void run_both(const std::function<void()>& first, const std::function<void()>& second,
              bool in_parallel) {
  std::exception_ptr second_error;
  std::thread other;
  if (in_parallel) {
    other = std::thread([&] {
      try {
        second();
      } catch (...) {
        second_error = std::current_exception();
      }
    });
  }
  std::exception_ptr first_error;
  try {
    first();
  } catch (...) {
    first_error = std::current_exception();
  }
  if (other.joinable()) other.join();
  if (first_error) std::rethrow_exception(first_error);
  if (!in_parallel) {
    second();
    return;
  }
  if (second_error) std::rethrow_exception(second_error);
}

}  // namespace gpubench
