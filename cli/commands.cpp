#include "cli/commands.hpp"

#include <array>

namespace k3::cli {

// Subcommand attach functions, one per file in cli/.
void attach_topo(CLI::App& app, int& exit_status);

namespace {
constexpr std::array<Command, 1> kCommands{{
    {"topo", attach_topo},
}};
}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace k3::cli
