// GPU tests (label `gpu`) of the transfer and launch suites: the copy kernels and their validation,
// the two-stream timer, and both suites' real binaries on GPU 0 with their bounds. Each test
// skips without a CUDA device.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "harness/process/process.hpp"
#include "kernels/copy/copy.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/graph.hpp"
#include "suites/common/cuda/pair_timing.hpp"
#include "suites/common/cuda/preload.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/timing.hpp"
#include "suites/common/launch_ledger.hpp"
#include "suites/common/sample_state_counters.hpp"
#include "suites/transfer/concurrent_pair_timer.hpp"
#include "suites/transfer/transfer_cuda.hpp"
#include "tests/gpu/require_device.hpp"
#include "util/fs.hpp"

namespace gpubench::transfer {
namespace {

namespace cu = suite::cuda;
using json = nlohmann::json;

// The real timers and graph capture enter the ledger's scopes: a kernel never launched before
// is refused inside a spin-gated batch (both timers) and inside capture, by name and without
// being issued; after its preload the same batch runs. The SM copy preload loads both kernels.
TEST(TransferGpu, FirstLaunchInsideABatchOrCaptureIsRefusedAfterPreloadItRuns) {
  GPUBENCH_REQUIRE_DEVICE();
  const cu::DeviceInfo info = cu::query_device(0);
  cu::Stream stream = cu::Stream::create();
  cu::Stream second = cu::Stream::create();
  cu::DeviceBuffer<unsigned char> src(1 << 20), dst(1 << 20);
  int issued = 0;
  const auto copy = [&] {
    cu::launch_noted("test::sm_copy_alias", [&] {
      ++issued;
      return kernels::copy::launch_sm_copy(dst.data(), src.data(), 1 << 20, info.sm_count,
                                           stream.get());
    });
  };
  cu::BatchTimer timer(stream.get(), info.clock_khz, static_cast<std::size_t>(info.l2_bytes));
  EXPECT_THROW(timer.time_batch(copy, cu::CacheState::hot), suite::FirstLaunchInScope);
  cu::StreamPairTimer pair(stream.get(), second.get());
  EXPECT_THROW(pair.time_pair(copy, [] {}), suite::FirstLaunchInScope);
  // The bidirectional timer the suite uses queues both streams inside the gated scope too.
  ConcurrentPairTimer concurrent(0, stream.get(), 0, second.get());
  EXPECT_THROW(concurrent.time_pair(
                   copy, nullptr, [] {}, nullptr),
               suite::FirstLaunchInScope);
  EXPECT_THROW(concurrent.time_pair([] {}, nullptr, copy, nullptr), suite::FirstLaunchInScope);
  second.synchronize();
  EXPECT_THROW((void)cu::Graph::capture(stream.get(), copy), suite::FirstLaunchInScope);
  EXPECT_EQ(issued, 0);
  stream.synchronize();
  cu::preload_kernel("test::sm_copy_alias", stream.get(), [&] {
    return kernels::copy::launch_sm_copy(dst.data(), src.data(), 16, info.sm_count, stream.get());
  });
  EXPECT_GT(timer.time_batch(copy, cu::CacheState::hot).elapsed_ms, 0.0);
  EXPECT_EQ(issued, 1);

  preload_copy_kernels(info.sm_count);
  auto& ledger = suite::LaunchLedger::process();
  EXPECT_TRUE(ledger.launched(0, k_sm_copy));
  EXPECT_TRUE(ledger.launched(0, k_sm_copy_bidir));
}

TEST(TransferGpu, SmCopyKernelsCopyExactlyAndValidationSeesIt) {
  GPUBENCH_REQUIRE_DEVICE();
  const std::size_t bytes = 3 << 20;
  const cu::DeviceInfo info = cu::query_device(0);
  cu::DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  cu::PinnedBuffer<unsigned char> host_in(bytes, cu::HostMapping::mapped);
  cu::PinnedBuffer<unsigned char> host_out(bytes, cu::HostMapping::mapped);
  cu::Stream stream = cu::Stream::create();
  fill_device_pattern(src.data(), bytes, 11, stream.get());
  clear_device(dst.data(), bytes, stream.get());
  EXPECT_NE(validate_copy(dst.data(), bytes, 11), "");  // nothing copied yet
  enqueue_copies(Engine::sm, dst.data(), src.data(), bytes, 2, info.sm_count, stream.get());
  stream.synchronize();
  EXPECT_EQ(validate_copy(dst.data(), bytes, 11), "");
  EXPECT_NE(validate_copy(dst.data(), bytes, 12), "");

  // Bidirectional kernel: host_in -> dst and src -> host_out at once, through mapped memory.
  kernels::copy::fill_pattern_host(reinterpret_cast<std::uint32_t*>(host_in.data()), bytes / 4, 21);
  clear_device(dst.data(), bytes, stream.get());
  ASSERT_EQ(kernels::copy::launch_sm_copy_bidir(dst.data(), host_in.device_pointer(),
                                                host_out.device_pointer(), src.data(), bytes,
                                                info.sm_count, stream.get()),
            0);
  stream.synchronize();
  EXPECT_EQ(validate_copy(dst.data(), bytes, 21), "");
  EXPECT_EQ(validate_copy(host_out.data(), bytes, 11), "");
}

TEST(TransferGpu, PairTimerTimesBothStreamsFromOneOrigin) {
  GPUBENCH_REQUIRE_DEVICE();
  const std::size_t bytes = 64 << 20;
  cu::DeviceBuffer<unsigned char> a(bytes), b(bytes);
  cu::PinnedBuffer<unsigned char> h1(bytes, cu::HostMapping::unmapped);
  cu::PinnedBuffer<unsigned char> h2(bytes, cu::HostMapping::unmapped);
  cu::Stream s1 = cu::Stream::create();
  cu::Stream s2 = cu::Stream::create();
  cu::StreamPairTimer timer(s1.get(), s2.get());
  const cu::PairSample s = timer.time_pair(
      [&] { enqueue_copies(Engine::ce, a.data(), h1.data(), bytes, 2, 0, s1.get()); },
      [&] { enqueue_copies(Engine::ce, h2.data(), b.data(), bytes, 2, 0, s2.get()); });
  EXPECT_GT(s.first_ms, 0.0);
  EXPECT_GT(s.second_ms, 0.0);
  EXPECT_GE(s.span_ms + 1e-3, std::max(s.first_ms, s.second_ms));
  EXPECT_LE(s.span_ms, s.first_ms + s.second_ms + 1e-3);
}

// The bidirectional timer: each direction's timed copies, then its interfering ones; both streams
// finished on return; each direction's time covers its timed copies only. Two GPUs when the host
// has them (each direction issued by its own GPU), else two streams of GPU 0.
TEST(TransferGpu, ConcurrentPairTimerTimesEachDirectionOnItsOwnGpu) {
  GPUBENCH_REQUIRE_DEVICE();
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  const int second = count > 1 ? 1 : 0;
  const std::size_t bytes = 64 << 20;
  ASSERT_EQ(cudaSetDevice(second), cudaSuccess);
  cu::DeviceBuffer<unsigned char> b_src(bytes), b_dst(bytes);
  cu::Stream s2 = cu::Stream::create();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cu::DeviceBuffer<unsigned char> a_src(bytes), a_dst(bytes);
  cu::Stream s1 = cu::Stream::create();
  ConcurrentPairTimer timer(0, s1.get(), second, s2.get());
  int interfering = 0;
  const double before_s = suite::SampleStateRecorder::now_s();
  const cu::PairSample s = timer.time_pair(
      [&] { enqueue_copies(Engine::ce, a_dst.data(), a_src.data(), bytes, 2, 0, s1.get()); },
      [&] {
        ++interfering;
        enqueue_copies(Engine::ce, a_dst.data(), a_src.data(), bytes, 2, 0, s1.get());
      },
      [&] { enqueue_copies(Engine::ce, b_dst.data(), b_src.data(), bytes, 2, 0, s2.get()); },
      [&] {
        ++interfering;
        enqueue_copies(Engine::ce, b_dst.data(), b_src.data(), bytes, 2, 0, s2.get());
      });
  const double after_s = suite::SampleStateRecorder::now_s();
  EXPECT_EQ(interfering, 2);
  // The timed copies' window starts at the release, before the interfering copies ran, so it
  // ends about one span before time_pair returned (the window stamped "ended now" did not).
  EXPECT_GE(timer.released_at_s(), before_s);
  EXPECT_LE(timer.released_at_s() + s.span_ms / 1e3, after_s - 0.25 * s.span_ms / 1e3);
  EXPECT_GT(s.first_ms, 0.0);
  EXPECT_GT(s.second_ms, 0.0);
  EXPECT_DOUBLE_EQ(s.span_ms, std::max(s.first_ms, s.second_ms));
  EXPECT_EQ(cudaStreamQuery(s1.get()), cudaSuccess);  // interfering copies done too
  EXPECT_EQ(cudaStreamQuery(s2.get()), cudaSuccess);
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0);  // the first GPU stays current
}

json run_suite(const std::string& suite, const std::string& filter,
               const std::string& profile = "quick",
               const std::vector<std::pair<std::string, std::string>>& env = {}) {
  TempDir dir("gpubench-test-gpu-suite");
  harness::ProcessSpec spec;
  spec.argv = {(std::filesystem::path(GPUBENCH_BIN_DIR) / ("gpubench-" + suite)).string(),
               "--device",
               "0",
               "--benchmark_filter=" + filter,
               "--benchmark_out=" + (dir.path() / "out.json").string(),
               "--benchmark_out_format=json"};
  spec.env = {{"GPUBENCH_PROFILE", profile}};
  spec.env.insert(spec.env.end(), env.begin(), env.end());
  spec.stdout_path = dir.path() / "stdout.txt";
  spec.stderr_tail_bytes = 1 << 16;
  spec.timeout_s = 240;
  const harness::ProcessResult r = harness::run_process(spec);
  EXPECT_EQ(r.exit_code.value_or(-1), 0) << r.stderr_tail;
  return json::parse(read_file(dir.path() / "out.json"));
}

// Whether a benchmark entry failed or was skipped. (Not b.value("error_occurred", false): with it
// in several tests GCC 12 at -O3 reports a false null dereference inside nlohmann::json.)
bool errored(const json& b) {
  const auto it = b.find("error_occurred");
  return it != b.end() && *it == true;
}

// Skips that are expected on some hosts; anything else is a failure.
bool explained(const std::string& message) {
  return std::regex_search(message, std::regex("^skipped: (no remote NUMA node|peer-to-peer needs "
                                               "two GPUs|GPU [0-9]+ .* cannot access)"));
}

TEST(TransferGpu, QuickCasesRunValidateAndPinnedBeatsPageable) {
  GPUBENCH_REQUIRE_DEVICE();
  const json doc =
      run_suite("transfer", "(dir:h2d|dir:d2h|dir:bidir|dir:d2d).*bytes:(4096|67108864)/");
  std::map<std::string, double> gbps;
  int ok = 0;
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["name"];
    if (errored(b)) {
      EXPECT_TRUE(explained(b["error_message"])) << name << ": " << b["error_message"];
      continue;
    }
    ++ok;
    if (name.find("bytes:4096/") != std::string::npos) {
      EXPECT_GT(b["us_per_copy"].get<double>(), 0.0) << name;
    } else if (name.find("dir:d2d") != std::string::npos && !b.contains("GB_per_s")) {
      // 64 MiB device-local: source + destination below 4x L2 on large-L2 GPUs.
      EXPECT_GT(b["GB_per_s_cached"].get<double>(), 0.5) << name;
    } else {
      EXPECT_GT(b["GB_per_s"].get<double>(), 0.5) << name;
      gbps[name] = b["GB_per_s"];
    }
    // Every case records the window it ran in (bidirectional ones included).
    EXPECT_TRUE(b.contains("window_start_s")) << name;
  }
  EXPECT_GE(ok, 16);
  // Not required where GPU 0 reads host memory through the host's page tables (NVLink-C2C, e.g.
  // GH200): there pageable copies are not staged and run like pinned ones (as gpu-check).
  std::string host_tables;
  if (const auto context = doc.find("context"); context != doc.end()) {
    const auto it = context->find("gpubench.transfer.host_page_tables");
    if (it != context->end() && it->is_string()) host_tables = it->get_ref<const std::string&>();
  }
  if (!pageable_must_trail_pinned(host_tables, 0)) return;
  for (const char* dir : {"host_to_device_memcpy_ce/dir:h2d", "device_to_host_memcpy_ce/dir:d2h"}) {
    const std::string pinned = std::string("transfer/") + dir +
                               "/memory:pinned/engine:ce/numa:local/bytes:67108864/device:0/"
                               "iterations:10/manual_time";
    std::string pageable = pinned;
    pageable.replace(pageable.find("pinned"), 6, "pageable");
    ASSERT_TRUE(gbps.count(pinned) && gbps.count(pageable)) << pinned;
    EXPECT_LT(gbps[pageable], gbps[pinned]) << dir;
  }
}

