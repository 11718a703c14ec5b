#include "topologies/dot.hpp"

#include <boost/graph/graphviz.hpp>
#include <fmt/format.h>

namespace k3::topo {

void write_dot(std::ostream& os, const Topology& t) {
  const auto& g = t.graph();
  const auto vertex_label = [&](std::ostream& out, Graph::vertex_descriptor v) {
    const auto& info = t.vertex(static_cast<VertexId>(v));
    const std::string node = info.node >= 0 ? fmt::format(" n{}", info.node) : std::string();
    out << fmt::format("[label=\"{} {}{}\"]", to_string(info.kind), v, node);
  };
  const auto edge_label = [&](std::ostream& out, Graph::edge_descriptor e) {
    const auto& l = t.links()[g[e].link];
    out << fmt::format("[label=\"{} {:.0f} GB/s\"]", to_string(l.link_class), l.capacity_bytes_per_s / core::kGB);
  };
  boost::write_graphviz(os, g, vertex_label, edge_label);
}

}  // namespace k3::topo
