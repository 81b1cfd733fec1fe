// The gemm suite's CUDA-free logic: FLOPs, names, shape sweeps per profile, sizes, device
// selection.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "suites/common/device_selection.hpp"
#include "suites/common/validation.hpp"
#include "suites/gemm/gemm_cases.hpp"
#include "util/error.hpp"

namespace gpubench::gemm {
namespace {

using suite::Profile;

TEST(GemmCases, FlopsAreTwoMnk) {
  EXPECT_DOUBLE_EQ(gemm_flops(1, 1, 1), 2.0);
  EXPECT_DOUBLE_EQ(gemm_flops(4096, 4096, 4096), 2.0 * 4096.0 * 4096.0 * 4096.0);
  EXPECT_DOUBLE_EQ(gemm_flops(16384, 8192, 32768),
                   2.0 * 16384.0 * 8192.0 * 32768.0);  // no int overflow
}

TEST(GemmCases, NameCarriesEveryParameter) {
  const GemmCase c{Api::cublaslt, DType::bf16, 4096, 8192, 1024, Layout::tn, Cache::hot, 3};
  EXPECT_EQ(benchmark_name(c),
            "gemm/cublaslt/dtype:bf16/m:4096/n:8192/k:1024/layout:tn/cache:hot/device:3");
  const GemmCase d{Api::cublas, DType::fp8_e4m3, 1, 2, 3, Layout::nn, Cache::cold, 0};
  EXPECT_EQ(benchmark_name(d), "gemm/cublas/dtype:fp8/m:1/n:2/k:3/layout:nn/cache:cold/device:0");
  GemmCase fast{Api::cublaslt, DType::fp8_e4m3, 1, 2, 3, Layout::tn, Cache::hot, 1, Accum::fast};
  EXPECT_EQ(benchmark_name(fast),
            "gemm/cublaslt/dtype:fp8/m:1/n:2/k:3/layout:tn/cache:hot/accum:fast/device:1");
  EXPECT_EQ(compute_label(fast), "compute=32F accum=fast");
  fast.accum = Accum::precise;
  EXPECT_EQ(compute_label(fast), "compute=32F accum=precise");
  const GemmCase fp64{Api::cublaslt, DType::fp64, 8, 8, 8, Layout::tn, Cache::hot, 0};
  EXPECT_EQ(compute_label(fp64), "compute=64F(native,no_emulation)");
}

// The sweep is sized by the GPU's rate: FP64 16384^3 at an L40S's 1.43 TFLOP/s FP64 (1/64 rate)
// takes ~6 s a call, ~11 min with the 16-candidate algorithm search; on an H100 it fits.
TEST(GemmCases, CasesTooSlowForThisGpuAreSkippedWithTheEstimate) {
  const GemmCase big{Api::cublaslt, DType::fp64, 16384, 16384, 16384, Layout::tn, Cache::hot, 0};
  const double l40s_fp64 = 142 * 2520e6 * 4 / 1e12;
  const double call_s = gemm_flops(16384, 16384, 16384) / (l40s_fp64 * 1e12);
  // A call of ~6 s is a long call (search_samples: 3 batches): 16 candidates x (1 warm-up + 3
  // batches) + 1 probe + 1 warm-up batch + 5 timed (standard's min_samples, one call each) = 71.
  EXPECT_NEAR(estimated_case_seconds(big, Profile::standard, l40s_fp64), 71 * call_s,
              1e-6 * call_s);
  const auto why = too_slow_reason(big, Profile::standard, l40s_fp64);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("fp64"), std::string::npos) << *why;
  EXPECT_NE(why->find("60 s"), std::string::npos) << *why;
  EXPECT_FALSE(too_slow_reason(big, Profile::standard, 67.0)) << "H100 FP64 Tensor Cores: ~15 s";
  EXPECT_FALSE(too_slow_reason(big, Profile::standard, std::nullopt))
      << "unknown peak: nothing is estimated";
  // The quick profile's FP64 4096^3 fits even an L4 (58 SMs x 2040 MHz x 4 = 0.47 TFLOP/s).
  GemmCase quick = big;
  quick.m = quick.n = quick.k = 4096;
  EXPECT_FALSE(too_slow_reason(quick, Profile::quick, 58 * 2040e6 * 4 / 1e12));
  // cublasGemmEx has no search: 8192^3 on the L40S is 8 calls, ~6 s.
  GemmCase gemmex = big;
  gemmex.api = Api::cublas;
  gemmex.m = gemmex.n = gemmex.k = 8192;
  EXPECT_FALSE(too_slow_reason(gemmex, Profile::standard, l40s_fp64));
  // Short calls are batched: tiny GEMMs cost batches of ~1 ms in the search; their hot batches
  // (warm-up + min_samples) are k_hot_max_calls calls of 34 ns, far below the 2 ms target, and a
  // 4096^3 call of 0.14 ms is batched to the target (15 calls).
  const GemmCase tiny{Api::cublaslt, DType::bf16, 256, 256, 256, Layout::tn, Cache::hot, 0};
  const double tiny_call_s = gemm_flops(256, 256, 256) / 1e15;
  const suite::SamplingPolicy policy = suite::sampling_policy(Profile::standard);
  const double search_s = 16 * (tiny_call_s + 5 * 1e-3) + tiny_call_s;
  EXPECT_NEAR(estimated_case_seconds(tiny, Profile::standard, 1000.0),
              search_s + (1 + policy.min_samples) * k_hot_max_calls * tiny_call_s, 1e-9);
  GemmCase mid = tiny;
  mid.m = mid.n = mid.k = 4096;
  const double mid_call_s = gemm_flops(4096, 4096, 4096) / 1e15;
  EXPECT_NEAR(
      estimated_case_seconds(mid, Profile::standard, 1000.0),
      16 * (mid_call_s + 5 * 1e-3) + mid_call_s + (1 + policy.min_samples) * 15 * mid_call_s, 1e-9);
  // Cold: a warm-up batch of pairs and the profile's pairs, the calls alone.
  GemmCase cold = tiny;
  cold.cache = Cache::cold;
  EXPECT_NEAR(
      estimated_case_seconds(cold, Profile::standard, 1000.0),
      search_s +
          (k_cold_max_pairs_per_batch + cold_pairs_per_repetition(Profile::standard)) * tiny_call_s,
      1e-9);
}

TEST(GemmCases, Fp64EmulationRequestSkipsFp64) {
  EXPECT_FALSE(fp64_emulation_reason(nullptr));
  EXPECT_FALSE(fp64_emulation_reason("0"));
  EXPECT_FALSE(fp64_emulation_reason(""));
  const auto why = fp64_emulation_reason("1");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("CUBLAS_EMULATE_DOUBLE_PRECISION=1"), std::string::npos) << *why;
}