// A bidirectional SM peer case under lazy module loading (as gpu-check's suite step and the GPU
// tests run): the reverse direction's copy kernel is preloaded on dst, so its first launch never
// falls inside the batch held behind src's spin kernel (which stalled until the 5 s spin timeout).
TEST(TransferGpu, BidirectionalSmPeerCaseRunsUnderLazyLoadingWithTheKernelPreloadedOnBothGpus) {
  GPUBENCH_REQUIRE_DEVICE();
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  if (count < 2) GTEST_SKIP() << "needs two GPUs; this host has " << count;
  const json doc = run_suite(
      "transfer", "device_to_device_bidirectional_memcpy_write_sm/.*/src:0/dst:1/bytes:268435456/",
      "standard", {{"CUDA_MODULE_LOADING", "LAZY"}});
  int ran = 0;
  std::string skipped;
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["name"];
    if (errored(b)) {
      EXPECT_TRUE(explained(b["error_message"])) << name << ": " << b["error_message"];
      skipped = b["error_message"];
      continue;
    }
    ++ran;
    EXPECT_GT(b["GB_per_s_forward"].get<double>(), 0.5) << name;
    EXPECT_GT(b["GB_per_s_reverse"].get<double>(), 0.5) << name;
  }
  if (ran == 0 && !skipped.empty()) GTEST_SKIP() << skipped;
  EXPECT_GE(ran, 1);
}

