#include "suites/common/peak.hpp"

#include <array>
#include <cstdio>
#include <optional>

namespace gpubench::suite {

namespace {

// Dense FLOPs per clock per SM, columns fp64 fp32 tf32 fp16 bf16 fp8 int8 (0: not supported or
// not known). Tensor Core columns are FP32-accumulate rates of data-centre parts.
struct ArchRates {
  int cc_major;
  int cc_minor;
  const char* name;
  std::array<double, 7> rates;
};

// Sources: NVIDIA A100, GA102, Ada, H100 and Blackwell whitepapers / datasheets.
constexpr ArchRates k_arch_rates[] = {
    // A100: FP64 Tensor Core 19.5 TF = 108 x 1410 MHz x 128 (the gemm suite's CUBLAS_COMPUTE_64F
    // runs DGEMM on the FP64 Tensor Cores; the CUDA-core FP64 rate is half of it).
    {8, 0, "Ampere GA100", {128, 128, 1024, 2048, 2048, 0, 4096}},
    // GA10x (A10, A40, RTX 30): 128 FP32 lanes, FP64 at 1/64 of FP32.
    {8, 6, "Ampere GA10x", {4, 256, 512, 1024, 1024, 0, 2048}},
    // Orin: GA10x CUDA cores with GA100-rate Tensor Cores (not cross-checked against a datasheet).
    {8, 7, "Ampere GA10B (Orin)", {4, 256, 1024, 2048, 2048, 0, 4096}},
    // Ada (L4, L40S, RTX 40): FP8 Tensor Cores.
    {8, 9, "Ada", {4, 256, 512, 1024, 1024, 2048, 2048}},
    // Hopper (H100, H200, H20, GH200).
    {9, 0, "Hopper", {256, 256, 2048, 4096, 4096, 8192, 8192}},
    // Blackwell data centre (B200, GB200): twice Hopper's Tensor Core rate per SM.
    {10, 0, "Blackwell B200", {128, 256, 4096, 8192, 8192, 16384, 16384}},
    // Blackwell Ultra (B300, GB300): FP64 and INT8 cut down; their rates are not published per SM.
    {10, 3, "Blackwell Ultra B300", {0, 256, 4096, 8192, 8192, 16384, 0}},
    // Blackwell consumer/workstation (RTX 50, RTX PRO 6000): Ada-like rates.
    {12, 0, "Blackwell GB20x", {4, 256, 512, 1024, 1024, 2048, 2048}},
};

int column(DType dtype) {
  switch (dtype) {
    case DType::fp64:
      return 0;
    case DType::fp32:
      return 1;
    case DType::tf32:
      return 2;
    case DType::fp16:
      return 3;
    case DType::bf16:
      return 4;
    case DType::fp8_e4m3:
      return 5;
    case DType::int8:
      return 6;
  }
  return 1;
}

bool is_tensor_float(DType dtype) {
  return dtype == DType::tf32 || dtype == DType::fp16 || dtype == DType::bf16 ||
         dtype == DType::fp8_e4m3;
}

const ArchRates* find_exact(int major, int minor) {
  for (const auto& a : k_arch_rates) {
    if (a.cc_major == major && a.cc_minor == minor) return &a;
  }
  return nullptr;
}

// The newest table architecture not newer than (major, minor); null when older than all.
const ArchRates* find_nearest_older(int major, int minor) {
  const ArchRates* best = nullptr;
  for (const auto& a : k_arch_rates) {
    const bool not_newer = a.cc_major < major || (a.cc_major == major && a.cc_minor <= minor);
    if (not_newer) best = &a;  // the table is sorted by compute capability
  }
  return best;
}

std::string sm_name(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

std::string format_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace

namespace {

// SKUs identified by name whose rates are not the architecture's (cut down by firmware, or rated
// at their own clocks). Rates per column (fp64 fp32 tf32 fp16 bf16 fp8 int8): > 0 the dense
// datasheet figure in TFLOP/s, 0 unknown, < 0 use the formula. boost/tensor clocks: MHz the
// datasheet figures assume (0: the clock the driver reports, and the architecture's factor).
struct NamedSku {
  const char* token;         // a whole word of the device name ("H20" never matches "H200")
  const char* second_token;  // and this word too, when not null ("H100" + "NVL")
  const char* sku;
  std::array<double, 7> tflops;
  double boost_mhz;
  double tensor_mhz;
  const char* source;
};

constexpr NamedSku k_named_skus[] = {
    // H20 (Hopper, 78 SMs) is limited far below what 78 SMs of sm_90 would do.
    {"H20",
     nullptr,
     "H20",
     {1, 44, 74, 148, 148, 296, 296},
     0,
     0,
     "NVIDIA H20 specifications (dense): FP64 1, FP32 44, TF32 74, FP16/BF16 148, FP8/INT8 296"},
    // H800: H100 with NVLink and FP64 cut; its FP64 rate is not verified here.
    {"H800",
     nullptr,
     "H800",
     {0, -1, -1, -1, -1, -1, -1},
     0,
     0,
     "H800 FP64 is cut down; no verified figure"},
    // China-market Ada parts: cut down, per-SM rates not published.
    {"L20", nullptr, "L20", {0, 0, 0, 0, 0, 0, 0}, 0, 0, "cut-down Ada SKU, rates not published"},
    {"L2", nullptr, "L2", {0, 0, 0, 0, 0, 0, 0}, 0, 0, "cut-down Ada SKU, rates not published"},
    // H100 NVL / H200 NVL: 1785 MHz boost (FP32 60 TFLOP/s = 132 x 256 x 1776 MHz); Tensor Core
    // figures (dense BF16 835.5 = 1671 sparse / 2) assume 1545 MHz.
    {"H100",
     "NVL",
     "H100 NVL",
     {-1, -1, -1, -1, -1, -1, -1},
     1785,
     1545,
     "NVIDIA H100 NVL datasheet: FP32 60, BF16 1671 and FP8 3341 TFLOP/s with sparsity"},
    {"H200",
     "NVL",
     "H200 NVL",
     {-1, -1, -1, -1, -1, -1, -1},
     1785,
     1545,
     "NVIDIA H200 NVL datasheet: FP32 60, BF16 1671 and FP8 3341 TFLOP/s with sparsity"},
};

bool has_word(std::string_view name, std::string_view word) {
  std::size_t pos = 0;
  while ((pos = name.find(word, pos)) != std::string_view::npos) {
    const bool start = pos == 0 || name[pos - 1] == ' ';
    const std::size_t end = pos + word.size();
    const bool stop = end == name.size() || name[end] == ' ' || name[end] == '-';
    if (start && stop) return true;
    pos = end;
  }
  return false;
}

const NamedSku* find_named_sku(std::string_view name) {
  for (const auto& s : k_named_skus) {
    if (has_word(name, s.token) && (!s.second_token || has_word(name, s.second_token))) return &s;
  }
  return nullptr;
}

}  // namespace

TensorRateClass tensor_rate_class(std::string_view device_name) {
  if (device_name.find("GeForce") != std::string_view::npos) return TensorRateClass::geforce;
  // NVIDIA L40 datasheet, dense (without sparsity): FP16/BF16 Tensor with FP32 accumulate
  // 181.05 TFLOP/s, TF32 90.5, FP8 362, INT8 362 TOPS = 142 SMs x 2490 MHz x half the Ada rate
  // (its "724" INT8 TOPS carry the sparsity asterisk). The L40S datasheet states the full rate
  // (BF16 362.05, INT8 733 dense), so only the whole word "L40" is this class.
  if (has_word(device_name, "L40")) return TensorRateClass::l40;
  return TensorRateClass::full;
}

double tensor_clock_factor(int cc_major, int cc_minor, DType dtype) {
  if (cc_major == 9 && cc_minor == 0 && (is_tensor_float(dtype) || dtype == DType::int8))
    return 1830.0 / 1980.0;
  return 1.0;
}

std::optional<double> sustained_tensor_clock_mhz(int cc_major, int cc_minor, DType dtype) {
  if (!(is_tensor_float(dtype) || dtype == DType::int8) || cc_major != 10) return std::nullopt;
  // B200: datasheet dense BF16 2.25 PFLOP/s (HGX B200: 36 PFLOP/s sparse over 8 GPUs) over
  // 148 SMs x 8192 FLOP/clk = 1856 MHz, below the 1965 MHz maximum the driver reports.
  if (cc_minor == 0) return 1856.0;
  // B300: datasheet dense BF16 2.25 PFLOP/s (HGX B300: 36 PFLOP/s sparse over 8 GPUs) over
  // 160 SMs x 8192 FLOP/clk = 1716 MHz.
  if (cc_minor == 3) return 1716.0;
  return std::nullopt;
}

double flops_per_clock_per_sm(int cc_major, int cc_minor, DType dtype, TensorRateClass rates) {
  const ArchRates* arch = find_exact(cc_major, cc_minor);
  if (!arch) return 0.0;
  double rate = arch->rates[static_cast<std::size_t>(column(dtype))];
  // GeForce Tensor Cores accumulate in FP32 at half rate (FP16-accumulate and INT8 are full rate);
  // the L40 also halves INT8. (GeForce exists for sm_86, sm_89 and sm_120 only.)
  const bool consumer_arch = (cc_major == 8 && (cc_minor == 6 || cc_minor == 9)) || cc_major == 12;
  const bool halves_float = rates != TensorRateClass::full && is_tensor_float(dtype);
  const bool halves_int8 = rates == TensorRateClass::l40 && dtype == DType::int8;
  if (consumer_arch && (halves_float || halves_int8)) rate /= 2.0;
  return rate;
}

PeakEstimate dense_peak(const GpuSpec& gpu, DType dtype) {
  PeakEstimate out;
  const NamedSku* named = find_named_sku(gpu.name);
  if (named) {
    const double figure = named->tflops[static_cast<std::size_t>(column(dtype))];
    if (figure > 0) {
      out.tflops = figure;
      out.basis = std::string("datasheet figure of the ") + named->sku + " (" + named->source + ")";
      return out;
    }
    if (figure == 0) {
      out.note = std::string("unknown: the ") + named->sku + " is a cut-down SKU (" +
                 named->source + "); the " + to_string(dtype) +
                 " rate of its architecture does not apply";
      return out;
    }
  }
  if (gpu.sm_count <= 0 || gpu.clock_mhz <= 0.0) {
    out.note = "unknown: the SM count or clock of this GPU is not known";
    return out;
  }
  const ArchRates* arch = find_exact(gpu.cc_major, gpu.cc_minor);
  int major = gpu.cc_major;
  int minor = gpu.cc_minor;
  if (!arch && gpu.cc_major >= 11) {
    // sm_110 (Thor), sm_121 (GB10) and later differ from every table architecture in ways the
    // table cannot guess (unified memory parts, other Tensor Core generations): no stand-in.
    out.note = "unknown: " + sm_name(gpu.cc_major, gpu.cc_minor) +
               " is not in the peak table and its per-SM rates are not published; no figure of "
               "another architecture is substituted";
    return out;
  }
  if (!arch) {
    arch = find_nearest_older(gpu.cc_major, gpu.cc_minor);
    if (!arch) {
      out.note = "unknown: " + sm_name(gpu.cc_major, gpu.cc_minor) +
                 " is older than every architecture in the peak table (sm_80 and newer)";
      return out;
    }
    major = arch->cc_major;
    minor = arch->cc_minor;
    out.note = sm_name(gpu.cc_major, gpu.cc_minor) +
               " is not in the peak table; computed with the rates of " + sm_name(major, minor) +
               " (" + arch->name + "), the nearest older architecture";
  }
  const double rate = flops_per_clock_per_sm(major, minor, dtype, tensor_rate_class(gpu.name));
  if (rate <= 0.0) {
    const std::string why = dtype == DType::fp8_e4m3 && major < 9 && !(major == 8 && minor == 9)
                                ? "FP8 needs sm_89 or newer"
                                : std::string("no published per-SM rate for ") + to_string(dtype) +
                                      " on " + sm_name(major, minor);
    out.note = "unknown: " + why + (out.note.empty() ? "" : "; " + out.note);
    return out;
  }
  double clock = gpu.clock_mhz;
  double factor = tensor_clock_factor(major, minor, dtype);
  std::string clock_basis;
  if (named && named->boost_mhz > 0) {
    clock = named->boost_mhz;
    clock_basis = std::string(" (") + named->sku + " boost clock)";
    if (named->tensor_mhz > 0 && factor != 1.0) {
      factor = 1.0;
      clock = named->tensor_mhz;
      clock_basis = std::string(" (") + named->sku + " Tensor Core clock of its datasheet)";
    }
  }
  if (const auto sustained = sustained_tensor_clock_mhz(major, minor, dtype);
      sustained && *sustained < clock) {
    clock = *sustained;
    clock_basis = " (sustained Tensor Core clock of the " + sm_name(major, minor) +
                  " datasheet peak, below the maximum clock)";
  }
  out.tflops = gpu.sm_count * clock * 1e6 * rate * factor / 1e12;
  out.basis = std::to_string(gpu.sm_count) + " SMs x " + format_number(clock) + " MHz" +
              clock_basis + " x " + format_number(rate) + " FLOP/clk/SM";
  if (factor != 1.0)
    out.basis +=
        " x " + format_number(factor) + " (" + sm_name(major, minor) + " Tensor Core clock)";
  return out;
}

namespace {
constexpr double k_checked = 0.03;
// Blackwell datasheets state peaks per system power level and the boost clock varies with it;
// agreement is looser until a datasheet states the clock its figures assume.
constexpr double k_loose = 0.10;

constexpr PublishedPeak k_published[] = {
    {"A100 SXM4", 8, 0, 108, 1410, "NVIDIA A100-SXM4-80GB", DType::fp64, 19.5, k_checked},
    {"A100 SXM4", 8, 0, 108, 1410, "NVIDIA A100-SXM4-80GB", DType::fp32, 19.5, k_checked},
    {"A100 SXM4", 8, 0, 108, 1410, "NVIDIA A100-SXM4-80GB", DType::tf32, 156, k_checked},
    {"A100 SXM4", 8, 0, 108, 1410, "NVIDIA A100-SXM4-80GB", DType::fp16, 312, k_checked},
    {"A100 SXM4", 8, 0, 108, 1410, "NVIDIA A100-SXM4-80GB", DType::bf16, 312, k_checked},
    {"A100 SXM4", 8, 0, 108, 1410, "NVIDIA A100-SXM4-80GB", DType::int8, 624, k_checked},
    {"A10", 8, 6, 72, 1695, "NVIDIA A10", DType::fp32, 31.2, k_checked},
    {"A10", 8, 6, 72, 1695, "NVIDIA A10", DType::tf32, 62.5, k_checked},
    {"A10", 8, 6, 72, 1695, "NVIDIA A10", DType::bf16, 125, k_checked},
    {"A10", 8, 6, 72, 1695, "NVIDIA A10", DType::int8, 250, k_checked},
    {"A40", 8, 6, 84, 1740, "NVIDIA A40", DType::fp32, 37.4, k_checked},
    {"A40", 8, 6, 84, 1740, "NVIDIA A40", DType::fp16, 149.7, k_checked},
    {"RTX 3090", 8, 6, 82, 1695, "NVIDIA GeForce RTX 3090", DType::fp32, 35.6, k_checked},
    {"RTX 3090", 8, 6, 82, 1695, "NVIDIA GeForce RTX 3090", DType::fp16, 71, k_checked},
    {"L4", 8, 9, 58, 2040, "NVIDIA L4", DType::fp32, 30.3, k_checked},
    {"L4", 8, 9, 58, 2040, "NVIDIA L4", DType::fp8_e4m3, 242, k_checked},
    {"L40", 8, 9, 142, 2490, "NVIDIA L40", DType::fp32, 90.5, k_checked},
    {"L40", 8, 9, 142, 2490, "NVIDIA L40", DType::tf32, 90.5, k_checked},
    {"L40", 8, 9, 142, 2490, "NVIDIA L40", DType::bf16, 181.05, k_checked},
    {"L40", 8, 9, 142, 2490, "NVIDIA L40", DType::fp8_e4m3, 362.1, k_checked},
    {"L40", 8, 9, 142, 2490, "NVIDIA L40", DType::int8, 362.1, k_checked},
    {"L40S", 8, 9, 142, 2520, "NVIDIA L40S", DType::fp32, 91.6, k_checked},
    {"L40S", 8, 9, 142, 2520, "NVIDIA L40S", DType::tf32, 183, k_checked},
    {"L40S", 8, 9, 142, 2520, "NVIDIA L40S", DType::bf16, 362.05, k_checked},
    {"L40S", 8, 9, 142, 2520, "NVIDIA L40S", DType::fp8_e4m3, 733, k_checked},
    {"L40S", 8, 9, 142, 2520, "NVIDIA L40S", DType::int8, 733, k_checked},
    {"RTX 4090", 8, 9, 128, 2520, "NVIDIA GeForce RTX 4090", DType::fp16, 165.2, k_checked},
    {"RTX 4090", 8, 9, 128, 2520, "NVIDIA GeForce RTX 4090", DType::fp8_e4m3, 330.3, k_checked},
    {"RTX 4090", 8, 9, 128, 2520, "NVIDIA GeForce RTX 4090", DType::int8, 660.6, k_checked},
    {"H100 SXM", 9, 0, 132, 1980, "NVIDIA H100 80GB HBM3", DType::fp64, 67, k_checked},
    {"H100 SXM", 9, 0, 132, 1980, "NVIDIA H100 80GB HBM3", DType::fp32, 67, k_checked},
    {"H100 SXM", 9, 0, 132, 1980, "NVIDIA H100 80GB HBM3", DType::tf32, 494.5, k_checked},
    {"H100 SXM", 9, 0, 132, 1980, "NVIDIA H100 80GB HBM3", DType::fp16, 989.4, k_checked},
    {"H100 SXM", 9, 0, 132, 1980, "NVIDIA H100 80GB HBM3", DType::bf16, 989.4, k_checked},
    {"H100 SXM", 9, 0, 132, 1980, "NVIDIA H100 80GB HBM3", DType::fp8_e4m3, 1979, k_checked},
    {"H100 SXM", 9, 0, 132, 1980, "NVIDIA H100 80GB HBM3", DType::int8, 1979, k_checked},
    {"H100 PCIe", 9, 0, 114, 1755, "NVIDIA H100 PCIe", DType::fp64, 51, k_checked},
    {"H100 PCIe", 9, 0, 114, 1755, "NVIDIA H100 PCIe", DType::fp32, 51, k_checked},
    {"H100 PCIe", 9, 0, 114, 1755, "NVIDIA H100 PCIe", DType::bf16, 756, k_checked},
    {"H100 PCIe", 9, 0, 114, 1755, "NVIDIA H100 PCIe", DType::fp8_e4m3, 1513, k_checked},
    {"H200", 9, 0, 132, 1980, "NVIDIA H200", DType::fp64, 67, k_checked},
    {"H200", 9, 0, 132, 1980, "NVIDIA H200", DType::bf16, 989.4, k_checked},
    {"H200", 9, 0, 132, 1980, "NVIDIA H200", DType::fp8_e4m3, 1979, k_checked},
    {"H100 NVL", 9, 0, 132, 1785, "NVIDIA H100 NVL", DType::fp32, 60, k_checked},
    {"H100 NVL", 9, 0, 132, 1785, "NVIDIA H100 NVL", DType::bf16, 835.5, k_checked},
    {"H100 NVL", 9, 0, 132, 1785, "NVIDIA H100 NVL", DType::fp8_e4m3, 1670.5, k_checked},
    {"H200 NVL", 9, 0, 132, 1785, "NVIDIA H200 NVL", DType::bf16, 835.5, k_checked},
    {"H200 NVL", 9, 0, 132, 1785, "NVIDIA H200 NVL", DType::fp8_e4m3, 1670.5, k_checked},
    {"H20", 9, 0, 78, 1980, "NVIDIA H20", DType::bf16, 148, k_checked},
    {"H20", 9, 0, 78, 1980, "NVIDIA H20", DType::fp8_e4m3, 296, k_checked},
    {"H20", 9, 0, 78, 1980, "NVIDIA H20", DType::fp32, 44, k_checked},
    {"B200", 10, 0, 148, 1965, "NVIDIA B200", DType::bf16, 2250, k_checked},
    {"B200", 10, 0, 148, 1965, "NVIDIA B200", DType::fp8_e4m3, 4500, k_checked},
    {"B300", 10, 3, 160, 2032, "NVIDIA B300 SXM6 AC", DType::bf16, 2250, k_loose},
    {"RTX 5090", 12, 0, 170, 2407, "NVIDIA GeForce RTX 5090", DType::fp32, 104.8, k_checked},
    {"RTX PRO 6000 Blackwell", 12, 0, 188, 2617,
     "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", DType::fp32, 126, k_checked},
};
}  // namespace

std::span<const PublishedPeak> published_peaks() {
  return k_published;
}

}  // namespace gpubench::suite