TEST(GemmCases, FastAccumulationFp8ToleranceGrowsWithK) {
  GemmCase fp8{Api::cublaslt, DType::fp8_e4m3, 4096, 4096,       4096,
               Layout::tn,    Cache::hot,      0,    Accum::fast};
  EXPECT_DOUBLE_EQ(validation_tolerance(fp8), suite::gemm_tolerance(DType::fp8_e4m3));
  fp8.k = 32768;
  EXPECT_GT(validation_tolerance(fp8), 0.1);
  fp8.accum = Accum::precise;
  EXPECT_DOUBLE_EQ(validation_tolerance(fp8), suite::gemm_tolerance(DType::fp8_e4m3));
  const GemmCase bf16{Api::cublaslt, DType::bf16, 8, 8, 32768, Layout::tn, Cache::hot, 0};
  EXPECT_DOUBLE_EQ(validation_tolerance(bf16), suite::gemm_tolerance(DType::bf16));
}

// Parses "<suite>/<case>/<k>:<v>/..." the way the store does.
std::map<std::string, std::string> parse_name(const std::string& name, std::string& suite,
                                              std::string& kase) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = name.find('/', start);
    parts.push_back(name.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::map<std::string, std::string> params;
  if (parts.size() < 3) return params;
  suite = parts[0];
  kase = parts[1];
  for (std::size_t i = 2; i < parts.size(); ++i) {
    const std::size_t colon = parts[i].find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == parts[i].size()) return {};
    params[parts[i].substr(0, colon)] = parts[i].substr(colon + 1);
  }
  return params;
}

