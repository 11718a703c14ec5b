#include "results/step_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/quantity.hpp"
#include "results/band_output.hpp"
#include "results/trace_tracks.hpp"

namespace k3::results {

namespace {

nlohmann::json layer_pass_json(const train::LayerPassResult& p) {
  return {{"compute_s", p.compute_total_s()},
          {"compute_by_category_s", p.compute_s},
          {"exposed_communication_s", p.exposed_total_s()},
          {"exposed_by_collective_s", p.exposed_s},
          {"bytes_by_link_class", p.bytes}};
}

}  // namespace

nlohmann::json step_to_json(const train::StepResult& r) {
  nlohmann::json j;
  j["scenario"] = r.scenario;
  j["model"] = r.model;
  j["topology"] = r.topology;
  j["gpus"] = r.gpus;
  j["seed"] = r.seed;
  j["version"] = r.version;
  j["network_model"] = r.network_model;
  j["microbatches_per_pipeline"] = r.microbatches;
  j["step_time_s"] = r.step_time_s;
  j["tokens_per_step"] = r.tokens_per_step;
  j["tokens_per_s"] = r.tokens_per_s;
  j["model_flops_per_step"] = r.model_flops_per_step;
  j["tflops_per_gpu"] = r.tflops_per_gpu;
  j["mfu"] = r.mfu;
  j["mfu_fp8"] = r.mfu_fp8;
  j["peak_flops_per_s_bf16"] = r.peak_flops_per_s_bf16;
  j["peak_flops_per_s_fp8"] = r.peak_flops_per_s_fp8;
  j["gpu_hours_per_trillion_tokens"] = r.gpu_hours_per_trillion_tokens;
  if (r.cost_per_trillion_tokens > 0) j["cost_per_trillion_tokens_usd"] = r.cost_per_trillion_tokens;
  auto& b = j["breakdown"] = nlohmann::json::array();
  for (const auto& s : r.breakdown) b.push_back({{"name", s.name}, {"category", s.category}, {"seconds", s.seconds}});
  // Per compute category: its seconds, those priced from measured kernel latencies, and their share.
  auto& priced = j["compute_priced_from_measurements"] = nlohmann::json::object();
  for (const auto& s : r.breakdown) {
    if (s.category != "compute") continue;
    const std::string cat = train::StepResult::compute_category_of(s);
    const double measured = r.measured_seconds_of(s);
    priced[cat] = {{"seconds", s.seconds}, {"measured_s", measured}, {"measured_share", s.seconds > 0 ? measured / s.seconds : 0.0}};
  }
  j["measured_compute_share"] = r.measured_compute_share();
  auto& m = j["memory_per_gpu"] = nlohmann::json::array();
  for (const auto& s : r.memory) m.push_back({{"name", s.name}, {"bytes", s.bytes}});
  j["memory_bytes_per_gpu"] = train::memory_total(r.memory);
  j["hbm_bytes"] = r.hbm_bytes;
  j["fits_in_memory"] = r.fits_in_memory;
  auto& l = j["links"] = nlohmann::json::array();
  for (const auto& c : r.links) {
    l.push_back({{"link_class", c.link_class}, {"bytes", c.bytes}, {"mean_utilisation", c.mean_utilisation}});
  }
  if (!r.expert_load_max_over_mean.empty()) {
    j["expert_load"] = {{"max_over_mean_per_gpu", r.expert_load_max_over_mean},
                        {"noise_floor_max_over_mean", r.expert_load_noise_floor_max_over_mean},
                        {"sample_tokens_per_step", r.expert_load_sample_tokens_per_step}};
  }
  j["assumptions"] = r.assumptions;
  j["provenance"] = provenance_json(r.provenance);
  j["simulated_events"] = r.simulated_events;
  const auto& L = r.layout;
  j["layout"] = {{"tp", L.tp}, {"pp", L.pp}, {"vpp", L.vpp}, {"ep", L.ep}, {"cp", L.cp}, {"dp", L.dp},
                 {"expert_dp", L.expert_dp}, {"etp", L.etp}, {"zero_stage", L.zero_stage}, {"schedule", L.schedule},
                 {"micro_batch_seqs", L.micro_batch_seqs}, {"seq_len", L.seq_len}, {"recompute", L.recompute},
                 {"gpus_per_nvlink_domain", L.gpus_per_domain}};
  auto& placement = j["layout"]["placement"] = nlohmann::json::array();
  for (const auto& p : L.placement) {
    placement.push_back({{"group", p.group}, {"size", p.size}, {"min_nvlink_domains", p.min_domains},
                         {"max_nvlink_domains", p.max_domains}});
  }
  const auto& sym = r.symmetry;
  j["symmetry_check"] = {{"ran", sym.ran},
                         {"scope", sym.scope},
                         {"block_s", sym.block_s},
                         {"fabric_s", sym.fabric_s},
                         {"blocks", sym.blocks},
                         {"sharing_blocks", sym.sharing_blocks},
                         {"difference", sym.difference()},
                         {"full_fabric", sym.full_fabric}};
  if (const auto& g = r.gpu_speed; g.modelled) {
    j["gpu_speed"] = {{"spread", g.spread}, {"listed_gpus", g.listed}, {"gpus_in_ranges", g.in_ranges}, {"slowest_gpu", g.slowest_gpu},
                      {"slowest_speed", g.slowest_speed}, {"rank_slowest_speed", g.rank_slowest}};
  }
  auto& layers = j["layers"] = nlohmann::json::array();
  for (const auto& k : r.layers) {
    layers.push_back({{"kind", k.kind}, {"count", k.count}, {"forward", layer_pass_json(k.forward)},
                      {"backward", layer_pass_json(k.backward)}});
  }
  return j;
}

std::string step_to_text(const train::StepResult& r) {
  std::string out;
  out += fmt::format("{}: {} on {} ({} GPUs), {} network model\n", r.scenario, r.model, r.topology, r.gpus,
                     r.network_model);
  out += fmt::format("  step time            {:>12.3f} s\n", r.step_time_s);
  out += fmt::format("  tokens per step      {:>12} tokens\n", core::format_count(r.tokens_per_step));
  out += fmt::format("  throughput           {:>12} tokens/s\n", core::format_count(r.tokens_per_s));
  out += fmt::format("  model FLOPs per GPU  {:>12.1f} TFLOP/s (causal attention, no recomputation counted)\n",
                     r.tflops_per_gpu);
  out += fmt::format("  MFU                  {:>12.1f} % of {:.0f} TFLOP/s BF16", 100 * r.mfu,
                     r.peak_flops_per_s_bf16 / 1e12);
  if (r.mfu_fp8 > 0) out += fmt::format(" ({:.1f} % of {:.0f} TFLOP/s FP8)", 100 * r.mfu_fp8, r.peak_flops_per_s_fp8 / 1e12);
  out += "\n";
  out += fmt::format("  GPU-hours per 1T tokens {:>9} GPU-h", core::format_count(r.gpu_hours_per_trillion_tokens));
  if (r.cost_per_trillion_tokens > 0) out += fmt::format(" (USD {})", core::format_count(r.cost_per_trillion_tokens));
  out += fmt::format("\n  micro-batches per pipeline {}\n", r.microbatches);
  const auto& L = r.layout;
  out += fmt::format("  layout               TP {} x PP {}{} x DP {} (CP {}), EP {} x expert DP {}{}, ZeRO-{}, {} schedule, "
                     "recompute {}\n",
                     L.tp, L.pp, L.vpp > 1 ? fmt::format(" (vpp {})", L.vpp) : std::string(), L.dp, L.cp, L.ep,
                     L.expert_dp, L.etp > 1 ? fmt::format(" (ETP {})", L.etp) : std::string(), L.zero_stage,
                     L.schedule, L.recompute);
  if (!L.placement.empty()) {
    out += fmt::format("  placement            NVLink domains ({} GPUs each) one group spans:", L.gpus_per_domain);
    for (const auto& p : L.placement) {
      out += fmt::format(" {} {}: {}", p.group, p.size,
                         p.min_domains == p.max_domains ? fmt::format("{}", p.max_domains)
                                                        : fmt::format("{}-{}", p.min_domains, p.max_domains));
      out += &p == &L.placement.back() ? "" : ";";
    }
    out += "\n";
  }
  if (r.symmetry.ran) {
    const auto& sym = r.symmetry;
    out += fmt::format("  symmetry check       first dispatch all-to-all {:.1f} us alone in its block, {:.1f} us beside "
                       "the {} of {} other blocks that share its links ({:+.1f} %, analytical network): {}\n",
                       sym.block_s * 1e6, sym.fabric_s * 1e6, sym.sharing_blocks, sym.blocks - 1, 100 * sym.difference(),
                       sym.full_fabric ? (sym.scope == "fabric" ? "all-to-alls over the whole fabric (network_scope: fabric)"
                                                                : "past 2 %, all-to-alls over the whole fabric")
                                       : "within 2 %, the block alone (symmetry shortcut)");
  }
  if (const auto& g = r.gpu_speed; g.modelled) {
    std::string ranks;
    for (std::size_t k = 0; k < g.rank_slowest.size(); ++k) ranks += fmt::format("{}{:.3f}", k == 0 ? "" : " ", g.rank_slowest[k]);
    std::string set;
    if (g.spread > 0) set = fmt::format("spread {:.1f} % of the median GPU (Sinha et al., SC22, measured 8 % on average)", 100 * g.spread);
    if (g.in_ranges > 0) set += fmt::format("{}{} GPUs set by range", set.empty() ? "" : ", ", core::format_count(static_cast<double>(g.in_ranges)));
    if (g.listed > 0) set += fmt::format("{}{} GPU{} set by hand", set.empty() ? "" : ", ", g.listed, g.listed == 1 ? "" : "s");
    out += fmt::format("  GPU speeds           {}; slowest GPU {} at {:.3f}x the kernel tables' GPU; each pipeline rank runs "
                       "its stage's slowest block (its slowest GPU, rank by rank: {})\n",
                       set, g.slowest_gpu, g.slowest_speed, ranks);
  }
  out += "\n";
  out += "  time breakdown on the critical pipeline rank (measured: share of the compute priced from measured kernels)\n";
  for (const auto& s : r.breakdown) {
    std::string measured;
    if (s.category == "compute" && s.seconds > 0) {
      measured = fmt::format("  measured {:>5.1f} %", 100 * r.measured_seconds_of(s) / s.seconds);
    }
    out += fmt::format("    {:<44} {:>10.3f} s {:>6.1f} %{}\n", s.name, s.seconds, 100 * s.seconds / r.step_time_s, measured);
  }
  out += fmt::format("    {:<44} {:>12.1f} %  (kernel tables or a calibration profile; the rest by the roofline)\n",
                     "compute priced from measured kernels", 100 * r.measured_compute_share());
  const double used = train::memory_total(r.memory);
  out += fmt::format("\n  memory per GPU (most loaded pipeline rank), HBM {}\n", core::format_bytes(r.hbm_bytes));
  for (const auto& s : r.memory) out += fmt::format("    {:<44} {:>12}\n", s.name, core::format_bytes(s.bytes));
  out += fmt::format("    {:<44} {:>12}  {}\n", "total", core::format_bytes(used),
                     r.fits_in_memory ? "fits" : "DOES NOT FIT: exceeds HBM");
  if (!r.layers.empty()) {
    out += "\n  per decoder layer, one micro-batch (simulated alone on the step's network and group)\n";
    out += fmt::format("    {:<14} {:>6} {:>13} {:>13} {:>13} {:>13} {:>12}\n", "layer kind", "layers", "fwd compute",
                       "fwd exposed", "bwd compute", "bwd exposed", "fwd+bwd NIC");
    for (const auto& k : r.layers) {
      const auto nic = [](const train::LayerPassResult& p) {
        const auto it = p.bytes.find("nic");
        return it == p.bytes.end() ? 0.0 : it->second;
      };
      out += fmt::format("    {:<14} {:>6} {:>10.3f} ms {:>10.3f} ms {:>10.3f} ms {:>10.3f} ms {:>12}\n", k.kind,
                         k.count, 1e3 * k.forward.compute_total_s(), 1e3 * k.forward.exposed_total_s(),
                         1e3 * k.backward.compute_total_s(), 1e3 * k.backward.exposed_total_s(),
                         core::format_bytes(nic(k.forward) + nic(k.backward)));
    }
  }
  out += "\n  link classes (whole cluster, one step)\n";
  for (const auto& c : r.links) {
    out += fmt::format("    {:<12} {:>12} moved, mean utilisation {:>5.1f} %\n", c.link_class,
                       core::format_bytes(c.bytes), 100 * c.mean_utilisation);
  }
  return out;
}

namespace {

// Trace process ids: pipeline ranks keep theirs (0..); the per-op view puts each GPU of the simulated group at
// kGpuPid + GPU index and the link counters at kLinksPid.
constexpr int kGpuPid = 1000;
constexpr int kLinksPid = 999;
nlohmann::json metadata(const char* what, int pid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
}

// Every op of the traced passes as a slice on its GPU's stream, a flow from each collective's start on its
// first GPU to its end on every other member, and the passes' link utilisation as counters.
void add_op_trace(const train::StepResult& r, TraceTracks& tracks, nlohmann::json& events) {
  std::set<int> gpus;
  struct Flow {
    std::size_t from, to;  // slices
    std::string name;
    double start_us, end_us;  // where each end binds: the first member's start, just inside the other's end
  };
  std::vector<Flow> flows;
  for (const auto& p : r.op_trace) {
    std::map<int, std::vector<std::pair<const train::OpTraceSlice*, std::size_t>>> members;
    for (const auto& s : p.slices) {
      gpus.insert(s.gpu);
      const auto& stream = s.stream == "compute" ? std::string("compute stream") : s.stream + " stream";
      const auto index = tracks.add(kGpuPid + s.gpu, stream,
                                    {{"name", s.name},
                                     {"cat", s.collective < 0 ? "compute" : "collective"},
                                     {"args", {{"micro_batch", s.micro_batch}, {"pass", p.label}, {"pass_kind", p.kind}}}},
                                    s.start_s * 1e6, s.end_s * 1e6);
      if (s.collective >= 0) members[s.collective].emplace_back(&s, index);
    }
    for (const auto& [c, list] : members) {
      const auto& [first, first_index] = list.front();
      for (std::size_t m = 1; m < list.size(); ++m) {
        const auto& [to, to_index] = list[m];
        if (to->end_s <= to->start_s) continue;  // a zero-length slice has nothing to bind the arrow to
        flows.push_back({first_index, to_index, first->name, first->start_s * 1e6, std::max(to->start_s, to->end_s - 1e-9) * 1e6});
      }
    }
    nlohmann::json on = nlohmann::json::object(), off = nlohmann::json::object();
    for (const auto& [cls, u] : p.link_utilisation) {
      on[cls] = 100 * u;
      off[cls] = 0;
    }
    if (!on.empty()) {
      events.push_back({{"name", "link utilisation (%), mean over the pass"}, {"ph", "C"}, {"pid", kLinksPid},
                        {"ts", p.start_s * 1e6}, {"args", on}});
      events.push_back({{"name", "link utilisation (%), mean over the pass"}, {"ph", "C"}, {"pid", kLinksPid},
                        {"ts", p.end_s * 1e6}, {"args", off}});
    }
  }
  tracks.assign();
  std::uint64_t id = 0;
  for (const auto& f : flows) {
    ++id;
    events.push_back({{"name", f.name}, {"cat", "collective"}, {"ph", "s"}, {"id", id}, {"pid", tracks.pid(f.from)},
                      {"tid", tracks.tid(f.from)}, {"ts", f.start_us}});
    // Just inside the member's slice, so the arrow binds to it.
    events.push_back({{"name", f.name}, {"cat", "collective"}, {"ph", "f"}, {"bp", "e"}, {"id", id}, {"pid", tracks.pid(f.to)},
                      {"tid", tracks.tid(f.to)}, {"ts", f.end_us}});
  }
  if (!r.op_trace.empty()) events.push_back(metadata("process_name", kLinksPid, "links of the simulated group"));
  for (const int g : gpus) {
    events.push_back(metadata("process_name", kGpuPid + g, fmt::format("GPU {} (simulated group)", g)));
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", kGpuPid + g}, {"args", {{"sort_index", kGpuPid + g}}}});
  }
}

}  // namespace

nlohmann::json step_trace(const train::StepResult& r) {
  nlohmann::json events = nlohmann::json::array();
  TraceTracks tracks;
  int max_rank = -1;
  for (const auto& s : r.trace) {
    tracks.add(s.rank, s.track == "compute" ? "compute stream" : s.track == "dp" ? "DP stream" : s.track,
               {{"name", s.name}, {"cat", s.kind}}, s.start_s * 1e6, s.end_s * 1e6);
    max_rank = std::max(max_rank, s.rank);
  }
  for (int k = 0; k <= max_rank; ++k) events.push_back(metadata("process_name", k, fmt::format("pipeline rank {}", k)));
  add_op_trace(r, tracks, events);
  tracks.emit(events);
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace k3::results
