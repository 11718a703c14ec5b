#include "sweep/layout_space.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "sim/parallel/schedule_registry.hpp"

namespace k3::sweep {

namespace {

std::vector<std::string> powers_of_two_up_to(std::int64_t most, std::int64_t dividing) {
  std::vector<std::string> out;
  for (std::int64_t v = 1; v <= most; v *= 2) {
    if (dividing % v == 0) out.push_back(std::to_string(v));
  }
  return out;
}

}  // namespace

std::vector<GridAxis> default_layout_axes(const model::ModelSpec& spec, std::int64_t gpus, int gpus_per_node) {
  std::vector<GridAxis> axes;
  axes.push_back({"parallel.tp", powers_of_two_up_to(std::min<std::int64_t>(gpus_per_node, gpus), gpus_per_node)});
  // A stage holds at least one decoder layer; the embedding and the head ride with the first and last.
  const auto layers = std::max<std::int64_t>(1, static_cast<std::int64_t>(spec.layers.size()));
  axes.push_back({"parallel.pp", powers_of_two_up_to(std::min(layers, gpus), gpus)});
  if (spec.has_moe()) {  // a dense model has no EP to search
    axes.push_back({"parallel.ep", powers_of_two_up_to(std::min<std::int64_t>(spec.moe.routed_experts, gpus), gpus)});
  }
  std::vector<std::string> schedules;
  for (const auto* s : parallel::pipeline_schedules()) schedules.emplace_back(s->name);
  axes.push_back({"parallel.schedule", schedules});
  axes.push_back({"parallel.vpp", {"1", "2"}});  // 2 only where the schedule has virtual stages
  axes.push_back({"parallel.zero", {"1", "2"}});
  axes.push_back({"batch.micro_batch_seqs", {"1", "2", "4"}});
  axes.push_back({"recompute", {"none", "selective", "full"}});
  if (spec.has_moe()) axes.push_back({"communication.alltoall", {"flat", "deepep"}});
  return axes;
}

std::vector<GridAxis> plan_axes(std::vector<GridAxis> defaults, const std::vector<input::Override>& fixes,
                                const std::vector<GridAxis>& axes) {
  const auto fixed = [&](const std::string& key) {
    return std::any_of(fixes.begin(), fixes.end(), [&](const input::Override& f) { return f.key == key; });
  };
  std::vector<GridAxis> out;
  for (auto& d : defaults) {
    const bool replaced = std::any_of(axes.begin(), axes.end(), [&](const GridAxis& a) { return a.key == d.key; });
    if (!fixed(d.key) && !replaced) out.push_back(std::move(d));
  }
  for (const auto& a : axes) {
    if (fixed(a.key)) {
      throw core::InputError({"--fix", a.key, 0}, "the key is both fixed (--fix) and searched (--grid)",
                             "one of --fix " + a.key + "=... or --grid " + a.key + "=...");
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace k3::sweep
