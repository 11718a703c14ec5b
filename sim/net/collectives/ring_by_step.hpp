#pragma once
// A ring collective (all-reduce, reduce-scatter, all-gather) costed by its structure. Every step of a ring sends
// one chunk from each member to the next, so each step puts the same bytes on the same links: the collective
// takes its step count times one step. One step is n flows where the whole transfer DAG is n x steps (the DP
// gradient reduction over 8,192 ranks: 134 M transfers, quadratic in the GPU count), and it is simulated on the
// network model itself, so the step's own contention (hops sharing an uplink) is that model's.
#include <cstddef>
#include <vector>

#include "sim/net/collectives/collective_plan.hpp"

namespace k3::net {

// True for the collectives ring_step expands: a ring all-reduce, reduce-scatter or all-gather of two or more ranks.
bool is_ring(const CollectiveSpec& spec);

struct RingStep {
  CollectivePlan plan;  // one step: member i sends one chunk to member i + 1, nothing waits
  int steps = 0;        // all-reduce 2(n-1), reduce-scatter and all-gather n-1
};

// One step of `spec` (is_ring) on `topology`; the ranks are checked as expand_collective checks them.
RingStep ring_step(const CollectiveSpec& spec, const topo::Topology& topology);

}  // namespace k3::net
