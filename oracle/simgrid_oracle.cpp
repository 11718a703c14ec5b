#include "oracle/simgrid_oracle.hpp"

#include <simgrid/s4u.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace k3::oracle {

namespace sg4 = simgrid::s4u;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs in the child: builds the platform, runs the flows, writes [platform_s, simulate_s, completions...].
void child_main(const std::vector<OracleLink>& links, const std::vector<OracleFlow>& flows, int out_fd) {
  std::vector<std::string> args{"k3sim-oracle", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
                                "--cfg=network/TCP-gamma:0", "--log=root.thresh:critical",
                                "--cfg=contexts/stack-size:64"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  auto t0 = std::chrono::steady_clock::now();
  sg4::Engine engine(&argc, argv.data());
  auto* zone = sg4::create_full_zone("oracle");
  std::map<std::uint32_t, sg4::Host*> hosts;
  for (const auto& f : flows) {
    for (std::uint32_t g : {f.src, f.dst}) {
      if (!hosts.count(g)) hosts[g] = zone->create_host("gpu" + std::to_string(g), 1e9);
    }
  }
  std::vector<sg4::Link*> sg_links;
  for (std::size_t l = 0; l < links.size(); ++l) {
    sg_links.push_back(zone->create_link("l" + std::to_string(l), links[l].capacity_bytes_per_s)->set_latency(0)->seal());
  }
  std::map<std::pair<std::uint32_t, std::uint32_t>, const std::vector<std::uint32_t>*> routes;
  std::vector<double> latency(flows.size(), 0.0);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const auto& f = flows[i];
    for (auto l : f.path) latency[i] += links[l].latency_s;
    auto [it, fresh] = routes.emplace(std::make_pair(f.src, f.dst), &f.path);
    if (!fresh) {
      if (*it->second != f.path) throw std::runtime_error("two paths for one GPU pair");
      continue;
    }
    std::vector<sg4::LinkInRoute> route;
    for (auto l : f.path) route.emplace_back(sg_links[l]);
    zone->add_route(hosts[f.src]->get_netpoint(), hosts[f.dst]->get_netpoint(), nullptr, nullptr, route, false);
  }
  zone->seal();
  const double platform_s = seconds_since(t0);

  std::vector<double> completion(flows.size(), 0.0);
  t0 = std::chrono::steady_clock::now();
  sg4::Actor::create("starter", hosts.begin()->second, [&] {
    std::vector<std::size_t> order(flows.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return latency[a] < latency[b]; });
    std::vector<sg4::CommPtr> comms(flows.size());
    for (std::size_t i : order) {
      if (latency[i] > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(latency[i]);
      comms[i] = sg4::Comm::sendto_async(hosts[flows[i].src], hosts[flows[i].dst], flows[i].bytes);
    }
    for (std::size_t i = 0; i < flows.size(); ++i) {
      comms[i]->wait();
      completion[i] = comms[i]->get_finish_time();
    }
  });
  engine.run();
  const double simulate_s = seconds_since(t0);

  std::vector<double> out{platform_s, simulate_s};
  out.insert(out.end(), completion.begin(), completion.end());
  const char* p = reinterpret_cast<const char*>(out.data());
  std::size_t left = out.size() * sizeof(double);
  while (left > 0) {
    const ssize_t w = ::write(out_fd, p, left);
    if (w <= 0) throw std::runtime_error("oracle pipe write failed");
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}

}  // namespace

OracleRun simgrid_run(const std::vector<OracleLink>& links, const std::vector<OracleFlow>& flows) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    int status = 0;
    try {
      child_main(links, flows, fds[1]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "simgrid oracle: %s\n", e.what());
      status = 1;
    }
    ::close(fds[1]);
    ::_exit(status);
  }
  ::close(fds[1]);
  std::vector<double> values(2 + flows.size());
  char* p = reinterpret_cast<char*>(values.data());
  std::size_t got = 0;
  const std::size_t want = values.size() * sizeof(double);
  while (got < want) {
    const ssize_t r = ::read(fds[0], p + got, want - got);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (got != want || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("simgrid oracle child failed (status " + std::to_string(status) + ")");
  OracleRun run;
  run.platform_wall_s = values[0];
  run.simulate_wall_s = values[1];
  run.completion_s.assign(values.begin() + 2, values.end());
  return run;
}

}  // namespace k3::oracle
