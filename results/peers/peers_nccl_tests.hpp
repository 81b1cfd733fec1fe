// nccl-tests and rccl-tests text output (every *_perf program, every version in use) read into a
// Google Benchmark document named in gpubench's scheme (issue 40; README.md here lists what is
// read and how each column is named).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "results/peers/peers.hpp"

namespace gpubench::results::peers {

// True when `head` (the first bytes of a file) holds a line only nccl-tests or rccl-tests print:
// "# nThread 1 nGpus 8 ...", "# Collective test starting: ...", "rccl-tests: Version ..." or
// a "#  size  count  type ... busbw" column header.
bool detect_nccl_tests(std::string_view head);

// The whole text. Throws Error(bad_input) naming `source`, the line and what was expected for a
// broken table (a cut row, a non-number in a number column, an unknown data type), for a file
// that does not say which program wrote it or how many ranks ran, and when nothing was measured
// (an init failure: the tool's own error line is quoted).
PeerDocument parse_nccl_tests(std::string_view text, const std::string& source);

// --- nccl_tests_names.cpp: the tool's words in gpubench's scheme (pure; tested on their own) ---

// "all_reduce" (from all_reduce_perf, all_reduce_perf_mpi) -> "allreduce"; nullopt when unknown.
std::optional<std::string> nccl_collective_name(std::string_view program);
// nccl-tests' type names ("float", "half", "bfloat16", "f8e4m3", old "char", "int") -> gpubench's
// dtype names ("fp32", "fp16", "bf16", "fp8e4m3", "int8", "int32"); nullopt when unknown.
std::optional<std::string> nccl_dtype_name(std::string_view type);
// The largest error nccl-tests before 2.13 accepted for a value of `dtype` summed over `ranks`
// ranks (its DeltaMaxValue(type) * (nranks - 1)): an "error" column value above it counted as
// "Out of bounds".
double nccl_error_bound(std::string_view dtype, int ranks);
// NCCL_VERSION_CODE as printed by "nccl-headers=22606" -> "2.26.6" (codes before 2.9: 2708 ->
// "2.7.8"); empty for a value that is no version code.
std::string nccl_version_from_code(std::string_view code);
// "cudaDriverVersion 12080" -> "12.8"; empty when not a number.
std::string cuda_version_from_int(std::string_view value);

}  // namespace gpubench::results::peers
