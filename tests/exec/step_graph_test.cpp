// The step graph and its engine run: nodes start when their dependencies end, collectives of nodes running at the
// same time share the links, a ring runs as one step of all its bytes at its own time when alone, and a graph
// written as JSON and read back runs to the same picosecond. Expected times derived by hand on the oracle
// fabrics (oracle/fabrics.hpp: NIC 50 GB/s, 0.6 us; PCIe 64 GB/s, 0.3 us; one leaf for one-GPU nodes).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "oracle/fabrics.hpp"
#include "sim/exec/graph_executor.hpp"
#include "sim/exec/pipeline_graph.hpp"
#include "sim/net/network_registry.hpp"
#include "sim/parallel/schedule_registry.hpp"

namespace k3::exec::graph_test {
namespace {

using core::SimTime;
constexpr double kPicosecond = 1e-12;
constexpr double kMebibyte = 1024.0 * 1024.0;

PassRunner flow_runner(const topo::Topology& topology) {
  PassRunnerConfig c;
  c.network = &net::network_model("flow", {});
  return PassRunner(topology, c);
}

net::CollectiveSpec send(topo::GpuId from, topo::GpuId to, double bytes) {
  net::CollectiveSpec s;
  s.op = net::CollectiveOp::sendrecv;
  s.algorithm = net::CollectiveAlgorithm::flat;
  s.ranks = {from, to};
  s.bytes = bytes;
  return s;
}

GraphNode compute(int rank, double us, std::vector<GraphNodeId> deps = {}) {
  GraphNode n;
  n.rank = rank;
  n.stream = "compute";
  n.name = "work";
  n.duration = SimTime::from_us(us);
  n.deps = std::move(deps);
  return n;
}

GraphNode transfer(int rank, std::string stream, net::CollectiveSpec spec, std::vector<GraphNodeId> deps) {
  GraphNode n;
  n.kind = GraphNodeKind::send;
  n.rank = rank;
  n.stream = std::move(stream);
  n.name = "send";
  n.collectives = {std::move(spec)};
  n.deps = std::move(deps);
  return n;
}

TEST(StepGraph, TwoTransfersCrossingOneNicEachGetHalfOfIt) {
  // Two one-GPU nodes: GPU 0 -> PCIe -> NIC -> leaf -> NIC -> PCIe -> GPU 1, latency 2 x 0.3 + 2 x 0.6 = 1.8 us,
  // bottleneck the 50 GB/s NIC links. One send of S alone: 1.8 us + S / 50 GB/s. Two sends of S started together
  // by a 1 us compute node (on two streams of rank 0) share the NIC: each ends at 1 us + 1.8 us + 2S / 50 GB/s.
  const auto topology = oracle::rail_fat_tree(2, 1, 1);
  const auto runner = flow_runner(topology);
  const double S = 64 * kMebibyte, latency = 2 * oracle::kPcieLatencyS + 2 * oracle::kNicLatencyS;
  StepGraph alone;
  alone.add(transfer(0, "a", send(0, 1, S), {}));
  EXPECT_NEAR(run_step_graph(alone, &runner).makespan.seconds(), latency + S / oracle::kNicBytesPerS, 4 * kPicosecond);

  StepGraph g;
  const auto first = g.add(compute(0, 1));
  const auto a = g.add(transfer(0, "a", send(0, 1, S), {first}));
  const auto b = g.add(transfer(0, "b", send(0, 1, S), {first}));
  const auto t = run_step_graph(g, &runner);
  const double both = 1e-6 + latency + 2 * S / oracle::kNicBytesPerS;
  EXPECT_NEAR(t.end[a].seconds(), both, 4 * kPicosecond);
  EXPECT_NEAR(t.end[b].seconds(), both, 4 * kPicosecond);
  // Each send crossed 2 PCIe and 2 NIC links with S.
  EXPECT_DOUBLE_EQ(t.bytes[a].bytes[static_cast<std::size_t>(topo::LinkClass::nic)], 2 * S);
  EXPECT_DOUBLE_EQ(t.bytes[a].bytes[static_cast<std::size_t>(topo::LinkClass::pcie)], 2 * S);
}

net::CollectiveSpec ring(net::CollectiveOp op, std::vector<topo::GpuId> ranks, double bytes) {
  net::CollectiveSpec s;
  s.op = op;
  s.algorithm = net::CollectiveAlgorithm::ring;
  s.ranks = std::move(ranks);
  s.bytes = bytes;
  return s;
}

PassRunner runner_on(const topo::Topology& topology, const char* network) {
  PassRunnerConfig c;
  c.network = &net::network_model(network, {});
  return PassRunner(topology, c);
}

GraphNode collective(std::vector<net::CollectiveSpec> specs, std::string stream = "dp") {
  GraphNode n;
  n.kind = GraphNodeKind::collective;
  n.stream = std::move(stream);
  n.name = "ring";
  n.collectives = std::move(specs);
  return n;
}

TEST(StepGraph, ARingAloneTakesItsStepsTimesOneStepOnEitherNetwork) {
  // 8 GPUs on one NVSwitch, a ring all-reduce of S: 2(n-1) = 14 steps, each a chunk S/8 over GPU -> switch -> GPU
  // with every link carrying one flow: 14 x (2 x 0.5 us + S/8 / 450 GB/s), what the whole transfer DAG gives.
  // Its bytes: 14 steps x 8 chunks of S/8, each over two NVLink links.
  const auto topology = oracle::nvswitch_node(8);
  const double S = 64 * kMebibyte;
  const auto spec = ring(net::CollectiveOp::allreduce, {0, 1, 2, 3, 4, 5, 6, 7}, S);
  const double expected = 14 * (2 * oracle::kNvlinkLatencyS + S / 8 / oracle::kNvlinkBytesPerS);
  for (const char* network : {"analytical", "flow"}) {
    const auto runner = runner_on(topology, network);
    StepGraph g;
    g.add(collective({spec}));
    const auto t = run_step_graph(g, &runner);
    EXPECT_NEAR(t.makespan.seconds(), expected, 14 * kPicosecond) << network;
    EXPECT_NEAR(runner.concurrent_time({spec}), expected, 14 * kPicosecond) << network;
    EXPECT_DOUBLE_EQ(t.bytes[0].bytes[static_cast<std::size_t>(topo::LinkClass::nvlink)], 14 * 8 * 2 * S / 8) << network;
    EXPECT_EQ(collective_link_bytes(spec, topology).bytes, t.bytes[0].bytes) << network;
  }
}

TEST(StepGraph, ReduceScatterAndAllGatherRingsTakeNMinusOneSteps) {
  // n - 1 = 3 steps of S/4 on a 4-GPU node; over 4 one-GPU nodes each step crosses PCIe, NIC, NIC, PCIe
  // (1.8 us) with a chunk at the 50 GB/s NIC.
  const double S = 32 * kMebibyte;
  const double on_node = 2 * oracle::kNvlinkLatencyS + S / 4 / oracle::kNvlinkBytesPerS;
  const double across = 2 * oracle::kPcieLatencyS + 2 * oracle::kNicLatencyS + S / 4 / oracle::kNicBytesPerS;
  const auto node = oracle::nvswitch_node(4);
  const auto nodes = oracle::rail_fat_tree(4, 1, 1);
  for (auto op : {net::CollectiveOp::reducescatter, net::CollectiveOp::allgather}) {
    const auto on = runner_on(node, "analytical");
    const auto off = runner_on(nodes, "flow");
    StepGraph g;
    g.add(collective({ring(op, {0, 1, 2, 3}, S)}));
    EXPECT_NEAR(run_step_graph(g, &on).makespan.seconds(), 3 * on_node, 3 * kPicosecond);
    EXPECT_NEAR(run_step_graph(g, &off).makespan.seconds(), 3 * across, 8 * kPicosecond);
  }
}

TEST(StepGraph, RingsSlowEachOtherOnlyWhileBothRun) {
  // One NVSwitch. Ring A: all-reduce of a over {0, 1}, 2 steps of a/2. Ring B: all-reduce of b over {0, 2, 3}, 4 steps
  // of b/3. Step by step, GPU 0's up- and downlinks carry a/2 + b/3 while both run (every flow of both crosses one
  // of them but B's 2 -> 3), then b/3 alone: 2 (1 us + (a/2 + b/3) / B) + 2 (1 us + (b/3) / B) =
  // 4 us + (a + 4b/3) / B. Run as one step of all their bytes, GPU 0's uplink shares A's a and B's 4b/3 until A
  // is through, then B's rest goes alone: the same bytes through the same bottleneck, 1 us + (a + 4b/3) / B,
  // and B pays its other 3 steps' latency, 3 us, after. On both networks: A and B start together.
  const auto topology = oracle::nvswitch_node(4);
  const double a = 48 * kMebibyte, b = 96 * kMebibyte, B = oracle::kNvlinkBytesPerS, hop = 2 * oracle::kNvlinkLatencyS;
  for (const char* network : {"analytical", "flow"}) {
    const auto runner = runner_on(topology, network);
    StepGraph g;
    g.add(collective({ring(net::CollectiveOp::allreduce, {0, 1}, a)}, "a"));
    g.add(collective({ring(net::CollectiveOp::allreduce, {0, 2, 3}, b)}, "b"));
    EXPECT_NEAR(run_step_graph(g, &runner).makespan.seconds(), 4 * hop + (a + 4 * b / 3) / B, 8 * kPicosecond) << network;
  }
}

TEST(StepGraph, ACommunicationKernelHolding20Of132SmsSlowsConcurrentComputeWhileBothRun) {
  // Rank 0: a 100 us compute node, and beside it (another stream) a 66 us communication node whose kernel holds 20 of
  // the GPU's 132 SMs. By 66 us the compute has drained 66 x 112/132 = 56 us of its work; the other 44 us run at full
  // speed: it ends at 110 us (100 us without sharing; 100 x 132/112 = 117.9 us were it slowed throughout).
  StepGraph g;
  const auto work = g.add(compute(0, 100));
  GraphNode comm;
  comm.kind = GraphNodeKind::send;
  comm.stream = "send forward";
  comm.duration = SimTime::from_us(66);
  comm.sms = 20;
  g.add(comm);
  EXPECT_EQ(run_step_graph(g, nullptr, 132).end[work], SimTime::from_us(110));
  EXPECT_EQ(run_step_graph(g, nullptr, 0).end[work], SimTime::from_us(100));  // SMs not shared
  // A comm node on another rank takes nothing from rank 0.
  g.nodes[1].rank = 1;
  EXPECT_EQ(run_step_graph(g, nullptr, 132).end[work], SimTime::from_us(100));
}

TEST(StepGraph, SplitPartsRunInOrderAndAddUpToTheWhole) {
  // A 10 us node split 0.25 / 0.75: parts of 2.5 and 7.5 us; a node after the whole starts at 10 us, one after the
  // first part at 2.5 us.
  StepGraph g;
  const auto whole = g.add(compute(0, 10));
  const auto parts = g.split(whole, std::vector<double>{0.25, 0.75});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts.back(), whole);
  GraphNode early = compute(0, 1, {parts.front()});
  early.stream = "dp";
  const auto e = g.add(early);
  const auto t = run_step_graph(g, nullptr);
  EXPECT_EQ(t.end[parts.front()], SimTime::from_us(2.5));
  EXPECT_EQ(t.end[whole], SimTime::from_us(10));
  EXPECT_EQ(t.start[e], SimTime::from_us(2.5));
}

TEST(StepGraph, ExportedGraphReloadedRunsToTheSamePicosecond) {
  // A 1F1B pipeline over 4 one-GPU nodes, 6 micro-batches, activations sent as 8 MiB transfers on the flow network.
  const auto topology = oracle::rail_fat_tree(4, 1, 1);
  const auto runner = flow_runner(topology);
  const auto schedule = parallel::make_schedule(parallel::pipeline_schedule("1f1b", {}), 4, 1, 6);
  PipelineGraphCosts costs;
  costs.passes.forward = [](int, int) { return SimTime::from_us(100); };
  costs.passes.backward = [](int, int) { return SimTime::from_us(200); };
  costs.passes.weight = [](int, int) { return SimTime::from_us(50); };
  costs.passes.forward_backward = [](int, int, int) { return SimTime::from_us(300); };
  costs.transfer = [](int from, int to) {
    return std::vector<std::vector<net::CollectiveSpec>>{{send(static_cast<topo::GpuId>(from), static_cast<topo::GpuId>(to), 8 * kMebibyte)}};
  };
  const auto pipeline = pipeline_graph(schedule, costs);
  const auto first = run_step_graph(pipeline.graph, &runner);
  const auto reloaded = graph_from_json(nlohmann::json::parse(graph_to_json(pipeline.graph).dump()), "graph.json");
  const auto second = run_step_graph(reloaded, &runner);
  EXPECT_EQ(first.makespan, second.makespan);
  EXPECT_EQ(first.end, second.end);
  // 1F1B's (m + PP - 1)(F + B) = 9 x 300 us plus the sends on the critical path: longer than 2.7 ms.
  EXPECT_GT(first.makespan, SimTime::from_us(2700));
}

TEST(StepGraph, ACycleIsAnInternalErrorNamingTheNode) {
  StepGraph g;
  const auto a = g.add(compute(0, 1));
  const auto b = g.add(compute(0, 1, {a}));
  g.nodes[a].deps.push_back(b);
  EXPECT_THROW((void)run_step_graph(g, nullptr), core::InternalError);
}

TEST(StepGraph, TwoNodesOfOneStreamSideBySideAreAnInternalError) {
  StepGraph g;
  g.add(compute(0, 1));
  g.add(compute(0, 1));  // same rank, same stream, no order between them
  EXPECT_THROW((void)run_step_graph(g, nullptr), core::InternalError);
}

TEST(StepGraph, BadGraphFilesNameThePlace) {
  StepGraph g;
  g.add(compute(0, 1));
  auto json = graph_to_json(g);
  json["nodes"][0]["kind"] = "MEM_LOAD_NODE";
  try {
    (void)graph_from_json(json, "graph.json");
    ADD_FAILURE() << "an unknown node kind was read";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, "graph.json");
    EXPECT_EQ(e.where().key, "/nodes/0/kind");
  }
  json = graph_to_json(g);
  json["nodes"][0]["deps"] = {0};
  EXPECT_THROW((void)graph_from_json(json, "graph.json"), core::InputError);
}

}  // namespace
}  // namespace k3::exec::graph_test
