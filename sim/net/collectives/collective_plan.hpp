#pragma once
// A collective algorithm expanded into transfers between GPUs with dependencies: a transfer starts when
// every transfer it waits for has finished. Rings, phases, pipelines and all-to-alls are all such DAGs,
// so one runner (collective_engine.hpp) executes every algorithm on either network model.
#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <vector>

#include "sim/net/collectives/collective_spec.hpp"

namespace k3::net {

struct Transfer {
  topo::GpuId src = 0, dst = 0;
  core::Bytes bytes = 0;
  bool barrier = false;              // no data: completes as soon as its dependencies have
  // Indices of transfers that must finish first (all smaller). Inline for up to two: a ring step waits for
  // two, a DeepEP copy for one, and an all-to-all expands into hundreds of thousands of transfers.
  boost::container::small_vector<std::uint32_t, 2> after;
  bool sm_copy = false;              // moved by the sender's SMs over NVLink: crosses its copy port too
  HostCopy host = HostCopy::none;    // not none: src == dst, and the flow crosses only that GPU's host port
};

struct CollectivePlan {
  std::vector<Transfer> transfers;
  core::Bytes reported_bytes = 0;  // the nccl-tests size of the collective
  std::size_t flow_count() const;  // transfers that move data between two GPUs
};

// Throws core::InputError unless `spec`'s ranks are distinct GPUs of `topology` and its bytes are >= 0.
void check_collective(const CollectiveSpec& spec, const topo::Topology& topology);

// Expands `spec` on `topology`. Throws core::InputError when the spec does not fit (unknown GPU, a
// matrix of the wrong size, an algorithm the operation does not have, ranks not forming whole nodes
// where the algorithm needs them).
CollectivePlan expand_collective(const CollectiveSpec& spec, const topo::Topology& topology);

}  // namespace k3::net
