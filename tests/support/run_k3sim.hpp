#pragma once
// Runs the built k3sim binary as a user would and captures exit status, stdout and stderr.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace k3::test {

struct CliResult {
  int exit_status = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `args` is appended to the binary path verbatim (shell syntax); the working folder is the source root.
inline CliResult run_k3sim(const std::string& args) {
  static int counter = 0;
  const std::string base = std::string(K3SIM_BINARY_DIR) + "/cli-test-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter++);
  const std::string cmd = "cd '" + std::string(K3SIM_SOURCE_DIR) + "' && '" + std::string(K3SIM_BINARY_DIR) +
                          "/k3sim' " + args + " >'" + base + ".out' 2>'" + base + ".err' </dev/null";
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.exit_status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

}  // namespace k3::test