// The context really waits in the mode the name states, and the label says where the thread ran
// (pinned, or why not).
void expect_scheduling_and_pin_stated(const std::string& name, const json& result) {
  EXPECT_NE(name.find("/sched:spin/device:0/"), std::string::npos) << name;
  const std::string label = result.contains("label") ? result["label"].get<std::string>() : "";
  EXPECT_NE(label.find("sched: cudaDeviceScheduleSpin"), std::string::npos) << label;
  EXPECT_TRUE(label.find("pinned to CPU") != std::string::npos ||
              label.find("not pinned: ") != std::string::npos)
      << label;
}

TEST(LaunchGpu, GraphBeatsOneByOneAtOneHundredKernelsAndLatenciesArePlausible) {
  GPUBENCH_REQUIRE_DEVICE();
  const json doc = run_suite("launch", ".");
  bool chain = false, start = false;
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["name"];
    ASSERT_FALSE(errored(b)) << name << ": " << b["error_message"];
    expect_scheduling_and_pin_stated(name, b);
    if (name.find("kernel_chain/kernels:100/") != std::string::npos) {
      chain = true;
      EXPECT_LT(b["us_per_kernel_graph"].get<double>(), b["us_per_kernel_stream"].get<double>());
      EXPECT_GT(b["graph_speedup"].get<double>(), 1.0);
    }
    if (name.find("launch_to_start/") != std::string::npos) {
      start = true;
      EXPECT_GT(b["launch_to_start_us"].get<double>(), 0.0);
      EXPECT_LT(b["launch_to_start_us"].get<double>(), 1000.0);
    }
  }
  EXPECT_TRUE(chain && start);
  const json pins = json::parse(doc["context"]["gpubench.pinning"].get<std::string>());
  ASSERT_EQ(pins.size(), 1u) << pins;
  EXPECT_TRUE(pins[0]["cpu"].is_number_integer() || !pins[0]["reason"].get<std::string>().empty())
      << pins;
}

}  // namespace
}  // namespace gpubench::transfer
