#include "cli/commands.hpp"

#include <array>

namespace k3::cli {

// Subcommand attach functions, one per file in cli/.

namespace {
constexpr std::array<Command, 0> kCommands{{
}};
}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace k3::cli
