#include "results/goodput_output.hpp"

#include <fmt/format.h>

#include <numeric>

#include "core/quantity.hpp"

namespace k3::results {

using reliability::FailureCause;
using reliability::kFailureCauses;

namespace {

nlohmann::json band_json(const reliability::SampleBand& b) {
  return {{"p10", b.p10}, {"p50", b.p50}, {"p90", b.p90}, {"mean", b.mean}};
}

std::size_t at(FailureCause c) { return static_cast<std::size_t>(c); }

std::string pct(double f) { return fmt::format("{:.1f}%", 100 * f); }

std::string hours(double s) { return fmt::format("{:.1f} h", s / 3600); }

// A span in the unit a planner reads it in: seconds, minutes or hours.
std::string span(double s) {
  if (s < 120) return fmt::format("{:.1f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  return hours(s);
}

}  // namespace

nlohmann::json goodput_json(const reliability::GoodputResult& g) {
  using nlohmann::json;
  json causes = json::array();
  for (const auto c : kFailureCauses) {
    causes.push_back({{"cause", reliability::to_string(c)},
                      {"what", reliability::describe(c)},
                      {"rate_per_unit_hour", g.spec.rates[c]},
                      {"unit", reliability::to_string(reliability::unit_of(c))},
                      {"job_rate_per_hour", g.rates_per_hour[at(c)]},
                      {"interruptions_mean", g.mean_interruptions[at(c)]},
                      {"lost_work_s_mean", g.mean_lost_work_s[at(c)]},
                      {"recovering_s_mean", g.mean_down_s[at(c)]}});
  }
  json scan = json::array();
  for (const auto& p : g.scan) {
    scan.push_back({{"interval_s", p.interval_s}, {"ettr_mean", p.ettr_mean}, {"ettr_stderr", p.ettr_stderr}});
  }
  // Time lost per cause (work lost and recovering), saving and stragglers: what compare sets side by side.
  json lost_by_cause = json::object();
  for (const auto c : kFailureCauses) {
    lost_by_cause[std::string(reliability::to_string(c))] = g.mean_lost_work_s[at(c)] + g.mean_down_s[at(c)];
  }
  lost_by_cause["saving"] = g.mean_checkpoint_s;
  if (g.mean_stragglers > 0) lost_by_cause["stragglers"] = g.mean_straggler_s;
  json j{{"days", g.days},
         {"replications", g.replications},
         {"gpus", g.facts.gpus},
         {"step_time_s", g.facts.step_time_s},
         {"ideal_tokens_per_s", g.ideal_tokens_per_s},
         {"checkpoint_bytes", g.facts.checkpoint_bytes},
         {"save_s", g.save_s},
         {"restore_s", g.restore_s},
         {"restart_s", g.spec.restart_s},
         {"storage_write_bytes_per_s", g.spec.storage_write_bytes_per_s},
         {"storage_read_bytes_per_s", g.spec.storage_read_bytes_per_s},
         {"rates_source", g.spec.rates_source},
         {"mtbf_unplanned_s", g.mtbf_s},
         {"young_interval_s", g.young_interval_s},
         {"daly_interval_s", g.daly_interval_s},
         {"optimum_interval_s", g.optimum_interval_s},
         {"interval_s", g.interval_s},
         {"interval_given", g.interval_given},
         {"interval_scan", scan},
         {"interruptions", band_json(g.interruptions)},
         {"effective_training_time", band_json(g.ettr)},
         {"goodput_tokens_per_s", band_json(g.goodput_tokens_per_s)},
         {"tokens_trained", band_json(g.tokens_trained)},
         {"causes", causes},
         {"lost_s_mean_by_cause", lost_by_cause},
         {"checkpoint_saving_s_mean", g.mean_checkpoint_s},
         {"stragglers_mean", g.mean_stragglers},
         {"straggler_s_mean", g.mean_straggler_s},
         {"spare_wait_s_mean", g.mean_spare_wait_s},
         {"straggler_slowdown", g.spec.straggler_slowdown},
         {"inputs", {"rates", "restart_s", "storage bandwidth", "checkpoint_bytes (the model's state)", "step_time_s (simulated step)",
                     "spares, repair and stragglers where given"}},
         {"predicted", {"interruptions", "effective_training_time", "goodput_tokens_per_s", "tokens_trained",
                        "optimum_interval_s", "time lost per cause"}}};
  return j;
}

std::string goodput_to_text(const reliability::GoodputResult& g) {
  std::string out;
  const auto tok = [](double v) { return core::format_in_unit(v, "tokens/s"); };
  out += fmt::format("\ngoodput over {:g} days on {} GPUs ({} replications of the run's timeline)\n", g.days,
                     core::format_count(g.facts.gpus), g.replications);
  out += fmt::format("  interruptions            {:.0f} (P10 {:.0f} .. P90 {:.0f}); one unplanned every {}\n",
                     g.interruptions.p50, g.interruptions.p10, g.interruptions.p90, hours(g.mtbf_s));
  out += fmt::format("  effective training time  {} (P10 {} .. P90 {})\n", pct(g.ettr.p50), pct(g.ettr.p10), pct(g.ettr.p90));
  out += fmt::format("  goodput                  {} (P10 {} .. P90 {}); ideal {}\n", tok(g.goodput_tokens_per_s.p50),
                     tok(g.goodput_tokens_per_s.p10), tok(g.goodput_tokens_per_s.p90), tok(g.ideal_tokens_per_s));
  out += fmt::format("  tokens trained           {} (P10 {} .. P90 {})\n", core::format_count(g.tokens_trained.p50),
                     core::format_count(g.tokens_trained.p10), core::format_count(g.tokens_trained.p90));
  out += fmt::format("  checkpoint               {} of weights and optimizer state: save {}, restore {}\n",
                     core::format_bytes(g.facts.checkpoint_bytes), span(g.save_s), span(g.restore_s));
  out += fmt::format("  saved every              {} ({:.0f} steps), {}; Young {}, Daly {}, simulated optimum {}\n",
                     span(g.interval_s), g.interval_s / g.facts.step_time_s,
                     g.interval_given ? "as the scenario sets" : "the simulated optimum",
                     span(g.young_interval_s), span(g.daly_interval_s),
                     span(g.optimum_interval_s));
  out += "  time lost per run, by cause (means):\n";
  out += fmt::format("    {:<10} {:>13} {:>11} {:>11}\n", "cause", "interruptions", "lost work", "recovering");
  for (const auto c : kFailureCauses) {
    out += fmt::format("    {:<10} {:>13.1f} {:>11} {:>11}\n", reliability::to_string(c), g.mean_interruptions[at(c)],
                       hours(g.mean_lost_work_s[at(c)]), hours(g.mean_down_s[at(c)]));
  }
  out += fmt::format("    {:<10} {:>13} {:>11} {:>11}\n", "saving", "", hours(g.mean_checkpoint_s), "");
  if (g.mean_stragglers > 0) {
    out += fmt::format("    {:<10} {:>13.1f} {:>11} {:>11}\n", "stragglers", g.mean_stragglers, hours(g.mean_straggler_s), "");
  }
  if (g.mean_spare_wait_s > 0) out += fmt::format("    of recovering, waiting for a spare node: {}\n", hours(g.mean_spare_wait_s));
  if (g.spec.stragglers_per_gpu_day > 0) {
    out += fmt::format("  stragglers               {:g} per GPU-day, each slowing the step {:.3f}x{} until swapped out after {}\n",
                       g.spec.stragglers_per_gpu_day, g.spec.straggler_slowdown,
                       g.spec.straggler_gpu_speed
                           ? fmt::format(" (simulated: the step with one GPU at speed {:g}, mean over GPUs spread across the stages)", *g.spec.straggler_gpu_speed)
                           : std::string(),
                       span(g.spec.straggler_found_s));
  }
  if (g.spec.rates_source == "llama3-405b") {
    const auto& p = reliability::llama3_405b_interruptions();
    out += fmt::format("  the rates' source run (Llama 3 405B, {:g} days on {} H100) published {} interruptions and an "
                       "effective training time \"higher than 90%\" (arXiv:2407.21783 sec. 3.3.4)\n",
                       p.days, core::format_count(p.gpus), std::accumulate(p.count.begin(), p.count.end(), 0));
  }
  out += fmt::format(
      "  inputs: failure rates ({}; per GPU-hour for gpu, hbm, network and nic, per node-hour for host, per job-hour for "
      "software and planned), restart {} (scenario), storage {:g} GB/s write and {:g} GB/s read, the simulated step ({}); "
      "predicted: everything else above\n",
      g.spec.rates_source == "llama3-405b" ? "Llama 3 405B's, arXiv:2407.21783 Table 5" : g.spec.rates_source,
      span(g.spec.restart_s), g.spec.storage_write_bytes_per_s / 1e9, g.spec.storage_read_bytes_per_s / 1e9,
      span(g.facts.step_time_s));
  return out;
}

}  // namespace k3::results
