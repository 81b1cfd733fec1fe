// Dense peak throughput of a GPU for a data type (CUDA-free), METHODOLOGY rule 9:
//     peak = SM count x clock x dense FLOPs per clock per SM (architecture, data type)
// so a GPU that is in no table still gets a figure. The per-SM rates come from the architecture
// whitepapers; published datasheet peaks for known SKUs (published_peaks()) are the cross-check
// and are unit-tested against the formula.
//
// Rates are for what the GEMM suite runs: fp64 on the FP64 Tensor Cores where they exist (A100,
// H100, B200; 1/64-rate CUDA cores elsewhere), fp32 on the CUDA cores (no Tensor Cores), tf32,
// fp16, bf16 and fp8 on Tensor Cores with FP32 accumulation, int8 with INT32 accumulation (so the
// "TFLOP/s" of int8 are TOP/s). GeForce parts and the L40 (not the L40S) run FP32-accumulate
// Tensor Core math at half rate; the L40 runs INT8 at half rate too, GeForce at the full rate
// (tensor_rate_class()). The gemm suite's fp64 uses CUBLAS_COMPUTE_64F (not _PEDANTIC,
// which keeps DGEMM off the FP64 Tensor Cores), so the Tensor Core FP64 rate is the one that runs.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "suites/common/dtype.hpp"

namespace gpubench::suite {

struct GpuSpec {
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  double clock_mhz = 0.0;  // peak (boost) SM clock, cudaDevAttrClockRate / 1000
  std::string name;        // device name; "GeForce" or "L40" selects half-rate Tensor Core rates
};

struct PeakEstimate {
  std::optional<double> tflops;  // empty: unknown, see note
  // How the figure was made, e.g. "132 SMs x 1980 MHz x 4096 FLOP/clk/SM x 0.924 (sm_90 tensor
  // clock)".
  std::string basis;
  // Empty for a table architecture; otherwise why it is approximate or unknown.
  std::string note;
};

// Never throws. SKUs known by name come first: cut-down parts (H20, H800's FP64, L20, L2) get
// their datasheet figure or `unknown`, never their architecture's rate; H100 NVL / H200 NVL use
// their own boost and Tensor Core clocks. Unknown architectures between sm_80 and sm_110 use the
// nearest older table architecture (with a note); sm_110 and later not in the table, older ones,
// unsupported data types (fp8 before sm_89) and missing SM count or clock give an unknown figure
// with the reason.
PeakEstimate dense_peak(const GpuSpec& gpu, DType dtype);

// Which Tensor Core rates a part of an architecture with GeForce variants (sm_86, sm_89, sm_120)
// has, by its name (datasheets, dense figures):
enum class TensorRateClass {
  // The table's rates: data-centre and workstation parts (A40, L40S, RTX 6000 Ada).
  full,
  // GeForce: FP32-accumulate tf32/fp16/bf16/fp8 at half rate, INT8 (INT32 accumulate) at the full
  // rate (RTX 4090: BF16 165.2, INT8 660.6 TOPS = 128 SMs x 2520 MHz x 2048).
  geforce,
  // The NVIDIA L40 (not the L40S): FP32-accumulate float math and INT8 at half rate (BF16 181.05,
  // FP8 362, INT8 362 TOPS; the datasheet's 724 is with sparsity).
  l40,
};

// The class of a device name: "GeForce" anywhere, "L40" as a whole word (not "L40S"), else full.
TensorRateClass tensor_rate_class(std::string_view device_name);

// Dense FLOPs per clock per SM for a table architecture, 0 when the combination has no rate
// (not in the table, or the data type is not supported there). `rates` halves the Tensor Core
// rates it names only on the architectures that have such parts (sm_86, sm_89, sm_120).
double flops_per_clock_per_sm(int cc_major, int cc_minor, DType dtype, TensorRateClass rates);

// Hopper datasheets state Tensor Core peaks at 1830 MHz (SXM) / 1620 MHz (PCIe), about 92.4% of
// the peak clock the driver reports; the CUDA-core and FP64 figures use the full clock. We apply
// the same factor so % of peak is comparable with the published numbers.
double tensor_clock_factor(int cc_major, int cc_minor, DType dtype);

// Blackwell datasheet peaks are lower than SMs x maximum clock x rate: the Tensor Core figures
// assume a sustained clock (B200 1856 MHz, B300 1716 MHz, derived from the dense BF16 datasheet
// figure). nullopt where the maximum clock applies.
std::optional<double> sustained_tensor_clock_mhz(int cc_major, int cc_minor, DType dtype);

struct PublishedPeak {
  const char* sku;
  int cc_major;
  int cc_minor;
  int sm_count;
  double boost_mhz;
  const char* device_name;  // as the driver names it (decides consumer rates)
  DType dtype;
  double tflops;     // dense, from the vendor datasheet
  double tolerance;  // relative agreement the formula is held to (0.03 for checked SKUs)
};

// Vendor datasheet dense peaks for known SKUs (the cross-check table).
std::span<const PublishedPeak> published_peaks();

}  // namespace gpubench::suite