TEST(GemmCases, EveryProfileGivesUniqueParseableSupportedNames) {
  for (Profile p : {Profile::quick, Profile::standard, Profile::full}) {
    const auto cases = gemm_cases(p, {0, 1});
    ASSERT_FALSE(cases.empty());
    std::set<std::string> names;
    for (const auto& c : cases) {
      const std::string name = benchmark_name(c);
      EXPECT_TRUE(names.insert(name).second) << "duplicate " << name;
      std::string suite, kase;
      const auto params = parse_name(name, suite, kase);
      EXPECT_EQ(suite, "gemm") << name;
      EXPECT_TRUE(kase == "cublaslt" || kase == "cublas") << name;
      for (const char* key : {"dtype", "m", "n", "k", "layout", "cache", "device"}) {
        EXPECT_TRUE(params.count(key)) << name << " lacks " << key;
      }
      EXPECT_EQ(params.at("m"), std::to_string(c.m));
      EXPECT_TRUE(suite::parse_dtype(params.at("dtype")).has_value()) << name;
      EXPECT_TRUE(case_supported(c.api, c.dtype, c.layout)) << name;
      EXPECT_GT(c.m, 0);
      EXPECT_EQ(c.k % 16, 0) << "Tensor Core kernels want 16-element alignment: " << name;
    }
  }
}

std::set<std::int64_t> square_sizes(const std::vector<GemmCase>& cases, DType dtype) {
  std::set<std::int64_t> out;
  for (const auto& c : cases) {
    if (c.api == Api::cublaslt && c.dtype == dtype && c.m == c.n && c.n == c.k) out.insert(c.m);
  }
  return out;
}

TEST(GemmCases, ProfilesSweepTheDocumentedSizes) {
  const auto quick = gemm_cases(Profile::quick, {0});
  EXPECT_EQ(square_sizes(quick, DType::bf16), (std::set<std::int64_t>{1024, 4096}));
  const auto standard = gemm_cases(Profile::standard, {0});
  EXPECT_EQ(square_sizes(standard, DType::fp64),
            (std::set<std::int64_t>{1024, 2048, 4096, 8192, 16384}));
  const auto full = gemm_cases(Profile::full, {0});
  EXPECT_GT(full.size(), standard.size());
  EXPECT_GT(standard.size(), quick.size());
  for (const auto* cases : {&quick, &standard, &full}) {
    std::set<DType> dtypes;
    bool has_gemmex = false, has_cold = false, has_transformer = false;
    for (const auto& c : *cases) {
      dtypes.insert(c.dtype);
      has_gemmex = has_gemmex || c.api == Api::cublas;
      has_cold = has_cold || c.cache == Cache::cold;
      has_transformer = has_transformer || c.m == 4 * c.k;  // MLP up projection
    }
    EXPECT_EQ(dtypes.size(), 7u);
    EXPECT_TRUE(has_gemmex);
    EXPECT_TRUE(has_cold);
    EXPECT_TRUE(has_transformer);
  }
}

