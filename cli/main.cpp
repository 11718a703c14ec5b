// k3sim: a discrete-event simulator and cost model for Mixture-of-Experts GPU clusters.
// This file only wires the subcommand table to CLI11 and turns errors into exit statuses:
//   0 success, 2 bad input (scenario, flag, topology, config.json), 1 internal error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/version.hpp"
#include "core/error.hpp"
#include "core/spelling.hpp"
#include "core/yaml_input.hpp"

int main(int argc, char** argv) {
  CLI::App app{"k3sim: step time, all-to-all traffic, KV cache and load balancing of MoE models on GPU clusters"};
  app.set_version_flag("--version", std::string(k3::core::version_string()) + ", commit " +
                                        std::string(k3::core::source_commit()));
  app.require_subcommand(1);
  app.fallthrough(false);
  int exit_status = 0;
  for (const auto& cmd : k3::cli::commands()) cmd.attach(*app.add_subcommand(cmd.name, cmd.description), exit_status);
  try {
    // An unknown command is a typo more often than not: name the nearest (CLI11 says only that one is required).
    if (argc > 1 && argv[1][0] != '-') {
      std::vector<std::string> names;
      for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
      if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
        throw k3::core::InputError({std::string("k3sim ") + argv[1], "", 0}, "unknown command" + k3::core::did_you_mean(argv[1], names),
                                   k3::core::join_allowed(names));
      }
    }
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here with exit code 0; every other parse error is bad input.
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const k3::core::InputError& e) {
    fmt::print(stderr, "k3sim: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "k3sim: internal error: {}\n", e.what());
    return 1;
  }
  return exit_status;
}
