#include "cli/commands.hpp"

namespace k3::cli {

// Subcommand attach functions, one per file in cli/.
void attach_model(CLI::App& app, int& exit_status);
void attach_kv(CLI::App& app, int& exit_status);
void attach_calibrate(CLI::App& app, int& exit_status);
void attach_profile(CLI::App& app, int& exit_status);
void attach_traffic(CLI::App& app, int& exit_status);
void attach_balance(CLI::App& app, int& exit_status);
void attach_topo(CLI::App& app, int& exit_status);
void attach_collective(CLI::App& app, int& exit_status);
void attach_run(CLI::App& app, int& exit_status);
void attach_compare(CLI::App& app, int& exit_status);
void attach_sweep(CLI::App& app, int& exit_status);
void attach_validate(CLI::App& app, int& exit_status);

namespace {
constexpr Command kCommands[] = {
    {"model", attach_model},
    {"kv", attach_kv},
    {"calibrate", attach_calibrate},
    {"profile", attach_profile},
    {"traffic", attach_traffic},
    {"balance", attach_balance},
    {"topo", attach_topo},
    {"collective", attach_collective},
    {"run", attach_run},
    {"compare", attach_compare},
    {"sweep", attach_sweep},
    {"validate", attach_validate},
};
}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace k3::cli
