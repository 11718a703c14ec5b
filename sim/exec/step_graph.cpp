#include "sim/exec/step_graph.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace k3::exec {

namespace {

constexpr const char* kSchema = "k3sim-step-graph/1";

struct KindName {
  GraphNodeKind kind;
  std::string_view name;
};
constexpr KindName kKinds[] = {{GraphNodeKind::compute, "COMP_NODE"},
                               {GraphNodeKind::send, "COMM_SEND_NODE"},
                               {GraphNodeKind::collective, "COMM_COLL_NODE"}};

// Reads one value of the graph file with the JSON pointer of its place for errors.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& where, const std::string& problem, const std::string& allowed) const {
    throw core::InputError({source_, where, 0}, problem, allowed);
  }
  const nlohmann::json& field(const nlohmann::json& object, const std::string& where, const char* key) const {
    if (!object.is_object() || !object.contains(key)) fail(where + "/" + key, "missing", "see `k3sim run --export-graph`");
    return object.at(key);
  }
  std::string text(const nlohmann::json& object, const std::string& where, const char* key) const {
    const auto& v = field(object, where, key);
    if (!v.is_string()) fail(where + "/" + key, "not a string", "a string");
    return v.get<std::string>();
  }
  std::int64_t integer(const nlohmann::json& object, const std::string& where, const char* key, std::int64_t least) const {
    const auto& v = field(object, where, key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < least)
      fail(where + "/" + key, "not an integer of at least " + std::to_string(least), fmt::format("an integer >= {}", least));
    return v.get<std::int64_t>();
  }
  double number(const nlohmann::json& object, const std::string& where, const char* key) const {
    const auto& v = field(object, where, key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      fail(where + "/" + key, "not a finite number >= 0", "a number of bytes >= 0");
    return v.get<double>();
  }

 private:
  const std::string& source_;
};

net::CollectiveSpec read_collective(const Reader& r, const nlohmann::json& j, const std::string& where) {
  net::CollectiveSpec s;
  const auto op = net::parse_collective_op(r.text(j, where, "op"));
  if (!op) r.fail(where + "/op", "unknown collective", "allreduce, reducescatter, allgather, alltoall, sendrecv");
  s.op = *op;
  const auto algorithm = net::parse_collective_algorithm(r.text(j, where, "algorithm"));
  if (!algorithm) r.fail(where + "/algorithm", "unknown algorithm", "ring, hierarchical, flat, deepep, deepep_ll");
  s.algorithm = *algorithm;
  const auto& ranks = r.field(j, where, "ranks");
  if (!ranks.is_array() || ranks.empty()) r.fail(where + "/ranks", "not a list of GPUs", "a non-empty list of GPU indices");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (!ranks[i].is_number_unsigned()) r.fail(fmt::format("{}/ranks/{}", where, i), "not a GPU index", "an integer >= 0");
    s.ranks.push_back(ranks[i].get<topo::GpuId>());
  }
  s.bytes = r.number(j, where, "bytes");
  return s;
}

}  // namespace

std::string_view to_string(GraphNodeKind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "?";
}

GraphNodeId StepGraph::add(GraphNode node) {
  for (GraphNodeId d : node.deps) K3SIM_ASSERT(d < nodes.size(), "a graph node depends on a node not added yet");
  nodes.push_back(std::move(node));
  return static_cast<GraphNodeId>(nodes.size() - 1);
}

std::vector<GraphNodeId> StepGraph::split(GraphNodeId id, std::span<const double> fractions) {
  K3SIM_ASSERT(id < nodes.size() && nodes[id].kind == GraphNodeKind::compute && !fractions.empty(),
               "only a compute node splits");
  const core::SimTime whole = nodes[id].duration;
  std::vector<GraphNodeId> parts;
  core::SimTime given;
  double cumulative = 0;
  std::vector<GraphNodeId> deps = nodes[id].deps;
  for (std::size_t i = 0; i + 1 < fractions.size(); ++i) {
    cumulative += fractions[i];
    // Cut at the cumulative share, so that the parts add up to the whole to the picosecond.
    const core::SimTime at = core::SimTime::from_ps(
        static_cast<core::SimTime::Rep>(std::llround(static_cast<double>(whole.ps()) * std::min(1.0, cumulative))));
    GraphNode part = nodes[id];
    part.name = fmt::format("{} (part {} of {})", nodes[id].name, i + 1, fractions.size());
    part.duration = at - given;
    part.deps = deps;
    given = at;
    deps = {add(std::move(part))};
    parts.push_back(deps.front());
  }
  nodes[id].deps = deps;
  nodes[id].duration = whole - given;
  if (fractions.size() > 1) nodes[id].name += fmt::format(" (part {} of {})", fractions.size(), fractions.size());
  parts.push_back(id);
  return parts;
}

