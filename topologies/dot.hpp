#pragma once
// Graphviz export of a topology (boost::write_graphviz): vertices labelled by kind and node, each directed
// link labelled by its class and capacity in GB/s.
#include <ostream>

#include "topologies/topology.hpp"

namespace k3::topo {

void write_dot(std::ostream& os, const Topology& t);

}  // namespace k3::topo
