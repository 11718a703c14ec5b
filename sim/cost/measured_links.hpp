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
#include <optional>

#include "sim/cost/kernel_tables.hpp"
#include "sim/net/network_factory.hpp"
#include "topologies/topology.hpp"

namespace k3::cost {

net::MeasuredLinkRates nccl_link_rates(const KernelTables& tables, const topo::Topology& topology);
// The same from the shipped tables of the topology's GPU type; nothing where none ship.
net::MeasuredLinkRates shipped_nccl_link_rates(const topo::Topology& topology);

// The share of NVLink line rate DeepEP's SM-driven copies reach (the copy port of net::LinkEfficiency), from DeepEP
// normal mode measured inside one node of the GPU itself (the `deepep_normal_*` tables):
// - per model shape of the table (hidden, top-k, experts), dispatch and combine each at the largest measured tokens
//   per rank and at `sms` SMs (clamped to the measured 4..24; DeepEP's default is 20), a rate is the wire bytes over
//   the transmit time, over the NVLink line rate per direction;
// - wire bytes: the tokens a rank receives, R x tokens x (1 - C(E - E/R, k) / C(E, k)) for R GPUs, E experts and
//   top-k (the benchmark draws each token's experts uniformly; a token is sent once to each GPU holding one of its
//   experts), times hidden x bytes per element (dispatch: FP8 and one FP32 scale per 128, combine: BF16), times
//   (R - 1) / R (a rank's own tokens do not cross NVLink); R is the GPUs the collector ran on (one node: 8, or the
//   4 of a GB200/GB300 compute tray);
// - the figure is the median over shapes and both directions, its range their least and greatest.
// Only the GPU's own tables apply (as nccl_link_rates); nothing where there are none or a rate exceeds line rate.
// SMs DeepEP's kernels run on unless told (deepseek-ai/DeepEP deep_ep/buffer.py: `Buffer.num_sms = 20`; Megatron-LM's
// moe_deepep_num_sms defaults to the same).
inline constexpr int kDeepepDefaultSms = 20;
std::optional<net::MeasuredLinkRate> deepep_copy_rate(const KernelTables& tables, const topo::Topology& topology, int sms);
std::optional<net::MeasuredLinkRate> shipped_deepep_copy_rate(const topo::Topology& topology, int sms);

}  // namespace k3::cost
