#include "cli/commands.hpp"

namespace k3::cli {

// Subcommand attach functions, one per file in cli/commands/.
void attach_model(CLI::App& command, int& exit_status);
void attach_kv(CLI::App& command, int& exit_status);
void attach_calibrate(CLI::App& command, int& exit_status);
void attach_profile(CLI::App& command, int& exit_status);
void attach_traffic(CLI::App& command, int& exit_status);
void attach_balance(CLI::App& command, int& exit_status);
void attach_topo(CLI::App& command, int& exit_status);
void attach_collective(CLI::App& command, int& exit_status);
void attach_run(CLI::App& command, int& exit_status);
void attach_compare(CLI::App& command, int& exit_status);
void attach_sweep(CLI::App& command, int& exit_status);
void attach_plan(CLI::App& command, int& exit_status);
void attach_validate(CLI::App& command, int& exit_status);
void attach_serve(CLI::App& command, int& exit_status);
void attach_list(CLI::App& command, int& exit_status);
void attach_report(CLI::App& command, int& exit_status);
void attach_trace(CLI::App& command, int& exit_status);

namespace {
constexpr Command kCommands[] = {
    {"model", "Parameters, FLOPs, memory and KV cache of a model, per layer kind", attach_model},
    {"kv", "KV cache and state per sequence and per GPU, and the largest batch that fits", attach_kv},
    {"calibrate", "Measure K3's kernels on this machine and write a calibration profile", attach_calibrate},
    {"profile", "Inspect calibration profiles", attach_profile},
    {"traffic", "Expert all-to-all bytes per token by link class, dedup, per-GPU spread", attach_traffic},
    {"balance", "Router-bias load balancing: QB (exact, histogram, local) vs sign-SGD", attach_balance},
    {"topo", "Describe a cluster topology: counts, injection bandwidth, diameter, bisection", attach_topo},
    {"collective", "Time one collective alone on a topology, nccl-tests style", attach_collective},
    {"run", "Simulate one training step of a scenario: step time, breakdown, MFU, memory", attach_run},
    {"compare", "Simulate scenarios or a scenario's variants side by side, with deltas", attach_compare},
    {"report", "Review pages from saved results: `report diff a.json b.json` for two `run --json` outputs", attach_report},
    {"trace", "Read a PyTorch-profiler trace: kernels and host time per annotated module, waits on the device", attach_trace},
    {"sweep", "Simulate every point of a grid of scenario overrides; mark the Pareto front", attach_sweep},
    {"plan", "The best parallel layout on N GPUs, the smallest cluster for T tokens in D days, or the smallest serving deployment for an SLO: prune, bound, simulate, rank", attach_plan},
    {"serve", "Replay a request stream on a serving deployment: TTFT/TPOT percentiles, tokens/s per node, goodput", attach_serve},
    {"validate", "Compare predictions with published measurements (DeepSeek-V3, Megatron-LM SC21 Table 1, DeepEP)", attach_validate},
    {"list", "List what is registered by name: networks, schedules, recompute modules, collectives, gpus, models, config.json families, topologies", attach_list},
};
}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace k3::cli
