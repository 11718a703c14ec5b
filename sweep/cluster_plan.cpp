#include "sweep/cluster_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/wall_clock.hpp"
#include "model/totals.hpp"
#include "sim/input/reliability_block.hpp"
#include "sim/reliability/goodput.hpp"

namespace k3::sweep {

using core::InputError;

std::vector<std::int64_t> cluster_ladder(std::int64_t first_nodes, std::int64_t last_nodes) {
  std::vector<std::int64_t> out;
  for (std::int64_t p = 1; p <= last_nodes; p *= 2) {
    for (const std::int64_t n : {p, p + p / 2}) {
      if (n >= first_nodes && n <= last_nodes && (out.empty() || n > out.back())) out.push_back(n);
    }
  }
  return out;
}

ClusterPlanResult plan_cluster_size(const std::string& yaml_text, const std::string& source,
                                    const std::vector<input::Override>& sets, const TrainingGoal& goal,
                                    const PlanOptions& options, const ResolveOnGpus& resolve, std::int64_t max_gpus) {
  if (!(goal.tokens > 0) || !std::isfinite(goal.tokens)) {
    throw InputError({"--tokens", "", 0}, fmt::format("{} tokens", goal.tokens), "a positive token count, e.g. 15e12");
  }
  if (!(goal.days > 0) || !std::isfinite(goal.days)) {
    throw InputError({"--days", "", 0}, fmt::format("{} days", goal.days), "a positive number of days, e.g. 60");
  }
  ClusterPlanResult out;
  out.goal = goal;
  out.required_tokens_per_s = goal.tokens / (goal.days * 86400.0);

  // The scenario as given fixes the batch, the model and the GPU type; its own size is only a start.
  const auto first = resolve(0);
  const auto& step = first.scenario;
  const double tokens_per_step = static_cast<double>(step.batch.global_batch_seqs) * static_cast<double>(step.batch.seq_len);
  out.goal_step_time_s = tokens_per_step / out.required_tokens_per_s;
  // No GPU computes faster than its highest dense peak: the floor of the ladder.
  const auto& gpu = first.topology->gpu_type();
  const double peak = std::max({gpu.bf16_flops_per_s, gpu.fp8_flops_per_s, gpu.mxfp8_flops_per_s, gpu.nvfp4_flops_per_s});
  const double flops_per_token = model::summarize(first.model, static_cast<double>(step.batch.seq_len)).training_flops_per_token;
  out.floor_gpus = static_cast<std::int64_t>(std::ceil(out.required_tokens_per_s * flops_per_token / peak));
  const int per_node = first.topology->gpus_per_node();
  out.gpus_per_node = per_node;
  const std::int64_t first_nodes = std::max<std::int64_t>(1, (out.floor_gpus + per_node - 1) / per_node);
  const auto ladder = cluster_ladder(first_nodes, std::max<std::int64_t>(1, max_gpus / per_node));
  PlanOptions o = options;
  o.goal_step_time_s = out.goal_step_time_s;
  out.sized_on_goodput = step.reliability.has_value();
  if (out.sized_on_goodput) {
    input::check_run_days(goal.days, "--days");
    if (step.reliability->straggler_gpu_speed) {
      throw InputError(step.reliability->block_where, "plan sizes stragglers by reliability.stragglers.slowdown",
                       "stragglers: {slowdown: F, ...}; `k3sim run --goodput` simulates the slowdown of a gpu_speed");
    }
  }
  for (const auto nodes : ladder) {
    const std::int64_t gpus = nodes * per_node;
    const auto inputs = resolve(gpus);
    auto size_sets = sets;
    size_sets.push_back({"cluster.nodes", std::to_string(nodes)});
    const double start = core::wall_clock_s();
    auto r = plan_layouts({yaml_text, source, size_sets, inputs}, o);
    ClusterSizeTried t;
    t.gpus = gpus;
    t.candidates = r.candidates;
    t.simulated = r.simulated;
    t.wall_s = core::wall_clock_s() - start;
    if (!r.ranked.empty() && r.ranked.front().feasible) {
      t.best_step_time_s = r.ranked.front().step_time_s;
      t.meets = *t.best_step_time_s <= out.goal_step_time_s;
    }
    if (t.meets && !out.ideal_gpus) out.ideal_gpus = gpus;
    if (t.meets && out.sized_on_goodput) {
      // Goodput grows slower than the cluster (more GPUs fail more often), so the goal may need a larger size.
      const auto facts = input::run_facts(inputs.scenario, inputs.model, static_cast<double>(gpus), per_node,
                                          *t.best_step_time_s, tokens_per_step);
      const auto g = reliability::simulate_goodput(*inputs.scenario.reliability, facts,
                                                   {goal.days, kPlanGoodputReplications, inputs.scenario.seed});
      t.goodput_tokens_per_s = g.goodput_tokens_per_s.p50;
      t.effective_training_time = g.ettr.p50;
      t.meets_goodput = *t.goodput_tokens_per_s >= out.required_tokens_per_s;
    }
    out.tried.push_back(t);
    if (out.sized_on_goodput ? t.meets_goodput : t.meets) {
      out.chosen = std::move(r);
      break;
    }
  }
  return out;
}

nlohmann::json cluster_plan_to_json(const ClusterPlanResult& r, PlanObjective objective) {
  using nlohmann::json;
  json j;
  j["tokens"] = r.goal.tokens;
  j["days"] = r.goal.days;
  j["required_tokens_per_s"] = r.required_tokens_per_s;
  j["goal_step_time_s"] = r.goal_step_time_s;
  j["floor_gpus"] = r.floor_gpus;
  json tried = json::array();
  for (const auto& t : r.tried) {
    json e = {{"gpus", t.gpus}, {"candidates", t.candidates}, {"simulated", t.simulated}, {"wall_s", t.wall_s},
              {"meets", t.meets}};
    if (t.best_step_time_s) e["best_step_time_s"] = *t.best_step_time_s;
    if (t.goodput_tokens_per_s) {
      e["goodput_tokens_per_s_p50"] = *t.goodput_tokens_per_s;
      e["effective_training_time_p50"] = *t.effective_training_time;
      e["meets_goodput"] = t.meets_goodput;
    }
    tried.push_back(e);
  }
  j["sizes_tried"] = tried;
  j["sized_on_goodput"] = r.sized_on_goodput;
  j["ideal_gpus"] = r.ideal_gpus ? json(*r.ideal_gpus) : json(nullptr);
  if (r.chosen) {
    j["gpus"] = r.chosen->gpus;
    const auto& best = r.chosen->ranked.front();
    j["days_needed"] = r.goal.tokens / best.tokens_per_s / 86400.0;
    j["plan"] = plan_to_json(*r.chosen, objective);
  } else {
    j["gpus"] = nullptr;
  }
  return j;
}

}  // namespace k3::sweep
