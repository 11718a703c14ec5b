#include "sim/exec/replay_fingerprint.hpp"

#include <xxhash.h>

#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>

#include "core/error.hpp"
#include "sim/net/collectives/collective_plan.hpp"
#include "sim/net/network_factory.hpp"
#include "topologies/route_memo.hpp"

namespace k3::exec {

namespace {

// The canonical form streamed into XXH3-128, field by field (fixed-size values, strings with their length).
// Fields gather in a buffer handed to xxhash a block at a time: a K3 F&B pass is ~30M fields, and an update
// call per field cost more than the hashing. Streaming in blocks gives the same digest as one call.
class CanonicalStream {
 public:
  CanonicalStream() : state_(XXH3_createState(), &XXH3_freeState) {
    const bool ready = state_ != nullptr && XXH3_128bits_reset(state_.get()) == XXH_OK;
    K3SIM_ASSERT(ready, "could not set up an xxhash state");
  }
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T> && std::has_unique_object_representations_v<T>);
    static_assert(sizeof(T) <= kBlock);
    if (used_ + sizeof(T) > kBlock) flush();
    std::memcpy(buffer_.data() + used_, &value, sizeof(T));
    used_ += sizeof(T);
  }
  void put(double value) { put(std::bit_cast<std::uint64_t>(value)); }
  void put(std::string_view text) {
    put(static_cast<std::uint64_t>(text.size()));
    flush();
    XXH3_128bits_update(state_.get(), text.data(), text.size());
  }
  ReplayFingerprint digest() {
    flush();
    const XXH128_hash_t h = XXH3_128bits_digest(state_.get());
    return {h.low64, h.high64};
  }

 private:
  static constexpr std::size_t kBlock = 16384;
  void flush() {
    XXH3_128bits_update(state_.get(), buffer_.data(), used_);
    used_ = 0;
  }
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state_;
  std::array<unsigned char, kBlock> buffer_{};
  std::size_t used_ = 0;
};

constexpr std::uint32_t kUnnumbered = std::numeric_limits<std::uint32_t>::max();

// First-appearance numbering of GPUs and links, writing a link's figures into the stream when first seen.
class Renaming {
 public:
  // `first`: GPUs numbered 0, 1, ... in this order before any other.
  Renaming(std::span<const parallel::GpuIndex> first, const topo::Topology& topology,
           const std::vector<net::NetLink>& links, CanonicalStream& out)
      : topology_(topology), links_(links), out_(out), routes_(topology), gpu_(topology.gpu_count(), kUnnumbered),
        link_(links.size(), kUnnumbered) {
    for (parallel::GpuIndex g : first) gpu(g);
  }
  std::uint32_t gpu(topo::GpuId g) {
    K3SIM_ASSERT(g < gpu_.size(), "pass GPU outside the topology");
    if (gpu_[g] == kUnnumbered) gpu_[g] = next_gpu_++;
    return gpu_[g];
  }
  // The links the transfer's flow crosses (net::transfer_path), valid until the next call.
  std::span<const topo::LinkId> path(const net::Transfer& tr) {
    return net::transfer_path(tr, routes_.route(tr.src, tr.dst), topology_, scratch_);
  }
  void link(net::NetLinkId l) {
    K3SIM_ASSERT(l < link_.size(), "path link outside the network");
    if (link_[l] != kUnnumbered) {
      out_.put(link_[l]);
      return;
    }
    link_[l] = next_link_++;
    out_.put(link_[l]);
    out_.put(links_[l].capacity_bytes_per_s);
    out_.put(links_[l].latency_s);
    // Copy and host ports (past the topology's links) carry no link class.
    const auto& topo_links = topology_.links();
    out_.put(l < topo_links.size() ? static_cast<std::int32_t>(topo_links[l].link_class) : -1);
  }

 private:
  const topo::Topology& topology_;
  const std::vector<net::NetLink>& links_;
  CanonicalStream& out_;
  topo::RouteMemo routes_;
  std::vector<std::uint32_t> gpu_;
  std::vector<std::uint32_t> link_;
  std::uint32_t next_gpu_ = 0;
  std::uint32_t next_link_ = 0;
  std::vector<topo::LinkId> scratch_;  // a path that is not a route alone
};

