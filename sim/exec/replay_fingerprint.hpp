#pragma once
// What a pass replayed flow by flow depends on, up to a renaming of GPUs and links: two passes with the same
// fingerprint run the same simulation event for event, so one can stand for the other. That is the case of
// the same stage placed on another pipeline rank of a symmetric fabric (DualPipe on PP 8 and DualPipeV on
// PP 4 run the same stages on different GPUs), which an exact comparison of GPU ids would miss.
//
// The canonical form: the program's threads (GPU slot, each step: compute duration and category, or the
// collective issued or waited for) and each collective's participants, then every collective expanded as the
// collective engine expands it (net::expand_collective on PassRunner::specs_of), transfer by transfer: its
// ends, bytes, dependencies and the links of its path. GPUs are numbered as the program lists them, then in
// order of first appearance; links in order of first appearance, each with its capacity, latency and link
// class when first seen. The flow network numbers its links the same way (in the order flows first cross
// them) and breaks ties by those numbers, so an isomorphic pass solves the same systems in the same order.
// The form is hashed with XXH3-128 (xxhash), not stored: a K3 F&B pass expands into ~3M transfers.
#include <compare>
#include <cstdint>
#include <vector>

#include "sim/net/collectives/collective_spec.hpp"
#include "sim/net/network_model.hpp"
#include "sim/workload/pass_program.hpp"
#include "topologies/topology.hpp"

namespace k3::exec {

struct ReplayFingerprint {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  auto operator<=>(const ReplayFingerprint&) const = default;
};

// `specs[c]`: collective c of `program` as the runner launches it (one spec per independent group); `links`:
// the network links the runner builds on `topology` (make_net_links: the topology's links, then one SM copy
// port per GPU). Throws core::InputError for a collective the engine would refuse.
ReplayFingerprint replay_fingerprint(const workload::PassProgram& program,
                                     const std::vector<std::vector<net::CollectiveSpec>>& specs,
                                     const topo::Topology& topology, const std::vector<net::NetLink>& links,
                                     double comm_sm_slowdown);

// Collectives started together on an idle network (PassRunner::concurrent_time): the same canonical form of
// their transfers, GPUs numbered in order of first appearance. A collective run alone on other GPUs of a
// symmetric fabric has the same fingerprint.
ReplayFingerprint collectives_fingerprint(const std::vector<net::CollectiveSpec>& specs, const topo::Topology& topology,
                                          const std::vector<net::NetLink>& links);

}  // namespace k3::exec
