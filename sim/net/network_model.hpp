#pragma once
// What a collective (or the step simulator) needs from a network: start a transfer of some bytes along a
// path of directed links, be called back when its last byte arrives, and read how much each link carried.
// Two implementations: FlowNetwork (max-min fair sharing, contention) and AnalyticalNetwork (a closed form
// that shares each link's load among the flows started together). Both are engine models, registered with the Simulator that drives them.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/units.hpp"
#include "sim/engine/model.hpp"
#include "sim/engine/simulator.hpp"

namespace k3::net {

using core::Bytes;
using core::BytesPerSec;
using core::Seconds;
using core::SimTime;
using NetLinkId = std::uint32_t;
using FlowId = std::uint64_t;

// A directed link as the network models see it: usable capacity (line rate x protocol efficiency) and the
// latency a flow pays on it before its first byte arrives.
struct NetLink {
  BytesPerSec capacity_bytes_per_s = 0;
  Seconds latency_s = 0;
};

// A network's links, shared read-only by every network built on one topology (a step builds hundreds of them,
// and a 98K-GPU fabric has a million links).
using NetLinks = std::shared_ptr<const std::vector<NetLink>>;

// Called once when the flow's last byte has arrived; `finish` equals the simulator's now().
using FlowDone = std::function<void(FlowId, SimTime finish)>;

class NetworkModel : public engine::Model {
 public:
  // Starts now. An empty path (a GPU sending to itself) or zero bytes finishes after the path latency.
  virtual FlowId start_flow(std::span<const NetLinkId> path, Bytes bytes, FlowDone on_done) = 0;
  virtual std::string_view name() const = 0;

  const std::vector<NetLink>& links() const { return *links_; }
  // The links this network's flows have crossed, in the order first crossed: every other link carried nothing.
  const std::vector<NetLinkId>& used_links() const { return slot_links_; }
  // Bytes that crossed `link` so far (finished flows in full, running flows up to now).
  virtual Bytes link_bytes(NetLinkId link) const = 0;
  // Mean utilisation of `link` over [0, now]: carried bytes / (capacity x elapsed), in [0, 1].
  double link_utilisation(NetLinkId link) const;
  std::size_t active_flows() const { return active_flows_; }

 protected:
  NetworkModel(engine::Simulator& sim, NetLinks links);
  Seconds path_latency_s(std::span<const NetLinkId> path) const;
  void check_path(std::span<const NetLinkId> path) const;
  // Per-link state lives in slots, one per link a flow has crossed, numbered in the order first crossed, so
  // that a network costs what its flows touch rather than the whole fabric. slot() adds the link on first use
  // (checking its figures) and grows finished_bytes_; find_slot() does not add.
  std::uint32_t slot(NetLinkId link);
  std::optional<std::uint32_t> find_slot(NetLinkId link) const;
  const NetLink& slot_link(std::uint32_t s) const { return (*links_)[slot_links_[s]]; }

  engine::Simulator& sim_;
  NetLinks links_;
  std::vector<Bytes> finished_bytes_;  // per slot, from flows already finished
  std::size_t active_flows_ = 0;

 private:
  std::vector<NetLinkId> slot_links_;  // slot -> link
  // link -> slot, kNoSlot where unused; grown to the highest link used (a few ten thousand entries at most).
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
  std::vector<std::uint32_t> slots_;
};

}  // namespace k3::net
