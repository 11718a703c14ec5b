#include "cli/commands.hpp"

#include <array>

namespace k3::cli {

// Subcommand attach functions, one per file in cli/.
void attach_collective(CLI::App& app, int& exit_status);

namespace {
constexpr std::array<Command, 1> kCommands{{
    {"collective", attach_collective},
}};
}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace k3::cli
