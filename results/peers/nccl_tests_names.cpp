// nccl-tests' words in gpubench's scheme: program, data type and version names (issue 40).
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "results/peers/peers_nccl_tests.hpp"
#include "util/strings.hpp"

namespace gpubench::results::peers {

std::optional<std::string> nccl_collective_name(std::string_view program) {
  // A path ("./build/all_reduce_perf") or an MPI build's name ("all_reduce_perf_mpi").
  if (const auto slash = program.rfind('/'); slash != std::string_view::npos) {
    program.remove_prefix(slash + 1);
  }
  if (program.ends_with("_mpi")) program.remove_suffix(4);
  if (program.ends_with("_perf")) program.remove_suffix(5);
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 11> k_names = {{
      {"all_reduce", "allreduce"},
      {"all_gather", "allgather"},
      {"reduce_scatter", "reduce_scatter"},
      {"broadcast", "broadcast"},
      {"reduce", "reduce"},
      {"alltoall", "alltoall"},
      {"alltoallv", "alltoallv"},  // rccl-tests only
      {"sendrecv", "sendrecv"},
      {"gather", "gather"},
      {"scatter", "scatter"},
      {"hypercube", "hypercube"},
  }};
  for (const auto& [tool, ours] : k_names) {
    if (program == tool) return std::string(ours);
  }
  return std::nullopt;
}

std::optional<std::string> nccl_dtype_name(std::string_view type) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 19> k_types = {{
      {"float", "fp32"},       {"half", "fp16"},          {"double", "fp64"},
      {"bfloat16", "bf16"},    {"f8e4m3", "fp8e4m3"},     {"f8e5m2", "fp8e5m2"},
      {"int8", "int8"},        {"uint8", "uint8"},        {"int32", "int32"},
      {"uint32", "uint32"},    {"int64", "int64"},        {"uint64", "uint64"},
      {"char", "int8"},        {"int", "int32"},          {"fp8_e4m3", "fp8e4m3"},
      {"fp8_e5m2", "fp8e5m2"}, {"rccl_bfloat16", "bf16"}, {"float16", "fp16"},
      {"float32", "fp32"},
  }};
  for (const auto& [tool, ours] : k_types) {
    if (type == tool) return std::string(ours);
  }
  return std::nullopt;
}

double nccl_error_bound(std::string_view dtype, int ranks) {
  // nccl-tests 2.0-2.12 src/common.cu DeltaMaxValue(): half and bfloat16 1e-2, float 1e-5,
  // double 1e-12, integers 1e-200 (any difference), times (nranks - 1).
  double per_rank = 1e-200;
  if (dtype == "fp16" || dtype == "bf16") {
    per_rank = 1e-2;
  } else if (dtype == "fp32") {
    per_rank = 1e-5;
  } else if (dtype == "fp64") {
    per_rank = 1e-12;
  }
  return per_rank * (ranks > 1 ? ranks - 1 : 1);
}

std::string nccl_version_from_code(std::string_view code) {
  const auto v = parse_int(code);
  if (!v || *v <= 0) return {};
  // NCCL_VERSION(X,Y,Z) is X*10000 + Y*100 + Z from 2.9 on, X*1000 + Y*100 + Z before.
  const long long major = *v >= 10000 ? *v / 10000 : *v / 1000;
  const long long minor = *v >= 10000 ? (*v % 10000) / 100 : (*v % 1000) / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(*v % 100);
}

std::string cuda_version_from_int(std::string_view value) {
  // CUDA's version integers are 1000 * major + 10 * minor (12080 = 12.8).
  const auto v = parse_int(value);
  if (!v || *v <= 0) return {};
  return std::to_string(*v / 1000) + "." + std::to_string((*v % 1000) / 10);
}

}  // namespace gpubench::results::peers
