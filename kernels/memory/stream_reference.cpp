#include "kernels/memory/stream_reference.hpp"

#include <cmath>
#include <cstring>
#include <sstream>

namespace gpubench::kernels::memory {

const char* to_string(StreamOp op) {
  switch (op) {
    case StreamOp::copy:
      return "copy";
    case StreamOp::scale:
      return "scale";
    case StreamOp::add:
      return "add";
    case StreamOp::triad:
      return "triad";
  }
  return "copy";
}

std::optional<StreamOp> stream_op_from_string(std::string_view text) {
  for (StreamOp op : k_stream_ops) {
    if (text == to_string(op)) return op;
  }
  return std::nullopt;
}

StreamReference::StreamReference(StreamOp op, std::uint64_t passes, double scalar)
    : m_op(op), m_passes(passes) {
  for (std::uint64_t k = 0; k < k_stream_pattern_period; ++k) {
    StreamValues v = stream_initial_values(k);
    // The recurrence itself, not a closed form: each pass is applied as the kernels apply it.
    // A repeated STREAM operation reaches its fixed point after one pass, so stop there.
    for (std::uint64_t p = 0; p < passes; ++p) {
      const StreamValues next = stream_apply(op, v, scalar);
      const bool fixed_point = next.a == v.a && next.b == v.b && next.c == v.c;
      v = next;
      if (fixed_point) break;
    }
    m_expected[k] = v;
  }
}

double relative_error(double got, double expected) {
  const double diff = std::fabs(got - expected);
  if (expected == 0) return diff;
  return diff / std::fabs(expected);
}

void StreamCheck::merge(const StreamCheck& other) {
  if (other.mismatches > 0 && (mismatches == 0 || other.first_bad_index < first_bad_index)) {
    first_bad_index = other.first_bad_index;
    first_bad_array = other.first_bad_array;
    first_bad_value = other.first_bad_value;
    first_bad_expected = other.first_bad_expected;
  }
  elements_checked += other.elements_checked;
  mismatches += other.mismatches;
  if (other.max_relative_error > max_relative_error || std::isnan(other.max_relative_error)) {
    max_relative_error = other.max_relative_error;
  }
}

std::string StreamCheck::describe() const {
  std::ostringstream out;
  out.precision(17);
  if (elements_checked == 0) {
    out << "validation failed: no element was checked";
  } else if (mismatches == 0) {
    out << "ok (" << elements_checked << " elements, max relative error " << max_relative_error
        << ")";
  } else {
    out << "validation failed: " << mismatches << " of " << elements_checked
        << " elements wrong, first " << first_bad_array << "[" << first_bad_index
        << "] = " << first_bad_value << " (expected " << first_bad_expected << ", relative error "
        << relative_error(first_bad_value, first_bad_expected) << ")";
  }
  return out.str();
}

void check_element(const StreamReference& ref, std::uint64_t i, const StreamValues& got,
                   double tolerance, StreamCheck& check) {
  const StreamValues& want = ref.expected(i);
  const double values[3] = {got.a, got.b, got.c};
  const double wanted[3] = {want.a, want.b, want.c};
  bool bad = false;
  for (int k = 0; k < 3; ++k) {
    const double err = relative_error(values[k], wanted[k]);
    // `!(err <= tolerance)` also catches NaN.
    if (!(err <= tolerance)) {
      if (!bad && (check.mismatches == 0 || i < check.first_bad_index)) {
        check.first_bad_index = i;
        check.first_bad_array = static_cast<char>('a' + k);
        check.first_bad_value = values[k];
        check.first_bad_expected = wanted[k];
      }
      bad = true;
    }
    if (err > check.max_relative_error || std::isnan(err)) check.max_relative_error = err;
  }
  ++check.elements_checked;
  if (bad) ++check.mismatches;
}

StreamCheck check_stream_arrays(const StreamReference& ref, const double* a, const double* b,
                                const double* c, std::uint64_t begin, std::uint64_t end,
                                double tolerance) {
  StreamCheck check;
  for (std::uint64_t i = begin; i < end; ++i) {
    check_element(ref, i, StreamValues{a[i], b[i], c[i]}, tolerance, check);
  }
  return check;
}

void stream_fill_initial(double* a, double* b, double* c, std::uint64_t begin, std::uint64_t end) {
  for (std::uint64_t i = begin; i < end; ++i) {
    const StreamValues v = stream_initial_values(i);
    a[i] = v.a;
    b[i] = v.b;
    c[i] = v.c;
  }
}

void stream_pass(StreamOp op, double* __restrict a, double* __restrict b, double* __restrict c,
                 double scalar, std::uint64_t begin, std::uint64_t end) {
  // Plain loops the compiler vectorises, as in STREAM; the arrays never alias.
  switch (op) {
    case StreamOp::copy:
      for (std::uint64_t i = begin; i < end; ++i) c[i] = a[i];
      break;
    case StreamOp::scale:
      for (std::uint64_t i = begin; i < end; ++i) b[i] = scalar * c[i];
      break;
    case StreamOp::add:
      for (std::uint64_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
      break;
    case StreamOp::triad:
      for (std::uint64_t i = begin; i < end; ++i) a[i] = b[i] + scalar * c[i];
      break;
  }
}

}  // namespace gpubench::kernels::memory
