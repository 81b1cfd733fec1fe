// The order a pipeline visits a dataset's samples in, one epoch at a time:
//   sequential      0, 1, 2, ... (the file order; readahead helps)
//   shuffled        a seeded permutation of every sample, new each epoch (random reads)
//   shard_shuffled  WebDataset-style: shards in a seeded order, each shard's samples streamed in
//                   file order through a buffer of B samples, each output drawn at random from
//                   the buffer (reads stay shard-sequential; memory is B samples, not the dataset)
// Every order is a permutation of [0, samples): each sample exactly once per epoch. The same
// (seed, epoch) gives the same order on every machine (splitmix64, no std:: distributions, whose
// output is implementation-defined).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "suites/dataloader/dataset.hpp"

namespace gpubench::dataloader {

enum class Order { sequential, shuffled, shard_shuffled };
const char* to_string(Order order);
Order order_from_string(const std::string& name);  // throws Error(bad_input)

// Samples the shard shuffle's buffer holds when none is given. WebDataset's examples use
// shuffle(1000) on datasets of many GB; 64 (9.6 MB of 150 KB samples) is below a shard of the
// suite's datasets (16 MiB, 111 image samples), so the shard-sequential reads stay visible
// even in the quick profile's 32 MiB datasets instead of degenerating into a full shuffle.
constexpr std::size_t k_default_shuffle_buffer = 64;

// A bounded shuffle buffer of sample indices (the WebDataset `shuffle(B)` stage): push() while
// it holds fewer than `capacity`, then each pop() returns a uniformly drawn held index.
class ShuffleBuffer {
 public:
  ShuffleBuffer(std::size_t capacity, std::uint64_t seed);
  bool full() const noexcept { return m_items.size() >= m_capacity; }
  bool empty() const noexcept { return m_items.empty(); }
  std::size_t size() const noexcept { return m_items.size(); }
  std::size_t max_size_seen() const noexcept { return m_max_seen; }
  // Throws Error(infrastructure) when full: the caller must pop first (bounded memory).
  void push(std::uint64_t index);
  std::uint64_t pop();  // precondition: !empty()

 private:
  std::size_t m_capacity;
  std::uint64_t m_state;
  std::vector<std::uint64_t> m_items;
  std::size_t m_max_seen = 0;
};

// The samples of epoch `epoch` in visiting order (spec.samples entries, a permutation).
// `buffer` is the shard shuffle's buffer size in samples (>= 1; ignored by the other orders).
std::vector<std::uint64_t> epoch_order(const DatasetSpec& spec, Order order, std::uint64_t seed,
                                       std::uint64_t epoch,
                                       std::size_t buffer = k_default_shuffle_buffer);

// Empty when `order` holds every index of [0, samples) exactly once; else what is wrong (the
// first duplicate, out-of-range or missing index).
std::string check_permutation(const std::vector<std::uint64_t>& order, std::uint64_t samples);

}  // namespace gpubench::dataloader
