// Element types of the GPU suites (CUDA-free). DType is the type a benchmark is named after; the
// element kinds below are what is stored in memory (tf32 is stored as fp32, fp8 GEMMs write bf16).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace gpubench::suite {

enum class DType { fp64, fp32, tf32, fp16, bf16, fp8_e4m3, int8 };

inline constexpr DType k_all_dtypes[] = {DType::fp64, DType::fp32,     DType::tf32, DType::fp16,
                                         DType::bf16, DType::fp8_e4m3, DType::int8};

// "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8" (the value in benchmark names).
const char* to_string(DType dtype);
std::optional<DType> parse_dtype(std::string_view text);

// How one element is laid out in memory.
enum class ElementKind { f64, f32, f16, bf16, fp8_e4m3, i8, i32 };

std::size_t element_bytes(ElementKind kind);
const char* to_string(ElementKind kind);

}  // namespace gpubench::suite
