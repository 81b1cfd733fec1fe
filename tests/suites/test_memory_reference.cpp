// The STREAM CPU reference, byte counting and the host half's building blocks (no child process).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "kernels/memory/stream.hpp"
#include "kernels/memory/stream_reference.hpp"
#include "suites/memory/host_stream.hpp"
#include "suites/memory/thread_pool.hpp"

namespace gpubench::kernels::memory {
namespace {

TEST(StreamBytes, FollowsStreamCounting) {
  // STREAM counts 2 arrays for copy and scale, 3 for add and triad (McCalpin's table).
  EXPECT_EQ(stream_bytes_per_pass(StreamOp::copy, 1000), 2000u);
  EXPECT_EQ(stream_bytes_per_pass(StreamOp::scale, 1000), 2000u);
  EXPECT_EQ(stream_bytes_per_pass(StreamOp::add, 1000), 3000u);
  EXPECT_EQ(stream_bytes_per_pass(StreamOp::triad, 1000), 3000u);
  EXPECT_EQ(stream_bytes_per_pass(StreamOp::triad, 268435456ull), 805306368ull);
}

TEST(StreamOps, NamesRoundTrip) {
  for (StreamOp op : k_stream_ops) {
    ASSERT_TRUE(stream_op_from_string(to_string(op)).has_value());
    EXPECT_EQ(*stream_op_from_string(to_string(op)), op);
  }
  EXPECT_FALSE(stream_op_from_string("Triad").has_value());
}

TEST(StreamApply, ScalarRecurrenceByHand) {
  const StreamValues v{2.0, 5.0, 7.0};
  const double q = 3.0;
  EXPECT_EQ(stream_apply(StreamOp::copy, v, q).c, 2.0);
  EXPECT_EQ(stream_apply(StreamOp::scale, v, q).b, 21.0);
  EXPECT_EQ(stream_apply(StreamOp::add, v, q).c, 7.0);
  EXPECT_EQ(stream_apply(StreamOp::triad, v, q).a, 26.0);
  // Only the destination changes.
  const StreamValues t = stream_apply(StreamOp::triad, v, q);
  EXPECT_EQ(t.b, 5.0);
  EXPECT_EQ(t.c, 7.0);
}

TEST(StreamInitial, EveryOperationChangesItsDestination) {
  // A pass that never ran must be detectable: the output differs from the initial content.
  for (std::uint64_t i = 0; i < k_stream_pattern_period; ++i) {
    const StreamValues v = stream_initial_values(i);
    EXPECT_NE(stream_apply(StreamOp::copy, v, k_stream_scalar).c, v.c) << i;
    EXPECT_NE(stream_apply(StreamOp::scale, v, k_stream_scalar).b, v.b) << i;
    EXPECT_NE(stream_apply(StreamOp::add, v, k_stream_scalar).c, v.c) << i;
    EXPECT_NE(stream_apply(StreamOp::triad, v, k_stream_scalar).a, v.a) << i;
  }
}

TEST(StreamReference, MatchesPassesOverArrays) {
  const std::uint64_t n = 3000;  // not a multiple of the pattern period
  for (StreamOp op : k_stream_ops) {
    std::vector<double> a(n), b(n), c(n);
    stream_fill_initial(a.data(), b.data(), c.data(), 0, n);
    for (int pass = 0; pass < 3; ++pass) {
      stream_pass(op, a.data(), b.data(), c.data(), k_stream_scalar, 0, n);
    }
    const StreamReference ref(op, 3);
    const StreamCheck check = check_stream_arrays(ref, a.data(), b.data(), c.data(), 0, n);
    EXPECT_TRUE(check.ok()) << to_string(op) << ": " << check.describe();
    EXPECT_EQ(check.elements_checked, n);
    EXPECT_EQ(check.max_relative_error, 0.0) << "the inputs are chosen so every result is exact";
  }
}

TEST(StreamReference, ZeroPassesIsTheInitialPattern) {
  const StreamReference ref(StreamOp::triad, 0);
  const StreamValues want = stream_initial_values(1500);
  EXPECT_EQ(ref.expected(1500).a, want.a);
  EXPECT_EQ(ref.expected(1500).b, want.b);
  EXPECT_EQ(ref.expected(1500).c, want.c);
}

TEST(StreamCheck, DetectsASkippedChunk) {
  const std::uint64_t n = 4096;
  std::vector<double> a(n), b(n), c(n);
  stream_fill_initial(a.data(), b.data(), c.data(), 0, n);
  // A "thread" that skipped [1024, 2048).
  stream_pass(StreamOp::triad, a.data(), b.data(), c.data(), k_stream_scalar, 0, 1024);
  stream_pass(StreamOp::triad, a.data(), b.data(), c.data(), k_stream_scalar, 2048, n);
  const StreamCheck check =
      check_stream_arrays(StreamReference(StreamOp::triad, 1), a.data(), b.data(), c.data(), 0, n);
  EXPECT_FALSE(check.ok());
  EXPECT_EQ(check.mismatches, 1024u);
  EXPECT_EQ(check.first_bad_index, 1024u);
  EXPECT_EQ(check.first_bad_array, 'a');
  EXPECT_NE(check.describe().find("validation failed: 1024 of 4096 elements wrong, first a[1024]"),
            std::string::npos)
      << check.describe();
}

TEST(StreamCheck, ToleranceIsRelativeAndCatchesNaN) {
  const StreamReference ref(StreamOp::copy, 1);
  StreamValues got = ref.expected(10);
  StreamCheck ok;
  got.c *= 1.0 + 1e-15;  // within 1e-13 relative
  check_element(ref, 10, got, k_stream_double_tolerance, ok);
  EXPECT_TRUE(ok.ok());
  StreamCheck bad;
  got.c = ref.expected(10).c * (1.0 + 1e-12);
  check_element(ref, 10, got, k_stream_double_tolerance, bad);
  EXPECT_FALSE(bad.ok());
  StreamCheck nan;
  got.c = std::numeric_limits<double>::quiet_NaN();
  check_element(ref, 10, got, k_stream_double_tolerance, nan);
  EXPECT_FALSE(nan.ok());
}

TEST(StreamCheck, MergeKeepsTheLowestBadIndex) {
  StreamCheck left, right;
  left.elements_checked = 10;
  right.elements_checked = 10;
  right.mismatches = 1;
  right.first_bad_index = 15;
  right.first_bad_array = 'c';
  left.merge(right);
  EXPECT_EQ(left.mismatches, 1u);
  EXPECT_EQ(left.first_bad_index, 15u);
  StreamCheck lower;
  lower.elements_checked = 5;
  lower.mismatches = 2;
  lower.first_bad_index = 3;
  lower.first_bad_array = 'b';
  left.merge(lower);
  EXPECT_EQ(left.first_bad_index, 3u);
  EXPECT_EQ(left.first_bad_array, 'b');
  EXPECT_EQ(left.mismatches, 3u);
  EXPECT_EQ(left.elements_checked, 25u);
  EXPECT_FALSE(StreamCheck{}.ok()) << "checking nothing is not a pass";
}

// The vector kernels' tiling (stream.hpp), walked on the host as the grid walks it: every double
// of the array is moved exactly once (the odd last one by thread 0), whatever n and grid size, and
// in each slot of a round a warp's 32 threads take 32 consecutive vectors (512 contiguous bytes).
TEST(StreamTiling, EveryDoubleOnceAndWarpsContiguous) {
  for (std::size_t n : {0, 1, 2, 7, 8, 9, 1000, 4097, 65536, 100003}) {
    for (std::size_t threads : {1, 32, 256, 768, 8 * 256 * 3}) {
      const std::size_t vectors = stream_vectors(n);
      std::vector<int> moved(n, 0);
      for (std::size_t t = 0; t < threads; ++t) {
        for (std::size_t round = 0; stream_vector_index(t, threads, round, 0) < vectors; ++round) {
          for (std::size_t k = 0; k < k_stream_unroll; ++k) {
            const std::size_t v = stream_vector_index(t, threads, round, k);
            if (v >= vectors) continue;
            for (std::size_t d = 0; d < k_stream_vector_doubles; ++d) {
              ++moved[v * k_stream_vector_doubles + d];
            }
          }
        }
        if (t == 0 && n % k_stream_vector_doubles != 0) ++moved[n - 1];
      }
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(moved[i], 1) << "n=" << n << " threads=" << threads << " element " << i;
      }
    }
  }
  for (std::size_t k = 0; k < k_stream_unroll; ++k) {
    const std::size_t first = stream_vector_index(64, 2048, 3, k);  // warp 2, round 3
    for (std::size_t lane = 1; lane < 32; ++lane) {
      EXPECT_EQ(stream_vector_index(64 + lane, 2048, 3, k), first + lane);
    }
  }
}

}  // namespace
}  // namespace gpubench::kernels::memory