nlohmann::json graph_to_json(const StepGraph& graph) {
  nlohmann::json nodes = nlohmann::json::array();
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const auto& n = graph.nodes[i];
    nlohmann::json colls = nlohmann::json::array();
    for (const auto& c : n.collectives) {
      K3SIM_ASSERT(c.byte_matrix.empty() && c.node_bytes.empty(), "a step graph collective with a byte matrix");
      colls.push_back({{"op", net::to_string(c.op)}, {"algorithm", net::to_string(c.algorithm)}, {"ranks", c.ranks},
                       {"bytes", c.bytes}});
    }
    nodes.push_back({{"id", i},
                     {"kind", to_string(n.kind)},
                     {"rank", n.rank},
                     {"stream", n.stream},
                     {"name", n.name},
                     {"duration_ps", n.duration.ps()},
                     {"collectives", colls},
                     {"deps", n.deps}});
    if (!n.program.empty()) nodes.back()["program"] = n.program;
    if (n.sms > 0) nodes.back()["sms"] = n.sms;
  }
  return {{"schema", kSchema}, {"nodes", nodes}};
}

StepGraph graph_from_json(const nlohmann::json& json, const std::string& source) {
  const Reader r(source);
  if (r.text(json, "", "schema") != kSchema) r.fail("/schema", "not a step graph of this version", kSchema);
  const auto& nodes = r.field(json, "", "nodes");
  if (!nodes.is_array()) r.fail("/nodes", "not a list", "a list of nodes");
  StepGraph g;
  g.nodes.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = fmt::format("/nodes/{}", i);
    const auto& j = nodes[i];
    if (r.integer(j, where, "id", 0) != static_cast<std::int64_t>(i)) r.fail(where + "/id", "out of order", std::to_string(i));
    GraphNode n;
    const std::string kind = r.text(j, where, "kind");
    bool known = false;
    for (const auto& k : kKinds) {
      if (k.name == kind) {
        n.kind = k.kind;
        known = true;
      }
    }
    if (!known) r.fail(where + "/kind", "unknown node kind '" + kind + "'", "COMP_NODE, COMM_SEND_NODE, COMM_COLL_NODE");
    n.rank = static_cast<int>(r.integer(j, where, "rank", 0));
    n.stream = r.text(j, where, "stream");
    n.name = r.text(j, where, "name");
    n.duration = core::SimTime::from_ps(r.integer(j, where, "duration_ps", 0));
    const auto& colls = r.field(j, where, "collectives");
    if (!colls.is_array()) r.fail(where + "/collectives", "not a list", "a list of collectives");
    for (std::size_t c = 0; c < colls.size(); ++c) {
      n.collectives.push_back(read_collective(r, colls[c], fmt::format("{}/collectives/{}", where, c)));
    }
    const auto& deps = r.field(j, where, "deps");
    if (!deps.is_array()) r.fail(where + "/deps", "not a list", "a list of node ids");
    for (std::size_t d = 0; d < deps.size(); ++d) {
      if (!deps[d].is_number_unsigned() || deps[d].get<std::uint64_t>() >= nodes.size() || deps[d].get<std::uint64_t>() == i)
        r.fail(fmt::format("{}/deps/{}", where, d), "not another node of the graph",
               fmt::format("a node id 0..{} other than {}", nodes.size() - 1, i));
      n.deps.push_back(static_cast<GraphNodeId>(deps[d].get<std::uint64_t>()));
    }
    if (j.contains("program")) n.program = r.text(j, where, "program");
    if (j.contains("sms")) n.sms = static_cast<int>(r.integer(j, where, "sms", 0));
    g.nodes.push_back(std::move(n));
  }
  return g;
}

}  // namespace k3::exec
