// Peer access restored after each peer-to-peer case (review N3), against a fake driver that has
// the CUDA limit of eight peer connections per GPU; and the staged bidirectional copies' two
// directions issued at once from two threads (review n3).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "suites/transfer/concurrent_issue.hpp"
#include "suites/transfer/peer_access.hpp"

namespace gpubench::transfer {
namespace {

// What cudaDeviceEnablePeerAccess / cudaDeviceDisablePeerAccess do, as far as the suite relies on
// them: one-directional state per (device, peer), at most `limit` peers per device (the ninth
// enable fails with cudaErrorTooManyPeers), already-set states reported as unchanged.
struct FakeDriver {
  int limit = 8;
  std::map<int, std::set<int>> enabled;  // device -> peers it maps
  int calls = 0;
  PeerCall set(int device, int peer, PeerAccess want) {
    ++calls;
    std::set<int>& peers = enabled[device];
    if (want == PeerAccess::off) return peers.erase(peer) ? PeerCall::changed : PeerCall::unchanged;
    if (peers.count(peer)) return PeerCall::unchanged;
    if (static_cast<int>(peers.size()) >= limit) return PeerCall::too_many_peers;
    peers.insert(peer);
    return PeerCall::changed;
  }
  PeerSetter setter() {
    return [this](int d, int p, PeerAccess w) { return set(d, p, w); };
  }
};

// One case as p2p_runner.cpp runs it: both ways to `want`, measured, then restored.
std::optional<std::string> run_case(FakeDriver& driver, int src, int dst, PeerAccess want) {
  ScopedPeerAccess peers(driver.setter());
  if (auto reason = peers.set(src, dst, want)) return reason;
  if (auto reason = peers.set(dst, src, want)) return reason;
  return std::nullopt;
}

// A 10-GPU PCIe host: every ordered pair, with peer access on then off, runs; each case starts
// from the initial state (nothing enabled) and leaves it so.
TEST(TransferPeerAccess, EveryPairOfATenGpuHostRunsWhenEachCaseRestoresItsPeers) {
  FakeDriver driver;
  for (int src = 0; src < 10; ++src) {
    for (int dst = 0; dst < 10; ++dst) {
      if (src == dst) continue;
      for (PeerAccess want : {PeerAccess::on, PeerAccess::off}) {
        EXPECT_EQ(run_case(driver, src, dst, want), std::nullopt) << src << "->" << dst;
        for (const auto& [device, peers] : driver.enabled) EXPECT_TRUE(peers.empty()) << device;
      }
    }
  }
}

// What the suite did before: enable both ways and keep it. GPU 0's ninth peer is refused.
TEST(TransferPeerAccess, KeptPeersRunOutOnTheNinthPeerAndTheCaseIsSkippedWithTheReason) {
  FakeDriver driver;
  for (int dst = 1; dst <= 8; ++dst)
    EXPECT_EQ(driver.set(0, dst, PeerAccess::on), PeerCall::changed);
  const auto reason = run_case(driver, 0, 9, PeerAccess::on);
  ASSERT_TRUE(reason);
  EXPECT_NE(reason->find("GPU 0 has no peer connection left to map GPU 9"), std::string::npos)
      << *reason;
  EXPECT_NE(reason->find("cudaErrorTooManyPeers"), std::string::npos) << *reason;
  // The guard undid nothing it did not do: the eight peers the case found are still there.
  EXPECT_EQ(driver.enabled[0].size(), 8u);
  EXPECT_TRUE(driver.enabled[9].empty());
}

// Only the case's own changes are undone, last first; a state found already set is left alone.
TEST(TransferPeerAccess, RestoresOnlyWhatTheCaseChanged) {
  FakeDriver driver;
  driver.set(1, 0, PeerAccess::on);  // enabled before the case (not by it)
  {
    ScopedPeerAccess peers(driver.setter());
    EXPECT_EQ(peers.set(0, 1, PeerAccess::on), std::nullopt);
    EXPECT_EQ(peers.set(1, 0, PeerAccess::on), std::nullopt);  // unchanged
    EXPECT_EQ(driver.enabled[0].count(1), 1u);
  }
  EXPECT_EQ(driver.enabled[0].count(1), 0u);  // the case's enable, undone
  EXPECT_EQ(driver.enabled[1].count(0), 1u);  // found enabled: kept
  {
    ScopedPeerAccess peers(driver.setter());
    EXPECT_EQ(peers.set(1, 0, PeerAccess::off), std::nullopt);  // a staged case turns it off
    EXPECT_EQ(driver.enabled[1].count(0), 0u);
  }
  EXPECT_EQ(driver.enabled[1].count(0), 1u);  // and it is on again afterwards
}

TEST(TransferPeerAccess, AFailureToRestoreIsAWarningNotAnException) {
  bool fail = false;
  int calls = 0;
  {
    ScopedPeerAccess peers([&](int, int, PeerAccess) {
      ++calls;
      if (fail) throw std::runtime_error("device lost");
      return PeerCall::changed;
    });
    EXPECT_EQ(peers.set(0, 1, PeerAccess::on), std::nullopt);
    fail = true;
    testing::internal::CaptureStderr();
  }  // the destructor must not throw
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(calls, 2);
  EXPECT_NE(err.find("cannot restore peer access of GPU 0 to GPU 1 (device lost)"),
            std::string::npos)
      << err;
}

// Each function waits until the other has started: run one after the other, neither would see
// the other (each gives up after 5 s), so both seeing each other shows they ran at once.
TEST(TransferConcurrentIssue, BothDirectionsRunAtOnce) {
  std::atomic<int> started{0};
  auto wait_for_both = [&] {
    ++started;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    return started.load() == 2;
  };
  bool first_saw = false, second_saw = false;
  std::thread::id first_thread, second_thread;
  const double seconds = time_concurrently(
      [&] {
        first_thread = std::this_thread::get_id();
        first_saw = wait_for_both();
      },
      [&] {
        second_thread = std::this_thread::get_id();
        second_saw = wait_for_both();
      });
  EXPECT_TRUE(first_saw);
  EXPECT_TRUE(second_saw);
  EXPECT_EQ(first_thread, std::this_thread::get_id());  // the caller issues the first direction
  EXPECT_NE(second_thread, first_thread);
  EXPECT_GT(seconds, 0.0);
  EXPECT_LT(seconds, 5.0);
}

TEST(TransferConcurrentIssue, TheIntervalCoversTheLongerDirection) {
  const double seconds =
      time_concurrently([] { std::this_thread::sleep_for(std::chrono::milliseconds(5)); },
                        [] { std::this_thread::sleep_for(std::chrono::milliseconds(60)); });
  EXPECT_GE(seconds, 0.060);
}

TEST(TransferConcurrentIssue, AnExceptionOnEitherThreadReachesTheCallerAfterBothFinished) {
  bool other_finished = false;
  EXPECT_THROW(time_concurrently([] { throw std::runtime_error("first"); },
                                 [&] {
                                   std::this_thread::sleep_for(std::chrono::milliseconds(20));
                                   other_finished = true;
                                 }),
               std::runtime_error);
  EXPECT_TRUE(other_finished);
  try {
    time_concurrently([] {}, [] { throw std::logic_error("second"); });
    ADD_FAILURE() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "second");
  }
}

}  // namespace
}  // namespace gpubench::transfer