TEST(GemmCases, EachCaseRunsOncePerDevice) {
  const auto one = gemm_cases(Profile::quick, {0});
  const auto eight = gemm_cases(Profile::quick, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(eight.size(), one.size() * 8);
  std::set<int> devices;
  for (const auto& c : eight) devices.insert(c.device);
  EXPECT_EQ(devices.size(), 8u);
}

// FP8 is measured with fast and with precise accumulation, every FP8 shape both ways; no other
// data type carries an accum parameter.
TEST(GemmCases, Fp8RunsBothAccumulationModes) {
  for (Profile p : {Profile::quick, Profile::standard, Profile::full}) {
    std::map<std::string, std::set<Accum>> modes;
    for (const auto& c : gemm_cases(p, {0})) {
      if (c.dtype != DType::fp8_e4m3) {
        EXPECT_EQ(c.accum, Accum::none) << benchmark_name(c);
        continue;
      }
      GemmCase shape = c;
      shape.accum = Accum::none;
      modes[benchmark_name(shape)].insert(c.accum);
    }
    ASSERT_FALSE(modes.empty());
    for (const auto& [shape, m] : modes) {
      EXPECT_EQ(m, (std::set<Accum>{Accum::fast, Accum::precise})) << shape;
    }
  }
}

TEST(GemmCases, Fp8AndInt8AreTnOnlyAndNotOnGemmEx) {
  EXPECT_FALSE(case_supported(Api::cublaslt, DType::fp8_e4m3, Layout::nn));
  EXPECT_TRUE(case_supported(Api::cublaslt, DType::fp8_e4m3, Layout::tn));
  EXPECT_FALSE(case_supported(Api::cublaslt, DType::int8, Layout::nn));
  EXPECT_FALSE(case_supported(Api::cublas, DType::fp8_e4m3, Layout::tn));
  EXPECT_TRUE(case_supported(Api::cublas, DType::bf16, Layout::nn));
}

TEST(GemmCases, SizesAndWorkspace) {
  const GemmCase bf16{Api::cublaslt, DType::bf16, 4096, 4096, 4096, Layout::tn, Cache::hot, 0};
  EXPECT_EQ(operand_bytes(bf16), 3u * 4096 * 4096 * 2);
  const GemmCase i8{Api::cublaslt, DType::int8, 1024, 2048, 512, Layout::tn, Cache::hot, 0};
  EXPECT_EQ(operand_bytes(i8), (1024u * 512 + 512u * 2048) * 1 + 1024u * 2048 * 4);
  const GemmCase fp8{Api::cublaslt, DType::fp8_e4m3, 64, 64, 64, Layout::tn, Cache::hot, 0};
  EXPECT_EQ(operand_bytes(fp8), 2u * 64 * 64 + 64u * 64 * 2);  // bf16 output
  EXPECT_EQ(workspace_bytes(8), 4u << 20);
  EXPECT_EQ(workspace_bytes(9), 32u << 20);
  EXPECT_EQ(workspace_bytes(12), 32u << 20);
  EXPECT_EQ(output_kind(DType::tf32), suite::ElementKind::f32);
  EXPECT_EQ(output_kind(DType::int8), suite::ElementKind::i32);
}

TEST(GemmCases, CallsPerBatch) {
  EXPECT_EQ(calls_per_batch(1.0, 5.0, 200), 5);
  EXPECT_EQ(calls_per_batch(0.001, 5.0, 200), 200);
  EXPECT_EQ(calls_per_batch(100.0, 5.0, 200), 1);
  EXPECT_EQ(calls_per_batch(0.0, 5.0, 200), 1);
}

// --device / GPUBENCH_DEVICE parsing.
struct Argv {
  explicit Argv(std::vector<std::string> args) : storage(std::move(args)) {
    for (auto& s : storage) pointers.push_back(s.data());
    pointers.push_back(nullptr);
    argc = static_cast<int>(storage.size());
  }
  std::vector<std::string> storage;
  std::vector<char*> pointers;
  int argc;
};

TEST(DeviceSelection, FlagIsRemovedAndWinsOverEnvironment) {
  Argv a({"gpubench-gemm", "--benchmark_filter=x", "--device", "2", "--other"});
  const auto req = suite::take_device_request(a.argc, a.pointers.data(), "1");
  ASSERT_EQ(a.argc, 3);
  EXPECT_STREQ(a.pointers[1], "--benchmark_filter=x");
  EXPECT_STREQ(a.pointers[2], "--other");
  ASSERT_TRUE(req.index);
  EXPECT_EQ(*req.index, 2);
  EXPECT_EQ(req.source, "--device");

  Argv b({"gpubench-gemm", "--device=all"});
  EXPECT_FALSE(suite::take_device_request(b.argc, b.pointers.data(), "3").index);
  EXPECT_EQ(b.argc, 1);

  Argv c({"gpubench-gemm"});
  const auto env = suite::take_device_request(c.argc, c.pointers.data(), "1");
  ASSERT_TRUE(env.index);
  EXPECT_EQ(*env.index, 1);
  EXPECT_EQ(env.source, "GPUBENCH_DEVICE");
}

TEST(DeviceSelection, BadValuesAreBadInput) {
  for (const char* bad : {"x", "-1", "1.5", ""}) {
    Argv a({"gpubench-gemm", std::string("--device=") + bad});
    try {
      suite::take_device_request(a.argc, a.pointers.data(), nullptr);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const gpubench::Error& e) {
      EXPECT_EQ(e.code(), ExitCode::bad_input);
    }
  }
  Argv last({"gpubench-gemm", "--device"});
  EXPECT_THROW(suite::take_device_request(last.argc, last.pointers.data(), nullptr),
               gpubench::Error);
}

TEST(DeviceSelection, ResolveListsAllOrChecksRange) {
  EXPECT_EQ(suite::resolve_devices({}, 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(suite::resolve_devices({2, "--device"}, 4), (std::vector<int>{2}));
  try {
    suite::resolve_devices({8, "--device"}, 2);
    ADD_FAILURE() << "out of range accepted";
  } catch (const gpubench::Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(e.why().find("2 CUDA devices"), std::string::npos) << e.why();
  }
  // No device at all: the cases still appear (each will be skipped with the reason).
  EXPECT_EQ(suite::resolve_devices({}, 0), (std::vector<int>{0}));
}

}  // namespace
}  // namespace gpubench::gemm

namespace gpubench::gemm {
namespace {

// The fastest median wins when it is clearly fastest; a near-tie goes to the heuristic's rank.
TEST(AlgorithmChoice, ClearWinnerOrBestRankedOfTheTie) {
  std::size_t tied = 0;
  const std::vector<CandidateTimes> clear = {
      {0, {1.00, 1.01, 0.99}}, {1, {0.90, 0.91, 0.89}}, {2, {1.20, 1.21, 1.19}}};
  EXPECT_EQ(choose_candidate(clear, 0.02, &tied), 1u);
  EXPECT_EQ(tied, 1u);
  // Rank 3 is 1% faster than rank 1: a tie, which rank 1 takes, wherever it stands in the list.
  const std::vector<CandidateTimes> near = {
      {3, {0.891, 0.890, 0.892}}, {1, {0.900, 0.899, 0.901}}, {0, {1.0, 1.0, 1.0}}};
  EXPECT_EQ(choose_candidate(near, 0.02, &tied), 1u);
  EXPECT_EQ(tied, 2u);
  // A candidate without times (or with 0) is never chosen.
  const std::vector<CandidateTimes> empty_first = {{0, {}}, {1, {0.5, 0.5}}};
  EXPECT_EQ(choose_candidate(empty_first), 1u);
}

// What the rule is for: two kernels 0.5% apart, timed with 0.5% noise in 200 seeded "runs". Taking
// the fastest median flips between them from run to run; the tie rule keeps the same kernel.
TEST(AlgorithmChoice, NearEqualKernelsDoNotFlipBetweenRuns) {
  std::mt19937 rng(5);
  std::normal_distribution<double> noise(0.0, 0.005);
  std::set<int> chosen_by_rule, chosen_by_fastest;
  for (int run = 0; run < 200; ++run) {
    std::vector<CandidateTimes> c = {{0, {}}, {1, {}}};
    for (int s = 0; s < k_search_samples_per_candidate; ++s) {
      c[0].per_call_ms.push_back(1.000 * (1 + noise(rng)));
      c[1].per_call_ms.push_back(0.995 * (1 + noise(rng)));
    }
    chosen_by_rule.insert(c[choose_candidate(c)].rank);
    chosen_by_fastest.insert(c[choose_candidate(c, 0.0)].rank);
  }
  EXPECT_EQ(chosen_by_rule, std::set<int>{0});
  EXPECT_EQ(chosen_by_fastest.size(), 2u);  // without the tie, noise picks the kernel
}

// Long calls are searched in fewer batches (each one call of >= 10 ms): the standard run's large
// FP32/FP64 shapes spent most of the suite's time in the search. The plan and the runner share it.
TEST(AlgorithmChoice, LongCallsAreSearchedInFewerBatches) {
  EXPECT_EQ(search_samples(0.02), k_search_samples_per_candidate);
  EXPECT_EQ(search_samples(9.99), k_search_samples_per_candidate);
  EXPECT_EQ(search_samples(10.0), k_search_samples_long_call);
  EXPECT_EQ(search_samples(250.0), k_search_samples_long_call);
  EXPECT_LT(k_search_samples_long_call, k_search_samples_per_candidate);
  EXPECT_GE(k_search_samples_long_call, 3);  // a median of at least three
}

}  // namespace
}  // namespace gpubench::gemm
