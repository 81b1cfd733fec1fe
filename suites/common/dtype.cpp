#include "suites/common/dtype.hpp"

namespace gpubench::suite {

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::fp64:
      return "fp64";
    case DType::fp32:
      return "fp32";
    case DType::tf32:
      return "tf32";
    case DType::fp16:
      return "fp16";
    case DType::bf16:
      return "bf16";
    case DType::fp8_e4m3:
      return "fp8";
    case DType::int8:
      return "int8";
  }
  return "unknown";
}

std::optional<DType> parse_dtype(std::string_view text) {
  for (DType d : k_all_dtypes) {
    if (text == to_string(d)) return d;
  }
  if (text == "fp8_e4m3" || text == "e4m3") return DType::fp8_e4m3;
  return std::nullopt;
}

std::size_t element_bytes(ElementKind kind) {
  switch (kind) {
    case ElementKind::f64:
      return 8;
    case ElementKind::f32:
    case ElementKind::i32:
      return 4;
    case ElementKind::f16:
    case ElementKind::bf16:
      return 2;
    case ElementKind::fp8_e4m3:
    case ElementKind::i8:
      return 1;
  }
  return 0;
}

const char* to_string(ElementKind kind) {
  switch (kind) {
    case ElementKind::f64:
      return "f64";
    case ElementKind::f32:
      return "f32";
    case ElementKind::f16:
      return "f16";
    case ElementKind::bf16:
      return "bf16";
    case ElementKind::fp8_e4m3:
      return "fp8_e4m3";
    case ElementKind::i8:
      return "i8";
    case ElementKind::i32:
      return "i32";
  }
  return "unknown";
}

}  // namespace gpubench::suite
