// util/parallel.hpp: both pieces always finish, and the error a sequential run meets first wins.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "util/parallel.hpp"

namespace gpubench {
namespace {

TEST(RunBoth, RunsBothOnTwoThreads) {
  std::thread::id first_id, second_id;
  run_both([&] { first_id = std::this_thread::get_id(); },
           [&] { second_id = std::this_thread::get_id(); });
  EXPECT_EQ(first_id, std::this_thread::get_id());
  EXPECT_NE(second_id, std::this_thread::get_id());
  EXPECT_NE(second_id, std::thread::id());
}

TEST(RunBoth, NotInParallelRunsTheSecondAfterTheFirstHere) {
  std::vector<int> order;
  std::thread::id second_id;
  run_both([&] { order.push_back(1); },
           [&] {
             order.push_back(2);
             second_id = std::this_thread::get_id();
           },
           false);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(second_id, std::this_thread::get_id());
}

TEST(RunBoth, TheFirstsErrorWinsAndTheSecondStillFinishes) {
  std::atomic<bool> second_done{false};
  try {
    run_both([] { throw std::runtime_error("first"); },
             [&] {
               std::this_thread::sleep_for(std::chrono::milliseconds(50));
               second_done = true;
               throw std::runtime_error("second");
             });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "first");
  }
  EXPECT_TRUE(second_done);  // joined before the rethrow
  try {
    run_both([] {}, [] { throw std::runtime_error("second"); });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "second");
  }
}

}  // namespace
}  // namespace gpubench
