#include "suites/dataloader/sample_order.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "suites/dataloader/splitmix.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

std::uint64_t epoch_state(std::uint64_t seed, std::uint64_t epoch, std::uint64_t salt) {
  std::uint64_t s = seed ^ (0xd1b54a32d192ed03ull * (epoch + 1)) ^ salt;
  return splitmix64(s);
}

template <class T>
void fisher_yates(std::vector<T>& v, std::uint64_t& state) {
  for (std::size_t i = v.size(); i > 1; --i) {
    std::swap(v[i - 1], v[uniform_below(state, i)]);
  }
}

}  // namespace

const char* to_string(Order order) {
  switch (order) {
    case Order::sequential:
      return "sequential";
    case Order::shuffled:
      return "shuffled";
    case Order::shard_shuffled:
      return "shard_shuffled";
  }
  return "sequential";
}

Order order_from_string(const std::string& name) {
  for (Order o : {Order::sequential, Order::shuffled, Order::shard_shuffled}) {
    if (name == to_string(o)) return o;
  }
  throw bad_input("unknown sample order '" + name + "'", {},
                  "use sequential, shuffled or shard_shuffled");
}

ShuffleBuffer::ShuffleBuffer(std::size_t capacity, std::uint64_t seed)
    : m_capacity(capacity == 0 ? 1 : capacity), m_state(seed) {
  m_items.reserve(m_capacity);
}

void ShuffleBuffer::push(std::uint64_t index) {
  if (full()) {
    throw infrastructure("shuffle buffer of " + std::to_string(m_capacity) +
                         " samples pushed while full");
  }
  m_items.push_back(index);
  m_max_seen = std::max(m_max_seen, m_items.size());
}

std::uint64_t ShuffleBuffer::pop() {
  const std::size_t k = static_cast<std::size_t>(uniform_below(m_state, m_items.size()));
  const std::uint64_t out = m_items[k];
  m_items[k] = m_items.back();
  m_items.pop_back();
  return out;
}

std::vector<std::uint64_t> epoch_order(const DatasetSpec& spec, Order order, std::uint64_t seed,
                                       std::uint64_t epoch, std::size_t buffer) {
  std::vector<std::uint64_t> out;
  out.reserve(spec.samples);
  switch (order) {
    case Order::sequential:
      out.resize(spec.samples);
      std::iota(out.begin(), out.end(), std::uint64_t{0});
      return out;
    case Order::shuffled: {
      out.resize(spec.samples);
      std::iota(out.begin(), out.end(), std::uint64_t{0});
      std::uint64_t state = epoch_state(seed, epoch, 0x5bd1e995ull);
      fisher_yates(out, state);
      return out;
    }
    case Order::shard_shuffled: {
      std::vector<std::uint64_t> shards(spec.shard_count());
      std::iota(shards.begin(), shards.end(), std::uint64_t{0});
      std::uint64_t state = epoch_state(seed, epoch, 0x27d4eb2full);
      fisher_yates(shards, state);
      ShuffleBuffer pool(buffer, epoch_state(seed, epoch, 0x165667b1ull));
      for (std::uint64_t shard : shards) {
        const std::uint64_t first = shard * spec.samples_per_shard;
        for (std::uint64_t i = 0; i < spec.samples_in_shard(shard); ++i) {
          if (pool.full()) out.push_back(pool.pop());
          pool.push(first + i);
        }
      }
      while (!pool.empty()) out.push_back(pool.pop());
      return out;
    }
  }
  return out;
}

std::string check_permutation(const std::vector<std::uint64_t>& order, std::uint64_t samples) {
  std::vector<std::uint8_t> seen(samples, 0);
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const std::uint64_t i = order[pos];
    if (i >= samples) {
      return "position " + std::to_string(pos) + " names sample " + std::to_string(i) + " of " +
             std::to_string(samples);
    }
    if (seen[i]++) {
      return "sample " + std::to_string(i) + " appears twice (again at position " +
             std::to_string(pos) + ")";
    }
  }
  for (std::uint64_t i = 0; i < samples; ++i) {
    if (!seen[i]) return "sample " + std::to_string(i) + " is missing";
  }
  return {};
}

}  // namespace gpubench::dataloader