namespace gpubench::suites::memory {
namespace {

TEST(ThreadSweep, PowersOfTwoAndAlwaysTheMaximum) {
  EXPECT_EQ(thread_sweep(1), (std::vector<int>{1}));
  EXPECT_EQ(thread_sweep(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(thread_sweep(6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(thread_sweep(8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(thread_sweep(0), (std::vector<int>{1}));
  EXPECT_GE(usable_cpu_count(), 1);
}

TEST(Chunks, CoverEverythingOnceOnCacheLines) {
  for (std::uint64_t n : {0ull, 1ull, 7ull, 1000ull, 1ull << 20}) {
    for (int workers : {1, 2, 3, 7}) {
      std::uint64_t next = 0;
      for (int w = 0; w < workers; ++w) {
        const Chunk c = chunk_of(n, workers, w, 8);
        EXPECT_EQ(c.begin, next) << n << " " << workers << " " << w;
        EXPECT_LE(c.begin, c.end);
        if (c.begin < n) {
          EXPECT_EQ(c.begin % 8, 0u);
        }
        next = c.end;
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST(ThreadPool, RunsEveryWorkerOncePerCall) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.size(), 3);
  std::vector<std::atomic<int>> hits(3);
  for (int round = 0; round < 100; ++round) {
    pool.run([&](int w) { hits[static_cast<std::size_t>(w)].fetch_add(1); });
  }
  for (auto& h : hits) EXPECT_EQ(h.load(), 100);
}

TEST(HostSweep, ProfilesGrowAndPassesDependOnSizeOnly) {
  using gpubench::suite::Profile;
  const HostSweep quick = host_sweep(Profile::quick, 2);
  const HostSweep standard = host_sweep(Profile::standard, 2);
  const HostSweep full = host_sweep(Profile::full, 16);
  EXPECT_EQ(quick.threads, (std::vector<int>{1, 2}));
  EXPECT_EQ(full.threads, (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_LT(quick.array_bytes.size(), standard.array_bytes.size());
  EXPECT_LT(standard.array_bytes.size(), full.array_bytes.size());
  // Bandwidth sizes: at least 64 MiB per array in every profile.
  EXPECT_GE(quick.array_bytes.back(), 64ull << 20);
  EXPECT_EQ(host_passes_for(64ull << 20), 8u);
  EXPECT_EQ(host_passes_for(1ull << 30), 5u);
  EXPECT_EQ(host_passes_for(1024), 4096u);
  EXPECT_EQ(host_benchmark_name("host_triad", 268435456, 2),
            "memory/host_triad/array_bytes:268435456/threads:2");
}

}  // namespace
}  // namespace gpubench::suites::memory
