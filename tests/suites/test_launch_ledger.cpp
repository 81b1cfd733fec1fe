// The launch ledger (suites/common/launch_ledger.hpp) through a fake launcher: a kernel's first
// launch inside a spin-gated batch or a stream capture is reported by name; after the preload no
// batch issues a first launch; and the real case lists of the launch and fusion suites preload
// every kernel their batches and captures queue.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "suites/common/launch_ledger.hpp"
#include "suites/fusion/fusion_cases.hpp"
#include "suites/fusion/fusion_preload.hpp"
#include "suites/launch/launch_cases.hpp"

namespace gpubench::suite {
namespace {

// A GPU without a GPU: launches succeed and are counted; batches and captures enter the scopes the
// real BatchTimer and Graph::capture enter.
class FakeGpu {
 public:
  explicit FakeGpu(LaunchLedger& ledger) : m_ledger(ledger) {}
  void launch(int device, const std::string& kernel) {
    const int status = m_ledger.launch(device, kernel, [&] {
      ++launches;
      return 0;
    });
    ASSERT_EQ(status, 0);
  }
  template <class Enqueue>
  void gated_batch(Enqueue&& enqueue) {
    const ScopedLaunchScope gated(LaunchScope::gated);
    enqueue();
  }
  template <class Enqueue>
  void capture(Enqueue&& enqueue) {
    const ScopedLaunchScope capturing(LaunchScope::capturing);
    enqueue();
  }
  int launches = 0;

