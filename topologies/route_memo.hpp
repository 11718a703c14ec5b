#pragma once
// A memo in front of Topology::route() for one simulation on one thread. The (a, b) pairs of a pass recur
// millions of times (a K3 F&B pass launches ~3M flows over a few ten thousand pairs), and every lookup in the
// Topology's shared cache takes a shard lock and walks a node-based hash map that no longer fits in cache:
// it was 8% of a whole K3 plan. Here the pairs seen so far sit in one open-addressing table, probed without a
// lock. Routes with the default flow key only (what the collective engine asks for).
#include <cstdint>
#include <span>
#include <vector>

#include "topologies/topology.hpp"

namespace k3::topo {

class RouteMemo {
 public:
  explicit RouteMemo(const Topology& topology) : topology_(topology), slots_(kInitialSlots) {}

  // Topology::route(a, b): the same span, valid for the Topology's lifetime.
  std::span<const LinkId> route(GpuId a, GpuId b) {
    const std::uint64_t key = std::uint64_t{a} << 32 | b;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = home(key);; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.key == key) return {s.links, s.size};
      if (s.key != kEmpty) continue;
      const auto path = topology_.route(a, b);
      s = Slot{key, path.data(), static_cast<std::uint32_t>(path.size())};
      // Kept at most half full, so that a probe ends after a few slots.
      if (++used_ * 2 > slots_.size()) grow();
      return path;
    }
  }

 private:
  // GPU ids are below 2^32 - 1, so no pair has this key.
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static constexpr std::size_t kInitialSlots = 256;  // a power of two
  struct Slot {
    std::uint64_t key = kEmpty;
    const LinkId* links = nullptr;
    std::uint32_t size = 0;
  };
  // Fibonacci hashing: the pair's bits spread over the table's index bits.
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 32) & (slots_.size() - 1);
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.key == kEmpty) continue;
      std::size_t i = home(s.key);
      while (slots_[i].key != kEmpty) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  const Topology& topology_;
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

}  // namespace k3::topo
