// The cuBLASLt algorithm a gemm result ran, read from its label (issue 36 "fixed algorithms"), so
// a comparison whose sides ran different kernels says so in the reason of that row instead of
// leaving a change of algorithm to pass for a change of the machine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpubench::compare {

// The algorithm part of a label: its algo=, tile=, stages=, splitk= and swizzle= fields in that
// order ("algo=23 tile=20 stages=15 splitk=1 swizzle=0"), whatever else the label says (rank=,
// tied=, reused=, validation counts). Empty when the label has no algo= field (other suites,
// results stored before labels were kept).
std::string cublaslt_algorithm(std::string_view label);

// The note a row's reason gets when the sides ran different algorithms: "different cuBLASLt
// algorithm: algo=23 tile=20 ... vs algo=31 ..." (a side of several distinct ones lists them,
// joined by " / "). `base` and `candidate` are the distinct algorithms of each side's rows (empty
// strings are ignored); empty when either side has none or both have the same.
std::string algorithm_difference(std::vector<std::string> base, std::vector<std::string> candidate);

}  // namespace gpubench::compare
