#include "cli/commands.hpp"

#include <array>

namespace k3::cli {

// Subcommand attach functions, one per file in cli/.
void attach_model(CLI::App& app, int& exit_status);
void attach_kv(CLI::App& app, int& exit_status);

namespace {
constexpr std::array<Command, 2> kCommands{{
    {"model", attach_model},
    {"kv", attach_kv},
}};
}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace k3::cli
