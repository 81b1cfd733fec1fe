// The GEMM training step (CUDA runtime and cuBLAS only, no device code of its own, so a .cpp: the
// inputs are filled by kernels/common's random-normal kernel). cuBLAS is loaded at run time
// (suites/common/cuda/libraries.hpp), as the gemm suite does.
//
// Per batch k: the step's stream waits on the event the H2D sink recorded after batch k's copy
// (cudaStreamWaitEvent: the device waits, the host does not), then `repeats` cublasGemmEx calls of
// n x n x n, bf16 A and B, fp32 C, CUBLAS_COMPUTE_32F, between two timing events. Two event
// pairs alternate: before queueing step k the host waits for step k - 2's stop event, so at most
// k_max_steps_in_flight steps are queued and the loader, not an unbounded queue, sets the pace.
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/random_normal.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/libraries.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/validation.hpp"
#include "suites/dataloader/device_staging.hpp"
#include "suites/dataloader/training_step.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

namespace cuda = gpubench::suite::cuda;

constexpr std::uint64_t k_seed_a = 0x5eed0a;
constexpr std::uint64_t k_seed_b = 0x5eed0b;
constexpr std::size_t k_validation_rows = 4;
constexpr std::size_t k_validation_cols = 4;
constexpr int k_timed_steps = 2;  // per calibration round, after one untimed warm-up step

// What every GEMM step on one device shares, made once per process (the benchmark body, and so
// a GemmStep, is made again for every repetition): the stream, the cuBLAS handle, 512 MiB of
// operands filled once, the calibrations by target (microseconds: a case with a target already
// calibrated reuses its shape; a new target starts from the nearest one known) and the shapes
// validated. One benchmark body runs at a time, so one step uses the context at a time.
struct GemmContext {
  explicit GemmContext(int device_ordinal)
      : device(device_ordinal),
        stream(cuda::Stream::create()),
        cublas(cuda::CublasHandle::create(stream.get())),
        a(std::size_t{k_gemm_max_n} * k_gemm_max_n),
        b(std::size_t{k_gemm_max_n} * k_gemm_max_n),
        c(std::size_t{k_gemm_max_n} * k_gemm_max_n) {
    const std::size_t count = std::size_t{k_gemm_max_n} * k_gemm_max_n;
    GPUBENCH_CUDA_CHECK(kernels::launch_fill_normal(a.data(), count, kernels::FillType::bf16,
                                                    k_seed_a, 1.0f, stream.get()));
    GPUBENCH_CUDA_CHECK(kernels::launch_fill_normal(b.data(), count, kernels::FillType::bf16,
                                                    k_seed_b, 1.0f, stream.get()));
  }
  int device;
  cuda::Stream stream;
  cuda::CublasHandle cublas;
  cuda::DeviceBuffer<std::uint16_t> a;  // bf16 bits
  cuda::DeviceBuffer<std::uint16_t> b;
  cuda::DeviceBuffer<float> c;
  std::map<long long, StepCalibration> calibrations;
  std::map<int, std::size_t> validated;  // n -> output entries checked against the CPU
};

// The context of `device`, made on first use (the current device must be `device`). Never
// destroyed: freeing device memory during static destruction would race the CUDA runtime's own
// teardown at exit, which releases it anyway.
GemmContext& gemm_context(int device) {
  static auto* contexts = new std::map<int, std::unique_ptr<GemmContext>>();
  auto& slot = (*contexts)[device];
  if (!slot) slot = std::make_unique<GemmContext>(device);
  return *slot;
}

class GemmStep final : public TrainingStep {
 public:
  GemmStep(H2DSink& sink, std::chrono::microseconds target, GemmContext& context)
      : m_sink(sink), m_target_ms(static_cast<double>(target.count()) / 1e3), m_context(context) {
    for (auto& s : m_slots) {
      s.start = cuda::Event::create();
      s.stop = cuda::Event::create();
    }
    calibrate();
    validate();
  }
  // Steps still queued wait on the sink's events and record this step's events: finish them
  // before those are destroyed (the operands stay, in the process's context).
  ~GemmStep() override { (void)cudaStreamSynchronize(stream()); }
  GemmStep(const GemmStep&) = delete;
  GemmStep& operator=(const GemmStep&) = delete;

