// Topology build and routing speed at cluster scale.
//   bench_topologies --benchmark_filter=Mpft       16,384-GPU multi-plane fat tree + a 64-GPU EP group
//   bench_topologies --benchmark_filter=FatTree3   three-tier fat tree up to 65,536 endpoints
// peak_rss_bytes is the process's peak resident memory so far (getrusage), so run one size per process
// for an exact figure: --benchmark_filter='FatTree3Build/8192$'.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "topologies/cluster_spec.hpp"
#include "topologies/load.hpp"

namespace {

using namespace k3::topo;

double peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

// DeepSeek-V3 preset scaled to `nodes` x 8 GPUs; routes every ordered pair of GPUs 0..63 (8 nodes, EP64).
void BM_MpftBuildAndRouteEp64(benchmark::State& state) {
  const std::vector<std::string> overrides{"nodes=" + std::to_string(state.range(0))};
  std::size_t links = 0;
  for (auto _ : state) {
    const Topology t = load_topology("h800-dsv3-2048", overrides);
    for (GpuId a = 0; a < 64; ++a) {
      for (GpuId b = 0; b < 64; ++b) {
        if (a != b) links += t.route(a, b).size();
      }
    }
    benchmark::DoNotOptimize(links);
  }
  state.SetComplexityN(state.range(0) * 8);
  state.counters["gpus"] = static_cast<double>(state.range(0) * 8);
  state.counters["peak_rss_bytes"] = peak_rss_bytes();
}
BENCHMARK(BM_MpftBuildAndRouteEp64)->RangeMultiplier(2)->Range(256, 2048)->Unit(benchmark::kMillisecond)->Complexity(benchmark::oN);

// Routing alone on the built 16,384-GPU tree: cold (fresh cache each pass) and warm (cache hits).
void BM_Mpft16kRouteEp64(benchmark::State& state) {
  const Topology t = load_topology("h800-dsv3-2048", {"nodes=2048"});
  std::vector<LinkId> path;
  const bool warm = state.range(0) == 1;
  for (auto _ : state) {
    for (GpuId a = 0; a < 64; ++a) {
      for (GpuId b = 0; b < 64; ++b) {
        if (a == b) continue;
        if (warm) {
          benchmark::DoNotOptimize(t.route(a, b).data());
        } else {
          t.route_into(a, b, 0, path);
          benchmark::DoNotOptimize(path.data());
        }
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * 64 * 63);
}
BENCHMARK(BM_Mpft16kRouteEp64)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

ClusterSpec fat_tree3(int nodes) {
  ClusterSpec s;
  s.name = "fat-tree3";
  s.gpu = builtin_gpu_types().at("H100-SXM");
  s.nodes = nodes;
  s.node = NodeSpec{"hgx8", 8, 450e9, 0.5e-6, 64e9, 0.5e-6, 50e9, 1e-6};
  s.fabric = FabricSpec{FabricKind::fat_tree3, 64, {1, 1}, 50e9, 0.3e-6};
  return s;
}

void BM_FatTree3Build(benchmark::State& state) {
  const auto spec = fat_tree3(static_cast<int>(state.range(0)));
  std::size_t vertices = 0;
  for (auto _ : state) {
    const Topology t = build_cluster(spec);
    vertices = t.vertex_count();
    benchmark::DoNotOptimize(vertices);
  }
  state.SetComplexityN(state.range(0) * 8);
  state.counters["gpus"] = static_cast<double>(state.range(0) * 8);
  state.counters["vertices"] = static_cast<double>(vertices);
  state.counters["peak_rss_bytes"] = peak_rss_bytes();
}
BENCHMARK(BM_FatTree3Build)->RangeMultiplier(2)->Range(1024, 8192)->Unit(benchmark::kMillisecond)->Complexity(benchmark::oN);

}  // namespace

BENCHMARK_MAIN();
