// kernels/collective_check: the crafted-input arithmetic and CPU reference the device check uses
// (the kernels themselves run in the gpu-labelled tests and gpu-check).
#include "kernels/collective_check/collective_check.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "suites/allreduce/collectives.hpp"

namespace gpubench::kernels::collective_check {
namespace {

std::uint32_t fp32_bits(float f) {
  std::uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

TEST(CollectiveCheck, EncodeBitsMatchesIeeeForExactIntegers) {
  for (int v = 0; v <= 4096; ++v) {
    ASSERT_EQ(encode_bits(Dtype::fp32, v), fp32_bits(static_cast<float>(v))) << v;
    if (v <= 2048) {
      ASSERT_EQ(encode_bits(Dtype::fp16, v), allreduce::fp16_bits(static_cast<float>(v))) << v;
    }
    if (v <= 256) {
      ASSERT_EQ(encode_bits(Dtype::bf16, v), allreduce::bf16_bits(static_cast<float>(v))) << v;
    }
  }
  EXPECT_EQ(encode_bits(Dtype::fp32, 1 << 24), fp32_bits(16777216.0f));
}

TEST(CollectiveCheck, ClosedFormSumEqualsTheLoop) {
  for (int modulus : {2, 4}) {
    for (int ranks = 1; ranks <= 70; ++ranks) {
      for (std::uint64_t i = 0; i < 9; ++i) {
        int loop = 0;
        for (int r = 0; r < ranks; ++r) loop += crafted_value(r, i, modulus);
        ASSERT_EQ(crafted_sum(ranks, i, modulus), loop) << modulus << " " << ranks << " " << i;
      }
    }
  }
}

TEST(CollectiveCheck, ModulusKeepsEverySumExact) {
  // bf16 holds every integer up to 256: values 0..3 reach that at 166 ranks, so from 167 (the
  // old fixed pattern failed from ~170) the values become 0..1, exact up to 512 ranks.
  EXPECT_EQ(crafted_modulus(Dtype::bf16, 8), 4);
  EXPECT_EQ(crafted_modulus(Dtype::bf16, 166), 4);
  EXPECT_EQ(crafted_modulus(Dtype::bf16, 170), 2);
  EXPECT_EQ(crafted_modulus(Dtype::bf16, 512), 2);
  EXPECT_EQ(crafted_modulus(Dtype::bf16, 513), 0);
  EXPECT_EQ(crafted_modulus(Dtype::fp16, 1024), 4);
  EXPECT_EQ(crafted_modulus(Dtype::fp32, 100000), 4);
  for (Dtype t : {Dtype::fp32, Dtype::fp16, Dtype::bf16}) {
    for (int ranks = 1; ranks <= 600; ++ranks) {
      const int m = crafted_modulus(t, ranks);
      if (m == 0) continue;
      for (int i = 0; i < m; ++i) {
        ASSERT_LE(crafted_sum(ranks, static_cast<std::uint64_t>(i), m), exact_integer_limit(t));
      }
    }
  }
}

// Simulates a collective on the host from every rank's crafted input and checks the reference
// count: 0 for the true result, the number of changed elements otherwise.
TEST(CollectiveCheck, ReferenceCountsMismatchesPerLayout) {
  const int ranks = 3;
  const std::uint64_t share = 8;
  for (Layout layout :
       {Layout::allreduce, Layout::allgather, Layout::reduce_scatter, Layout::broadcast}) {
    for (Dtype type : {Dtype::fp32, Dtype::bf16, Dtype::fp16}) {
      CheckSpec spec;
      spec.layout = layout;
      spec.type = type;
      spec.ranks = ranks;
      spec.rank = 1;
      spec.modulus = 4;
      spec.send_count = layout == Layout::reduce_scatter ? share * ranks : share;
      spec.recv_count = layout == Layout::allgather ? share * ranks : share;
      // Inputs of every rank, then the true output of rank 1, computed element by element.
      std::vector<std::vector<int>> in(ranks);
      for (int r = 0; r < ranks; ++r) {
        for (std::uint64_t j = 0; j < spec.send_count; ++j) {
          in[static_cast<std::size_t>(r)].push_back(crafted_value(r, j, 4));
        }
      }
      std::vector<int> truth(spec.recv_count, 0);
      for (std::uint64_t i = 0; i < spec.recv_count; ++i) {
        int& t = truth[i];
        if (layout == Layout::allreduce) {
          for (int r = 0; r < ranks; ++r) t += in[static_cast<std::size_t>(r)][i];
        } else if (layout == Layout::allgather) {
          t = in[i / share][i % share];
        } else if (layout == Layout::reduce_scatter) {
          for (int r = 0; r < ranks; ++r) t += in[static_cast<std::size_t>(r)][1 * share + i];
        } else {
          t = in[0][i];
        }
      }
      const std::size_t eb = element_bytes(type);
      std::vector<unsigned char> out(spec.recv_count * eb);
      for (std::uint64_t i = 0; i < spec.recv_count; ++i) {
        const std::uint32_t bits = encode_bits(type, truth[i]);
        std::memcpy(out.data() + i * eb, &bits, eb);  // little-endian: the low bytes
      }
      EXPECT_EQ(count_mismatches_host(out.data(), spec), 0u);
      // A collective that did nothing leaves the input (or the NaN sentinel): caught.
      std::vector<unsigned char> own(spec.recv_count * eb);
      fill_input_host(own.data(), spec.recv_count, 0, type, spec.rank, 4);
      EXPECT_GT(count_mismatches_host(own.data(), spec), 0u);
      std::vector<unsigned char> nan(spec.recv_count * eb, 0xFF);
      EXPECT_EQ(count_mismatches_host(nan.data(), spec), spec.recv_count);
      out[eb] ^= 1;  // one wrong element
      EXPECT_EQ(count_mismatches_host(out.data(), spec), 1u);
    }
  }
}

}  // namespace
}  // namespace gpubench::kernels::collective_check
