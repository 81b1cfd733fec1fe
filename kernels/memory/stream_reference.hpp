// CPU reference for the STREAM operations in stream.hpp, shared by the host half of the memory
// suite (which validates its own passes) and the device half (which validates sampled elements
// copied back from the GPU).
//
// Validation follows STREAM's checkSTREAMresults: the expected value of every element comes from
// the scalar recurrence (stream_apply from the initial values, repeated for as many passes as were
// run), compared with a relative error tolerance (1e-13 for doubles).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/memory/stream.hpp"

namespace gpubench::kernels::memory {

// Relative tolerance for double results (STREAM's epsilon for 8-byte elements).
inline constexpr double k_stream_double_tolerance = 1e-13;

// Expected values of every element after `passes` passes of one operation. Inputs repeat with
// k_stream_pattern_period, so the table holds one entry per residue.
class StreamReference {
 public:
  StreamReference(StreamOp op, std::uint64_t passes, double scalar = k_stream_scalar);

  StreamOp op() const noexcept { return m_op; }
  std::uint64_t passes() const noexcept { return m_passes; }
  // Expected (a, b, c) of element i after the passes.
  const StreamValues& expected(std::uint64_t i) const noexcept {
    return m_expected[i % k_stream_pattern_period];
  }

 private:
  StreamOp m_op;
  std::uint64_t m_passes;
  std::array<StreamValues, k_stream_pattern_period> m_expected{};
};

// Outcome of comparing results with the reference. Mergeable, so threads can check chunks.
struct StreamCheck {
  std::uint64_t elements_checked = 0;
  std::uint64_t mismatches = 0;       // elements with any array beyond the tolerance
  std::uint64_t first_bad_index = 0;  // lowest mismatching element index (when mismatches > 0)
  char first_bad_array = ' ';         // 'a', 'b' or 'c'
  double first_bad_value = 0;
  double first_bad_expected = 0;
  double max_relative_error = 0;

  bool ok() const noexcept { return elements_checked > 0 && mismatches == 0; }
  void merge(const StreamCheck& other);
  // "validation failed: 3 of 1048576 elements wrong, first c[17] = 0 (expected 17)" or "ok".
  std::string describe() const;
};

// Relative error |got - expected| / |expected| (absolute error when expected is 0).
double relative_error(double got, double expected);

// Folds element i with values `got` into `check`.
void check_element(const StreamReference& ref, std::uint64_t i, const StreamValues& got,
                   double tolerance, StreamCheck& check);

// Checks elements [begin, end) of the three arrays (host pointers to the whole arrays).
StreamCheck check_stream_arrays(const StreamReference& ref, const double* a, const double* b,
                                const double* c, std::uint64_t begin, std::uint64_t end,
                                double tolerance = k_stream_double_tolerance);

// Writes stream_initial_values(i) for i in [begin, end) (the first touch of a thread's chunk).
void stream_fill_initial(double* a, double* b, double* c, std::uint64_t begin, std::uint64_t end);

// One pass of `op` over [begin, end), the plain loop STREAM times. Used by the host suite's
// threads on their chunks and by tests.
void stream_pass(StreamOp op, double* a, double* b, double* c, double scalar, std::uint64_t begin,
                 std::uint64_t end);

}  // namespace gpubench::kernels::memory