  void run(const Batch& batch) override {
    Slot& s = m_slots[m_steps % m_slots.size()];
    collect(s);  // the step k_max_steps_in_flight back
    auto* copied = static_cast<cudaEvent_t>(m_sink.copy_done_event(batch));
    if (copied == nullptr) throw infrastructure("the GEMM step has no copy to wait for");
    GPUBENCH_CUDA_CHECK(cudaStreamWaitEvent(stream(), copied, 0));
    // Recorded after the wait: its time is when the input arrived (or the previous step ended),
    // so stop - start is the GEMMs alone.
    s.start.record(stream());
    enqueue(m_shape);
    s.stop.record(stream());
    s.pending = true;
    m_steps += 1;
  }

  void finish() override {
    // Oldest first; the order does not change the sum, only which wait returns first.
    for (std::size_t i = 0; i < m_slots.size(); ++i)
      collect(m_slots[(m_steps + i) % m_slots.size()]);
  }

  std::uint64_t steps() const override { return m_steps; }
  double step_seconds() const override { return m_seconds; }

  std::string label() const override {
    char text[200];
    std::snprintf(text, sizeof text,
                  "consumer=gemm bf16 n=%d x%d (calibrated %.2f ms for %.0f ms%s) validated=%zu",
                  m_shape.n, m_shape.repeats, m_calibrated_ms, m_target_ms,
                  m_converged ? "" : ", not within 10%", m_validated);
    return text;
  }

 private:
  struct Slot {
    cuda::Event start;
    cuda::Event stop;
    bool pending = false;
  };

  cudaStream_t stream() const { return m_context.stream.get(); }

  void collect(Slot& s) {
    if (!s.pending) return;
    s.stop.synchronize();
    m_seconds += s.stop.elapsed_ms_since(s.start) / 1e3;
    s.pending = false;
  }

