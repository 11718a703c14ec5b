#pragma once
// The table of k3sim subcommands. Each entry attaches one subcommand to the application: its options and
// a callback that runs a short pipeline (load inputs -> library call -> print / write). The callback
// stores its exit status in `exit_status`; errors are thrown and converted once in main.cpp.
#include <CLI/CLI.hpp>

#include <span>

namespace k3::cli {

using AttachFn = void (*)(CLI::App& app, int& exit_status);

struct Command {
  const char* name;
  AttachFn attach;
};

// One line per subcommand, in the order `k3sim --help` lists them. Definitions live in cli/<name>.cpp.
std::span<const Command> commands();

}  // namespace k3::cli