 private:
  LaunchLedger& m_ledger;
};

TEST(LaunchLedger, FirstLaunchInsideABatchIsReportedWithTheKernelsName) {
  LaunchLedger ledger;
  FakeGpu gpu(ledger);
  try {
    gpu.gated_batch([&] { gpu.launch(0, "launch::empty"); });
    FAIL() << "a first launch inside a gated batch was not reported";
  } catch (const FirstLaunchInScope& e) {
    EXPECT_EQ(e.kernel(), "launch::empty");
    EXPECT_EQ(e.device(), 0);
    EXPECT_EQ(e.scope(), LaunchScope::gated);
    EXPECT_NE(std::string(e.what()).find("launch::empty"), std::string::npos) << e.what();
  }
  EXPECT_EQ(gpu.launches, 0);  // not issued
  EXPECT_FALSE(ledger.launched(0, "launch::empty"));
  EXPECT_THROW(gpu.capture([&] { gpu.launch(0, "launch::add_one"); }), FirstLaunchInScope);
  EXPECT_EQ(LaunchLedger::current_scope(), LaunchScope::open);  // left on the exception
}

TEST(LaunchLedger, AfterThePreloadNoBatchIssuesAFirstLaunch) {
  LaunchLedger ledger;
  FakeGpu gpu(ledger);
  gpu.launch(0, "copy::sm_copy");  // the preload step: outside any batch
  EXPECT_TRUE(ledger.launched(0, "copy::sm_copy"));
  EXPECT_NO_THROW(gpu.gated_batch([&] {
    for (int i = 0; i < 16; ++i) gpu.launch(0, "copy::sm_copy");
  }));
  EXPECT_NO_THROW(gpu.capture([&] { gpu.launch(0, "copy::sm_copy"); }));
  EXPECT_EQ(gpu.launches, 18);
  // Modules load per device: a preload on device 0 does not load device 1.
  EXPECT_THROW(gpu.gated_batch([&] { gpu.launch(1, "copy::sm_copy"); }), FirstLaunchInScope);
  // A failed launch loads nothing.
  EXPECT_EQ(ledger.launch(0, "broken", [] { return 98; }), 98);
  EXPECT_FALSE(ledger.launched(0, "broken"));
}

TEST(LaunchLedger, ScopesNestAndBelongToTheirThread) {
  LaunchLedger ledger;
  {
    const ScopedLaunchScope gated(LaunchScope::gated);
    {
      const ScopedLaunchScope open(LaunchScope::open);  // still gated: nothing runs earlier
      EXPECT_EQ(LaunchLedger::current_scope(), LaunchScope::gated);
      EXPECT_THROW(ledger.note(0, "k"), FirstLaunchInScope);
    }
    // Another thread queueing outside any batch is not affected by this thread's batch.
    std::thread other([&] { ledger.note(0, "k"); });
    other.join();
    EXPECT_NO_THROW(ledger.note(0, "k"));
  }
  EXPECT_EQ(LaunchLedger::current_scope(), LaunchScope::open);
}

// Every case of the launch suite, in every profile: the preload step, then what its batches and
// captures queue; none is a first launch. The lists are what launch_runner.cpp preloads and notes.
TEST(LaunchLedger, LaunchSuiteCasesPreloadEveryKernelTheyTime) {
  int gated_cases = 0;
  for (const Profile profile : {Profile::quick, Profile::standard, Profile::full}) {
    for (const launch::LaunchCase& c : launch::all_cases(profile, {0, 1})) {
      LaunchLedger ledger;
      FakeGpu gpu(ledger);
      const auto gated = launch::gated_kernels(c);
      if (!gated.empty()) {
        ++gated_cases;
        // Without the preload the ledger would report it (the check is live).
        EXPECT_THROW(gpu.gated_batch([&] { gpu.launch(c.device, launch::kernel_name(gated[0])); }),
                     FirstLaunchInScope)
            << launch::case_name(c);
      }
      for (const auto k : launch::preload_kernels(c)) gpu.launch(c.device, launch::kernel_name(k));
      for (const auto k : gated) {
        const auto enqueue = [&] { gpu.launch(c.device, launch::kernel_name(k)); };
        EXPECT_NO_THROW(gpu.gated_batch(enqueue)) << launch::case_name(c);
        EXPECT_NO_THROW(gpu.capture(enqueue)) << launch::case_name(c);
      }
    }
  }
  EXPECT_GT(gated_cases, 0);  // back_to_back and kernel_chain queue kernels behind a gate
}

// Every device case of the fusion suite, in every profile, run alone (its v1 case filtered out, so
// v1 is timed as the baseline inside the case): the preload, the graph capture, the batches.
TEST(LaunchLedger, FusionCasesPreloadEveryVariantTheyTimeOrCapture) {
  using fusion::Variant;
  const auto key = [](const fusion::FusionCase& c, Variant v) {
    fusion::FusionCase k = c;
    k.variant = fusion::kernels_of(v);
    return fusion::benchmark_name(k);
  };
  int graph_cases = 0;
  for (const Profile profile : {Profile::quick, Profile::standard, Profile::full}) {
    for (const fusion::FusionCase& c : fusion::device_cases(profile, {0})) {
      LaunchLedger ledger;
      FakeGpu gpu(ledger);
      for (const Variant v : fusion::preload_variants(c)) gpu.launch(c.device, key(c, v));
      for (const Variant v : fusion::captured_variants(c)) {
        ++graph_cases;
        EXPECT_NO_THROW(gpu.capture([&] { gpu.launch(c.device, key(c, v)); }))
            << fusion::benchmark_name(c);
      }
      for (const bool baseline_missing : {false, true}) {
        for (const Variant v : fusion::gated_variants(c, baseline_missing)) {
          EXPECT_NO_THROW(gpu.gated_batch([&] { gpu.launch(c.device, key(c, v)); }))
              << fusion::benchmark_name(c);
        }
      }
    }
  }
  EXPECT_GT(graph_cases, 0);
  // The baseline v1 is preloaded by a fused variant's case even when v1's own case never runs.
  fusion::FusionCase v3;
  v3.family = fusion::Family::bias_gelu;
  v3.variant = Variant::v3;
  EXPECT_EQ(fusion::preload_variants(v3), (std::vector<Variant>{Variant::v3, Variant::v1}));
  EXPECT_EQ(fusion::gated_variants(v3, true), (std::vector<Variant>{Variant::v3, Variant::v1}));
  v3.variant = Variant::graph;
  EXPECT_EQ(fusion::preload_variants(v3), (std::vector<Variant>{Variant::v1}));
  EXPECT_EQ(fusion::captured_variants(v3), (std::vector<Variant>{Variant::v1}));
}

// Batch sizing counts the kernels a call really enqueues: a graph replay of K nodes counts K.
TEST(LaunchLedger, BatchSizingCountsTheKernelsAGraphReplayEnqueues) {
  fusion::FusionCase c;
  c.family = fusion::Family::layernorm;
  c.variant = fusion::Variant::graph;
  const int listed = fusion::kernels_per_call(c);
  ASSERT_GT(listed, 1);
  EXPECT_EQ(fusion::enqueued_kernels_per_call(c, 0), listed);  // unknown: the captured chain's
  EXPECT_EQ(fusion::enqueued_kernels_per_call(c, 5), std::max(listed, 5));
  // A fast call: 400 launches' worth of replays of a 3-node graph is 133 replays, not 400.
  const int kernels = fusion::enqueued_kernels_per_call(c, 3);
  EXPECT_LE(fusion::device_calls_per_batch(0.0001, 2.0, kernels) * kernels, 400);
  // A cuBLASLt call that enqueues a split-K reduction too counts 2 (+ the bias_gelu kernel).
  fusion::FusionCase g;
  g.family = fusion::Family::gemm_bias_gelu;
  g.variant = fusion::Variant::epilogue;
  EXPECT_EQ(fusion::enqueued_kernels_per_call(g, 0), 1);
  EXPECT_EQ(fusion::enqueued_kernels_per_call(g, 2), 2);
  EXPECT_EQ(fusion::device_calls_per_batch(0.0001, 2.0, 2), 200);
}

}  // namespace
}  // namespace gpubench::suite
