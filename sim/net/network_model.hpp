#pragma once
// What a collective (or the step simulator) needs from a network: start a transfer of some bytes along a
// path of directed links, be called back when its last byte arrives, and read how much each link carried.
// Two implementations: FlowNetwork (max-min fair sharing, contention) and AnalyticalNetwork (a closed form
// that shares each link's load among the flows started together). Both are engine models, registered with the Simulator that drives them.
#include <cstdint>
#include <functional>
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

// Called once when the flow's last byte has arrived; `finish` equals the simulator's now().
using FlowDone = std::function<void(FlowId, SimTime finish)>;

class NetworkModel : public engine::Model {
 public:
  // Starts now. An empty path (a GPU sending to itself) or zero bytes finishes after the path latency.
  virtual FlowId start_flow(std::span<const NetLinkId> path, Bytes bytes, FlowDone on_done) = 0;
  virtual std::string_view name() const = 0;

  const std::vector<NetLink>& links() const { return links_; }
  // Bytes that crossed `link` so far (finished flows in full, running flows up to now).
  virtual Bytes link_bytes(NetLinkId link) const = 0;
  // Mean utilisation of `link` over [0, now]: carried bytes / (capacity x elapsed), in [0, 1].
  double link_utilisation(NetLinkId link) const;
  std::size_t active_flows() const { return active_flows_; }

 protected:
  NetworkModel(engine::Simulator& sim, std::vector<NetLink> links);
  Seconds path_latency_s(std::span<const NetLinkId> path) const;
  void check_path(std::span<const NetLinkId> path) const;

  engine::Simulator& sim_;
  std::vector<NetLink> links_;
  std::vector<Bytes> finished_bytes_;  // per link, from flows already finished
  std::size_t active_flows_ = 0;
};

}  // namespace k3::net
