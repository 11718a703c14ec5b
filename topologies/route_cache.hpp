#pragma once
// Lazily filled, thread-safe caches behind Topology::route(). A Topology may be shared read-only by many
// simulation threads, so every mutable member here is guarded: routes by sharded reader-writer locks,
// per-destination switch distances by one std::once_flag per destination.
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "topologies/topology.hpp"

namespace k3::topo {

struct RouteKey {
  GpuId a = 0, b = 0;
  std::uint64_t flow_key = 0;
  bool operator==(const RouteKey&) const = default;
};

struct RouteKeyHash {
  std::size_t operator()(const RouteKey& k) const noexcept {
    std::uint64_t h = (static_cast<std::uint64_t>(k.a) << 32) ^ k.b;
    h ^= k.flow_key + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
};

struct RouteCache {
  static constexpr std::size_t kShards = 64;
  struct Shard {
    std::shared_mutex mutex;
    // unordered_map nodes never move, so a returned span into a stored vector stays valid.
    std::unordered_map<RouteKey, std::vector<LinkId>, RouteKeyHash> routes;
  };
  explicit RouteCache(std::size_t switch_count)
      : switch_once(std::make_unique<std::once_flag[]>(switch_count)), switch_dist(switch_count) {}

  std::array<Shard, kShards> shards;
  std::unique_ptr<std::once_flag[]> switch_once;
  std::vector<std::vector<std::uint8_t>> switch_dist;  // by destination switch ordinal, S bytes each
  std::mutex generic_mutex;
  std::unordered_map<VertexId, std::unique_ptr<const std::vector<std::uint16_t>>> generic_dist;
};

}  // namespace k3::topo
