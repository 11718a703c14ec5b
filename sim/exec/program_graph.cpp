#include "sim/exec/program_graph.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace k3::exec {

nlohmann::json program_to_json(const workload::PassProgram& program, int gpu_slot) {
  K3SIM_ASSERT(gpu_slot >= 0 && static_cast<std::size_t>(gpu_slot) < program.gpus.size(), "no such GPU in the pass");
  nlohmann::json nodes = nlohmann::json::array();
  std::vector<std::int64_t> collective_node(program.collectives.size(), -1);
  for (std::size_t t = 0; t < program.threads.size(); ++t) {
    const auto& thread = program.threads[t];
    if (thread.gpu_slot != gpu_slot) continue;
    std::int64_t previous = -1;
    std::vector<std::int64_t> waits;  // collectives the next step waits for
    bool host_waits = false;
    const auto add = [&](nlohmann::json node) {
      nlohmann::json deps = nlohmann::json::array();
      if (previous >= 0) deps.push_back(previous);
      for (auto w : waits) deps.push_back(w);
      node["id"] = nodes.size();
      node["thread"] = t;
      node["deps"] = deps;
      if (host_waits) node["after_host_sync"] = true;
      waits.clear();
      host_waits = false;
      previous = static_cast<std::int64_t>(nodes.size());
      nodes.push_back(std::move(node));
    };
    for (const auto& step : thread.steps) {
      if (const auto* c = std::get_if<workload::ComputeStep>(&step)) {
        add({{"kind", "COMP_NODE"}, {"stream", "compute"}, {"name", std::string(c->category)},
             {"duration_ps", c->duration.ps()}, {"host_ps", c->host.ps()}, {"measured", c->measured}});
      } else if (const auto* is = std::get_if<workload::IssueStep>(&step)) {
        const auto& call = program.collectives[static_cast<std::size_t>(is->collective)];
        add({{"kind", "COMM_COLL_NODE"}, {"stream", workload::to_string(call.kind)}, {"name", call.label},
             {"bytes_per_rank", call.bytes_per_rank}, {"members", call.gpus.size()}, {"host_ps", is->host.ps()},
             {"host_sync", is->host_sync}});
        collective_node[static_cast<std::size_t>(is->collective)] = previous;
      } else {
        const auto& w = std::get<workload::WaitStep>(step);
        const auto node = collective_node[static_cast<std::size_t>(w.collective)];
        if (node >= 0) waits.push_back(node);  // issued on this GPU (by this thread or its F&B partner)
        host_waits = host_waits || w.host_sync;
      }
    }
  }
  return {{"gpu", program.gpus[static_cast<std::size_t>(gpu_slot)]}, {"nodes", nodes}};
}

}  // namespace k3::exec
