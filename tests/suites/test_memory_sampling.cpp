// Where the device STREAM sweep's working sets live against the GPU's L2
// (suites/common/l2_placement.hpp), per profile size and operation.
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/memory/stream.hpp"
#include "suites/common/l2_placement.hpp"

namespace gpubench::suites::memory {
namespace {

using suite::k_largest_known_l2_bytes;
using suite::L2Placement;

constexpr std::uint64_t k_mib = 1024ull * 1024ull;
constexpr std::uint64_t k_h100_l2 = 50 * k_mib;  // cudaDevAttrL2CacheSize of an H100/H200 SXM

// The device STREAM sweep against an H100/H200's L2: the quick size is a DRAM figure (also on a
// B200's 126 MB), the full profile's 4 MiB arrays are L2 figures, 16 and 64 MiB straddle.
TEST(L2Placement, StreamSweepOnAnH100) {
  namespace km = gpubench::kernels::memory;
  const auto placement = [](km::StreamOp op, std::uint64_t array_bytes, std::uint64_t l2) {
    return suite::l2_placement(km::stream_bytes_per_pass(op, array_bytes), l2);
  };
  for (km::StreamOp op : km::k_stream_ops) {
    EXPECT_EQ(placement(op, 256 * k_mib, k_h100_l2), L2Placement::dram) << km::to_string(op);
    EXPECT_EQ(placement(op, 256 * k_mib, k_largest_known_l2_bytes), L2Placement::dram);
    EXPECT_EQ(placement(op, 4 * k_mib, k_h100_l2), L2Placement::resident) << km::to_string(op);
    EXPECT_EQ(placement(op, 16 * k_mib, k_h100_l2), L2Placement::straddles) << km::to_string(op);
    EXPECT_EQ(placement(op, 64 * k_mib, k_h100_l2), L2Placement::straddles) << km::to_string(op);
  }
}

}  // namespace
}  // namespace gpubench::suites::memory
