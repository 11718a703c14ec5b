#include "cli/commands.hpp"

#include <array>

namespace k3::cli {

// Subcommand attach functions, one per file in cli/.
void attach_calibrate(CLI::App& app, int& exit_status);
void attach_profile(CLI::App& app, int& exit_status);

namespace {
constexpr std::array<Command, 2> kCommands{{
    {"calibrate", attach_calibrate},
    {"profile", attach_profile},
}};
}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace k3::cli
