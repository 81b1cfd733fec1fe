// Shared pieces of the transfer suite's CUDA runners (see transfer_cuda.hpp).
#include <cuda_runtime_api.h>

#include <cstdlib>

#include "kernels/copy/copy.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/preload.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/transfer/transfer_cuda.hpp"

namespace gpubench::transfer {

const TransferEnvironment& transfer_environment() {
  static const TransferEnvironment env = [] {
    TransferEnvironment e;
    const suite::cuda::DeviceProbe probe = suite::cuda::probe_devices();
    e.device_count = probe.count;
    e.unavailable_reason = probe.reason;
    e.links = new LinkProbe(e.sysfs_root);
    return e;
  }();
  return env;
}

void SampleSet::add(const suite::cuda::BatchSample& sample) {
  seconds.push_back(sample.elapsed_ms / 1e3);
  // The batch's GPU work ended just before time_batch returned: its window is the last
  // elapsed_ms before now.
  const double end_s = suite::SampleStateRecorder::now_s();
  states.add(sample.sm_clock_mhz, end_s - sample.elapsed_ms / 1e3, end_s);
}

void SampleSet::add(double s) {
  seconds.push_back(s);
  const double end_s = suite::SampleStateRecorder::now_s();
  states.add(0.0, end_s - s, end_s);
}

void SampleSet::add_window(double s, double sm_clock_mhz, double start_s) {
  seconds.push_back(s);
  states.add(sm_clock_mhz, start_s, start_s + s);
}

void report_one_way(benchmark::State& state, std::uint64_t bytes, std::uint64_t copies,
                    const SampleSet& samples, const LinkRate* rate, BandwidthMetric metric) {
  const double sample_s = median(samples.seconds);
  if (reports_latency(bytes)) {
    state.counters["us_per_copy"] = sample_s / static_cast<double>(copies) * 1e6;
  }
  if (reports_bandwidth(bytes)) {
    const double gbps =
        gb_per_s(static_cast<double>(bytes) * static_cast<double>(copies), sample_s);
    state.counters[metric == BandwidthMetric::cached ? "GB_per_s_cached" : "GB_per_s"] = gbps;
    if (rate) {
      if (const auto pct = pct_of_rate(gbps, *rate)) state.counters["pct_of_link"] = *pct;
    }
  }
  // Sample state (METHODOLOGY rule 5), stored with each sample rather than as metrics.
  samples.states.write(state);
}

std::string validate_copy(const void* destination, std::uint64_t bytes, std::uint32_t seed) {
  const std::uint64_t words = bytes / sizeof(std::uint32_t);
  const SamplePlan plan = sample_plan(words);
  std::vector<std::uint32_t> strided(plan.strided_count), tail(plan.tail_count);
  const auto* base = static_cast<const std::uint32_t*>(destination);
  if (plan.strided_count > 0) {
    GPUBENCH_CUDA_CHECK(cudaMemcpy2D(strided.data(), sizeof(std::uint32_t), base,
                                     plan.stride * sizeof(std::uint32_t), sizeof(std::uint32_t),
                                     plan.strided_count, cudaMemcpyDefault));
  }
  if (plan.tail_count > 0) {
    GPUBENCH_CUDA_CHECK(cudaMemcpy(tail.data(), base + plan.tail_first,
                                   plan.tail_count * sizeof(std::uint32_t), cudaMemcpyDefault));
  }
  return check_sampled_words(plan, strided.data(), tail.data(), seed);
}

void stamp_sample(void* source, SourceSide side, std::uint64_t bytes, std::uint32_t seed,
                  cudaStream_t stream) {
  const SamplePlan plan = sample_plan(bytes / sizeof(std::uint32_t));
  const SampledWords words = sampled_pattern(plan, seed);
  auto* base = static_cast<std::uint32_t*>(source);
  if (side == SourceSide::host) {
    // The stream's earlier copies read this buffer: they must be done before it changes.
    GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::uint64_t k = 0; k < plan.strided_count; ++k) base[k * plan.stride] = words.strided[k];
    for (std::uint64_t k = 0; k < plan.tail_count; ++k) base[plan.tail_first + k] = words.tail[k];
    return;
  }
  // Async in the stream's order (a synchronous cudaMemcpy would run on the legacy stream, which
  // the suite's non-blocking streams do not wait for), then wait: the words are pageable.
  if (plan.strided_count > 0) {
    GPUBENCH_CUDA_CHECK(cudaMemcpy2DAsync(
        base, plan.stride * sizeof(std::uint32_t), words.strided.data(), sizeof(std::uint32_t),
        sizeof(std::uint32_t), plan.strided_count, cudaMemcpyDefault, stream));
  }
  if (plan.tail_count > 0) {
    GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(base + plan.tail_first, words.tail.data(),
                                        plan.tail_count * sizeof(std::uint32_t), cudaMemcpyDefault,
                                        stream));
  }
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void enqueue_copies(Engine engine, void* dst, const void* src, std::uint64_t bytes,
                    std::uint64_t copies, int sm_count, cudaStream_t stream) {
  for (std::uint64_t k = 0; k < copies; ++k) {
    if (engine == Engine::ce) {
      GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
    } else {
      // Checked once per call (before the first copy): throws if the kernel was never preloaded.
      if (k == 0) suite::LaunchLedger::process().note(suite::cuda::current_device(), k_sm_copy);
      GPUBENCH_CUDA_CHECK(static_cast<cudaError_t>(
          kernels::copy::launch_sm_copy(dst, src, bytes, sm_count, stream)));
    }
  }
}

void clear_device(void* data, std::uint64_t bytes, cudaStream_t stream) {
  GPUBENCH_CUDA_CHECK(cudaMemsetAsync(data, 0, bytes, stream));
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void fill_device_pattern(void* data, std::uint64_t bytes, std::uint32_t seed, cudaStream_t stream) {
  GPUBENCH_CUDA_CHECK(static_cast<cudaError_t>(kernels::copy::launch_fill_pattern(
      static_cast<std::uint32_t*>(data), bytes / sizeof(std::uint32_t), seed, stream)));
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void preload_copy_kernels(int sm_count) {
  namespace cu = suite::cuda;
  const int device = cu::current_device();
  auto& ledger = suite::LaunchLedger::process();
  if (ledger.launched(device, k_sm_copy) && ledger.launched(device, k_sm_copy_bidir)) return;
  // One 16-byte word per direction: enough to load the kernels, nothing worth timing.
  cu::DeviceBuffer<unsigned char> src(64), dst(64);
  cu::Stream stream = cu::Stream::create();
  cu::preload_kernel(k_sm_copy, stream.get(), [&] {
    return kernels::copy::launch_sm_copy(dst.data(), src.data(), 16, sm_count, stream.get());
  });
  cu::preload_kernel(k_sm_copy_bidir, stream.get(), [&] {
    return kernels::copy::launch_sm_copy_bidir(dst.data(), src.data(), dst.data() + 32,
                                               src.data() + 32, 16, sm_count, stream.get());
  });
}

std::string describe_link(const LinkRate& rate) {
  std::string text = rate.description.empty() ? "link unknown" : rate.description;
  if (!rate.gb_per_s) text += "; % of link unknown: " + rate.reason;
  return text;
}

}  // namespace gpubench::transfer