void put_program(const workload::PassProgram& program, double comm_sm_slowdown, CanonicalStream& out) {
  out.put(std::string_view("k3sim replay v4"));
  out.put(comm_sm_slowdown);
  out.put(static_cast<std::uint64_t>(program.gpus.size()));
  out.put(static_cast<std::uint64_t>(program.threads.size()));
  for (const auto& thread : program.threads) {
    out.put(static_cast<std::int64_t>(thread.gpu_slot));
    out.put(static_cast<std::uint64_t>(thread.steps.size()));
    for (const auto& step : thread.steps) {
      out.put(static_cast<std::uint64_t>(step.index()));
      if (const auto* c = std::get_if<workload::ComputeStep>(&step)) {
        out.put(c->duration.ps());
        out.put(c->host.ps());
        out.put(c->category);
      } else if (const auto* issue = std::get_if<workload::IssueStep>(&step)) {
        out.put(static_cast<std::int64_t>(issue->collective));
        out.put(issue->host.ps());
        out.put(static_cast<std::int64_t>(issue->host_sync));
      } else {
        const auto& wait = std::get<workload::WaitStep>(step);
        out.put(static_cast<std::int64_t>(wait.collective));
        out.put(static_cast<std::int64_t>(wait.host_sync));
      }
    }
  }
  // A collective's kind names the exposed time it causes; its members and sizes enter with its transfers.
  out.put(static_cast<std::uint64_t>(program.collectives.size()));
  for (std::size_t c = 0; c < program.collectives.size(); ++c) {
    out.put(static_cast<std::int32_t>(program.collectives[c].kind));
    out.put(static_cast<std::uint64_t>(program.participants[c].size()));
    for (int t : program.participants[c]) out.put(static_cast<std::int64_t>(t));
  }
}

void put_transfer(const net::Transfer& tr, Renaming& names, CanonicalStream& out) {
  out.put(names.gpu(tr.src));
  out.put(names.gpu(tr.dst));
  out.put(tr.bytes);
  out.put(static_cast<std::uint8_t>((tr.barrier ? 1 : 0) | (tr.sm_copy ? 2 : 0) | static_cast<int>(tr.host) << 2));
  out.put(static_cast<std::uint64_t>(tr.after.size()));
  for (std::uint32_t before : tr.after) out.put(before);
  if (tr.barrier) return;  // no flow: the collective engine looks up no path
  const auto path = names.path(tr);
  out.put(static_cast<std::uint64_t>(path.size()));
  for (topo::LinkId l : path) names.link(l);
}

void put_collectives(const std::vector<net::CollectiveSpec>& specs, const topo::Topology& topology, Renaming& names,
                     CanonicalStream& out) {
  out.put(static_cast<std::uint64_t>(specs.size()));
  for (const auto& spec : specs) {
    const auto plan = net::expand_collective(spec, topology);
    out.put(static_cast<std::uint64_t>(plan.transfers.size()));
    for (const auto& tr : plan.transfers) put_transfer(tr, names, out);
  }
}

}  // namespace

ReplayFingerprint replay_fingerprint(const workload::PassProgram& program,
                                     const std::vector<std::vector<net::CollectiveSpec>>& specs,
                                     const topo::Topology& topology, const std::vector<net::NetLink>& links,
                                     double comm_sm_slowdown) {
  K3SIM_ASSERT(specs.size() == program.collectives.size(), "one spec list per collective");
  CanonicalStream out;
  put_program(program, comm_sm_slowdown, out);
  Renaming names(program.gpus, topology, links, out);
  for (const auto& group_specs : specs) put_collectives(group_specs, topology, names, out);
  return out.digest();
}

ReplayFingerprint collectives_fingerprint(const std::vector<net::CollectiveSpec>& specs, const topo::Topology& topology,
                                          const std::vector<net::NetLink>& links) {
  CanonicalStream out;
  out.put(std::string_view("k3sim collectives v1"));
  Renaming names({}, topology, links, out);
  put_collectives(specs, topology, names, out);
  return out.digest();
}

}  // namespace k3::exec
