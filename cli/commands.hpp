#pragma once
// The table of k3sim subcommands (ninja's tool table): name, one-line description, and the function that
// attaches the subcommand's options and a callback running a short pipeline (load inputs -> library call ->
// print / write). The callback stores its exit status in `exit_status`; errors are thrown and converted
// once in main.cpp.
#include <CLI/CLI.hpp>

#include <span>

namespace k3::cli {

// `command` is the subcommand, already named and described from the table.
using AttachFn = void (*)(CLI::App& command, int& exit_status);

struct Command {
  const char* name;
  const char* description;  // one line, shown by `k3sim --help`
  AttachFn attach;
};

// In the order `k3sim --help` lists them. Definitions live in cli/commands/<name>.cpp.
std::span<const Command> commands();

}  // namespace k3::cli