  // Column-major n x n operands at the start of the max-size buffers (leading dimension n).
  void enqueue(const GemmShape& shape) {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    for (int r = 0; r < shape.repeats; ++r) {
      GPUBENCH_CUBLAS_CHECK(cublasGemmEx(
          m_context.cublas.get(), CUBLAS_OP_N, CUBLAS_OP_N, shape.n, shape.n, shape.n, &alpha,
          m_context.a.data(), CUDA_R_16BF, shape.n, m_context.b.data(), CUDA_R_16BF, shape.n, &beta,
          m_context.c.data(), CUDA_R_32F, shape.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
  }

  double time_step_ms(const GemmShape& shape) {
    Slot& s = m_slots[0];
    enqueue(shape);  // warm-up: cuBLAS picks and loads its kernel outside the timing
    s.start.record(stream());
    for (int i = 0; i < k_timed_steps; ++i) enqueue(shape);
    s.stop.record(stream());
    s.stop.synchronize();
    return static_cast<double>(s.stop.elapsed_ms_since(s.start)) / k_timed_steps;
  }

  void calibrate() {
    auto& done = m_context.calibrations;
    const auto key = static_cast<long long>(m_target_ms * 1e3);
    auto it = done.find(key);
    if (it == done.end()) {
      GemmShape start{2048, 1};
      // Scale the nearest calibrated target's shape: usually one more round.
      if (auto near = nearest_calibration(done, key); near != done.end()) {
        start = next_gemm_shape(near->second.shape, near->second.step_ms, m_target_ms);
      }
      it = done.emplace(key,
                        calibrate_gemm_step(m_target_ms, start,
                                            [this](const GemmShape& g) { return time_step_ms(g); }))
               .first;
    }
    m_shape = it->second.shape;
    m_calibrated_ms = it->second.step_ms;
    m_converged = it->second.converged;
  }

  // One GEMM of the chosen n against the CPU: sampled entries of C from the bf16 inputs the GPU
  // read (copied back and decoded bit-exactly), dot products in double.
  void validate() {
    if (auto known = m_context.validated.find(m_shape.n); known != m_context.validated.end()) {
      m_validated = known->second;  // this shape on these operands already checked out
      return;
    }
    const auto n = static_cast<std::size_t>(m_shape.n);
    enqueue(GemmShape{m_shape.n, 1});
    m_context.stream.synchronize();
    const auto rows = suite::sample_indices(n, k_validation_rows, 11);
    const auto cols = suite::sample_indices(n, k_validation_cols, 13);
    std::vector<std::uint16_t> raw(n);
    std::vector<std::vector<double>> a_rows;
    for (std::size_t i : rows) {
      // Row i of column-major A: one element every n.
      GPUBENCH_CUDA_CHECK(cudaMemcpy2D(raw.data(), sizeof(std::uint16_t), m_context.a.data() + i,
                                       n * sizeof(std::uint16_t), sizeof(std::uint16_t), n,
                                       cudaMemcpyDeviceToHost));
      std::vector<double> row(n);
      for (std::size_t p = 0; p < n; ++p) row[p] = suite::decode_bf16(raw[p]);
      a_rows.push_back(std::move(row));
    }
    // bf16 products are exact in fp32; the bf16 GEMM suite's tolerance bounds the accumulation
    // (a wrong element is off by about its magnitude and fails it).
    suite::ValidationReport report(suite::gemm_tolerance(suite::DType::bf16));
    std::vector<double> b_col(n);
    std::vector<float> c_col(n);
    for (std::size_t j : cols) {
      GPUBENCH_CUDA_CHECK(cudaMemcpy(raw.data(), m_context.b.data() + j * n,
                                     n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
      for (std::size_t p = 0; p < n; ++p) b_col[p] = suite::decode_bf16(raw[p]);
      GPUBENCH_CUDA_CHECK(cudaMemcpy(c_col.data(), m_context.c.data() + j * n, n * sizeof(float),
                                     cudaMemcpyDeviceToHost));
      for (std::size_t r = 0; r < rows.size(); ++r) {
        report.add(rows[r], j, c_col[rows[r]],
                   suite::reference_dot(a_rows[r].data(), 1, b_col.data(), 1, n));
      }
    }
    if (!report.passed()) {
      throw infrastructure("the GEMM training step computed a wrong result", report.summary(),
                           "check the GPU (the gemm suite validates the same GEMM)");
    }
    m_validated = report.checked();
    m_context.validated.emplace(m_shape.n, m_validated);
  }

  H2DSink& m_sink;
  double m_target_ms;
  GemmContext& m_context;
  std::array<Slot, k_max_steps_in_flight> m_slots{};
  GemmShape m_shape;
  double m_calibrated_ms = 0;
  bool m_converged = false;
  std::size_t m_validated = 0;
  std::uint64_t m_steps = 0;
  double m_seconds = 0;
};

}  // namespace

std::string gemm_step_unavailable_reason() {
  if (std::string why = cuda_unavailable_reason(); !why.empty()) return why;
  return cuda::unavailable_reason({cuda::Library::cublas});
}

std::string gemm_step_note() {
  const std::string why = gemm_step_unavailable_reason();
  if (!why.empty()) return "GPU-busy train and image step cases: emulated step: " + why;
  return "GPU-busy train and image step cases: GEMM step (" +
         cuda::library_note(cuda::Library::cublas) + ")";
}

void add_gemm_step_context() {
  if (!cuda_unavailable_reason().empty()) return;
  cuda::add_libraries_context({cuda::Library::cublasLt, cuda::Library::cublas});
}

std::unique_ptr<TrainingStep> make_gemm_step(H2DSink& sink, std::chrono::microseconds target) {
  if (const std::string why = gemm_step_unavailable_reason(); !why.empty()) {
    throw infrastructure("the GEMM training step needs a CUDA device and cuBLAS", why);
  }
  if (target.count() <= 0) {
    throw bad_input("GEMM step target of " + std::to_string(target.count()) + " us",
                    "the target step time must be positive");
  }
  GPUBENCH_CUDA_CHECK(cudaSetDevice(staging_device()));
  return std::make_unique<GemmStep>(sink, target, gemm_context(staging_device()));
}

}  // namespace gpubench::dataloader
