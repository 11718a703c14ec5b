#pragma once
// NVLink's achievable rate and per-hop latency from NCCL collectives measured on the GPU itself (the `nccl` tables
// of the measured kernel tables, AIConfigurator's nccl-tests-style sweep over GPUs and message sizes), for the
// network model in place of one figure per link technology (net::register_link_figures).
//
// - Rate: nccl-tests' bus bandwidth of the ring collectives the network model's plans are made of, all-gather and
//   reduce-scatter ((n-1)/n x bytes / time, per GPU and direction), at the largest measured message and GPU count,
//   over the NVLink line rate per direction. The range spans those two and all-to-all at the same point. All-reduce
//   is left out: on NVSwitch systems NCCL reduces inside the switch (NVLS), which no ring over links expresses, and
//   its bus bandwidth exceeds the links' line rate.
// - Latency: a ring step is one GPU -> NVSwitch -> GPU transfer, two hops. On latency-bound messages (at most 4096
//   elements, where time is flat in size) each GPU count's fastest row is taken, and the least-squares slope of time
//   over ring steps (n - 1) is one step's latency; its intercept (the launch, the same for every size) is left to
//   the host timeline. The range spans all-gather's and reduce-scatter's fits.
// Only a GPU's own tables apply (the H800 borrows H100 kernel tables, but its NVLink is another part); a table
// without two GPU counts, or a rate above line rate, gives nothing for that figure.
#include "sim/cost/kernel_tables.hpp"
#include "sim/net/network_factory.hpp"
#include "topologies/topology.hpp"

namespace k3::cost {

net::MeasuredLinkRates nccl_link_rates(const KernelTables& tables, const topo::Topology& topology);
// The same from the shipped tables of the topology's GPU type; nothing where none ship.
net::MeasuredLinkRates shipped_nccl_link_rates(const topo::Topology& topology);

}  // namespace k3::cost
