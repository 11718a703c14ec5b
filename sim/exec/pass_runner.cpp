#include "sim/exec/pass_runner.hpp"

#include <memory>

#include "core/error.hpp"
#include "sim/net/collectives/collective_engine.hpp"

namespace k3::exec {

namespace {

class EngineLauncher final : public CollectiveLauncher {
 public:
  EngineLauncher(net::CollectiveEngine& engine, const PassRunner& runner) : engine_(engine), runner_(runner) {}
  void launch(const workload::CollectiveCall& call, std::function<void()> on_done) override {
    const auto specs = runner_.specs_of(call);
    auto left = std::make_shared<std::size_t>(specs.size());
    auto done = std::make_shared<std::function<void()>>(std::move(on_done));
    for (const auto& s : specs) {
      engine_.start(s, [left, done](const net::CollectiveResult&) {
        if (--*left == 0) (*done)();
      });
    }
  }

 private:
  net::CollectiveEngine& engine_;
  const PassRunner& runner_;
};

// Completes each collective after its solo duration; accumulates what it would have moved.
class SoloLauncher final : public CollectiveLauncher {
 public:
  using Lookup = std::function<std::pair<core::SimTime, const LinkClassBytes*>(const workload::CollectiveCall&)>;
  SoloLauncher(engine::Simulator& sim, Lookup lookup, LinkClassBytes* bytes)
      : sim_(sim), lookup_(std::move(lookup)), bytes_(bytes) {}
  void launch(const workload::CollectiveCall& call, std::function<void()> on_done) override {
    const auto [duration, moved] = lookup_(call);
    if (bytes_ != nullptr) bytes_->add(*moved);
    sim_.schedule_after(duration, std::move(on_done));
  }

 private:
  engine::Simulator& sim_;
  Lookup lookup_;
  LinkClassBytes* bytes_;
};

void collect_link_bytes(const net::NetworkModel& network, const topo::Topology& topology, LinkClassBytes* out) {
  if (out == nullptr) return;
  const auto& links = topology.links();
  // In the order the flows first crossed the links, which a pass replayed on other GPUs of a symmetric fabric
  // shares (replay_fingerprint.hpp), so that its sums are the same to the bit. Copy ports (past the topology's
  // links) belong to no link class; host ports (past those) are counted apart.
  const net::NetLinkId host_ports = net::host_port(topology, 0, net::HostCopy::to_gpu);
  for (net::NetLinkId l : network.used_links()) {
    if (l >= host_ports) {
      out->host += network.link_bytes(l);
    } else if (l < links.size()) {
      out->bytes[static_cast<std::size_t>(links[l].link_class)] += network.link_bytes(l);
    }
  }
}

}  // namespace

PassRunner::PassRunner(const topo::Topology& topology, PassRunnerConfig config)
    : topology_(topology),
      config_(std::move(config)),
      links_(std::make_shared<const std::vector<net::NetLink>>(net::make_net_links(topology, config_.efficiency))) {
  shared_solo_memo_ = config_.solo_memo != nullptr;
  if (!config_.solo_memo) config_.solo_memo = std::make_shared<SoloCollectiveMemo>();
}

std::vector<net::CollectiveSpec> PassRunner::specs_of(const workload::CollectiveCall& call) const {
  net::CollectiveSpec spec;
  spec.bytes = call.bytes_per_rank;
  spec.host_in_bytes = call.host_in_bytes;
  spec.host_out_bytes = call.host_out_bytes;
  switch (call.kind) {
    case workload::CollectiveKind::dispatch:
    case workload::CollectiveKind::combine:
      spec.op = net::CollectiveOp::alltoall;
      spec.algorithm = config_.alltoall;
      if (call.matrix) {
        spec.byte_matrix = call.matrix->bytes;
        if (spec.algorithm == net::CollectiveAlgorithm::deepep) spec.node_bytes = call.matrix->node_bytes;
        spec.pipeline_chunks = config_.deepep_pipeline_chunks;
      }
      break;
    case workload::CollectiveKind::allreduce:
      spec.op = net::CollectiveOp::allreduce;
      spec.algorithm = config_.allreduce;
      break;
    case workload::CollectiveKind::reducescatter:
      spec.op = net::CollectiveOp::reducescatter;
      spec.algorithm = net::CollectiveAlgorithm::ring;
      break;
    case workload::CollectiveKind::allgather:
      spec.op = net::CollectiveOp::allgather;
      spec.algorithm = net::CollectiveAlgorithm::ring;
      break;
    case workload::CollectiveKind::alltoall:
      spec.op = net::CollectiveOp::alltoall;
      spec.algorithm = net::CollectiveAlgorithm::flat;
      break;
  }
  const auto n = static_cast<int>(call.gpus.size());
  const int size = call.group_size > 0 ? call.group_size : n;
  const int stride = call.group_size > 0 ? call.group_stride : 1;
  K3SIM_ASSERT(size > 0 && n % (size * stride) == 0, "collective groups do not tile the members");
  std::vector<net::CollectiveSpec> out;
  for (int g = 0; g < n / size; ++g) {
    const int first = g % stride + (g / stride) * stride * size;
    out.push_back(spec);
    auto& ranks = out.back().ranks;
    for (int i = 0; i < size; ++i) ranks.push_back(call.gpus[static_cast<std::size_t>(first + i * stride)]);
  }
  return out;
}

namespace {

// Engine invariant: when the event queue drains, every collective and every network flow has completed.
void check_all_completed(const net::CollectiveEngine& engine, const net::NetworkModel& network) {
  K3SIM_ASSERT(engine.running() == 0, "a collective never completed");
  K3SIM_ASSERT(network.active_flows() == 0, "a network flow never completed");
}

}  // namespace

bool PassRunner::replays_flow_by_flow(const workload::PassProgram& program) const {
  return config_.network->replays_overlapping_collectives && overlaps_collectives(program);
}

bool PassRunner::overlaps_collectives(const workload::PassProgram& program) const {
  std::vector<int> threads_per_gpu(program.gpus.size(), 0);
  for (const auto& t : program.threads) {
    if (++threads_per_gpu[static_cast<std::size_t>(t.gpu_slot)] > 1) return true;
  }
  // One thread that issues a collective while another it issued is still unwaited (FSDP's parameter all-gathers
  // of the dense and the expert groups, prefetched beside the gradient reduce-scatters): they may share links.
  for (const auto& t : program.threads) {
    int outstanding = 0;
    for (const auto& step : t.steps) {
      if (std::holds_alternative<workload::IssueStep>(step)) {
        if (++outstanding > 1) return true;
      } else if (std::holds_alternative<workload::WaitStep>(step)) {
        outstanding = std::max(0, outstanding - 1);
      }
    }
  }
  return false;
}

const SoloRun* SoloCollectiveMemo::find(const Head& head, std::span<const parallel::GpuIndex> gpus) const {
  const std::lock_guard lock(mutex_);
  const auto by_head = runs_.find(head);
  if (by_head == runs_.end()) return nullptr;
  const auto it = by_head->second.find(gpus);
  return it == by_head->second.end() ? nullptr : &it->second;
}

const SoloRun& SoloCollectiveMemo::insert(const Head& head, std::span<const parallel::GpuIndex> gpus,
                                          const SoloRun& run) {
  const std::lock_guard lock(mutex_);
  auto& by_gpus = runs_[head];
  if (const auto it = by_gpus.find(gpus); it != by_gpus.end()) return it->second;
  return by_gpus.emplace(std::vector<parallel::GpuIndex>(gpus.begin(), gpus.end()), run).first->second;
}

const SoloRun* SoloCollectiveMemo::find(const Print& print) const {
  const std::lock_guard lock(mutex_);
  const auto it = by_print_.find(print);
  return it == by_print_.end() ? nullptr : &it->second;
}

void SoloCollectiveMemo::insert(const Print& print, const SoloRun& run) {
  const std::lock_guard lock(mutex_);
  by_print_.try_emplace(print, run);
}

std::vector<net::CollectiveSpec> over_fabric(const std::vector<net::CollectiveSpec>& specs, int block_gpus,
                                             std::int64_t job_gpus) {
  K3SIM_ASSERT(block_gpus > 0 && job_gpus % block_gpus == 0, "fabric blocks do not tile the job");
  std::vector<net::CollectiveSpec> out = specs;
  if (specs.empty()) return out;
  parallel::GpuIndex first = specs.front().ranks.front();
  for (const auto& s : specs)
    for (auto g : s.ranks) first = std::min(first, g);
  const auto base = static_cast<std::int64_t>(first) / block_gpus * block_gpus;
  for (const auto& s : specs)
    for (auto g : s.ranks) K3SIM_ASSERT(g < base + block_gpus, "a collective spans two fabric blocks");
  for (std::int64_t b = 0; b < job_gpus; b += block_gpus) {
    if (b == base) continue;
    for (const auto& s : specs) {
      out.push_back(s);
      for (auto& g : out.back().ranks) g = static_cast<topo::GpuId>(g - base + b);
    }
  }
  return out;
}

void PassRunner::use_full_fabric(int block_gpus, std::int64_t job_gpus) {
  config_.fabric_block_gpus = block_gpus;
  config_.fabric_job_gpus = job_gpus;
}

const SoloRun& PassRunner::solo(const workload::CollectiveCall& call) const {
  const bool full = config_.fabric_block_gpus > 0 && (call.kind == workload::CollectiveKind::dispatch ||
                                                      call.kind == workload::CollectiveKind::combine);
  SoloCollectiveMemo::Head head{config_.network,
                                {},
                                full,
                                full ? config_.fabric_block_gpus : 0,
                                full ? config_.fabric_job_gpus : 0,
                                static_cast<int>(config_.alltoall),
                                static_cast<int>(config_.allreduce),
                                config_.deepep_pipeline_chunks,
                                static_cast<int>(call.kind),
                                call.group_size,
                                call.group_stride,
                                call.matrix.get(),
                                call.bytes_per_rank,
                                call.host_in_bytes,
                                call.host_out_bytes};
  head.link_figures.back() = config_.efficiency.sm_copy_nvlink;
  for (int c = 0; c < topo::kLinkClassCount; ++c) {
    head.link_figures[static_cast<std::size_t>(c)] = config_.efficiency.by_class[static_cast<std::size_t>(c)];
    head.link_figures[static_cast<std::size_t>(topo::kLinkClassCount + c)] =
        config_.efficiency.latency_scale[static_cast<std::size_t>(c)];
  }
  const std::span<const parallel::GpuIndex> gpus(call.gpus.data(), call.gpus.size());
  if (const auto* hit = config_.solo_memo->find(head, gpus)) return *hit;
  const auto specs = full ? over_fabric(specs_of(call), config_.fabric_block_gpus, config_.fabric_job_gpus) : specs_of(call);
  const std::int64_t blocks = full ? config_.fabric_job_gpus / config_.fabric_block_gpus : 1;
  // Replayed flow by flow, a collective alone costs milliseconds to a second: with a memo shared by other runs,
  // the same one on other GPUs of a symmetric fabric (another candidate's placement of the stage) is looked up
  // by its fingerprint, which costs its expansion only. One run places each stage once: no lookup.
  std::optional<SoloCollectiveMemo::Print> print;
  if (shared_solo_memo_ && config_.network->replays_overlapping_collectives) {
    print = SoloCollectiveMemo::Print{config_.network, collectives_fingerprint(specs, topology_, *links_), blocks};
    if (const auto* hit = config_.solo_memo->find(*print)) return config_.solo_memo->insert(head, gpus, *hit);
  }
  // Simulated outside the lock; two threads asking for the same collective compute the same value and the
  // first to insert keeps it.
  SoloRun run;
  run.duration = core::SimTime::from_seconds(concurrent_time(specs, &run.bytes));
  // Full fabric: every block's copy moves the same bytes (symmetry of the bytes, not of the contention), so
  // the block's share is what the whole fabric carried over the number of blocks.
  for (auto& b : run.bytes.bytes) b /= static_cast<double>(blocks);
  if (print) config_.solo_memo->insert(*print, run);
  return config_.solo_memo->insert(head, gpus, run);
}

PassOutcome PassRunner::run(const workload::PassProgram& program, LinkClassBytes* link_bytes, bool record_ops) const {
  return *run_or_share(program, link_bytes, record_ops, true);
}

std::optional<PassOutcome> PassRunner::run_or_share(const workload::PassProgram& program, LinkClassBytes* link_bytes,
                                                    bool record_ops, bool wait,
                                                    std::optional<ReplayMemo::Key>* key) const {
  if (!replays_flow_by_flow(program)) {
    engine::Simulator sim;
    SoloLauncher launcher(
        sim,
        [this](const workload::CollectiveCall& call) {
          const auto& r = solo(call);
          return std::pair{r.duration, &r.bytes};
        },
        link_bytes);
    auto outcome = execute_pass(program, sim, launcher, config_.comm_sm_slowdown, record_ops);
    if (link_bytes != nullptr) add_unsimulated_copies(program, *link_bytes);
    return outcome;
  }
  // The op trace is asked for a few passes and is not kept in the memo.
  std::optional<ReplayRecord> record;
  if (!config_.replays || record_ops) {
    record = replay(program, record_ops);
  } else {
    std::optional<ReplayMemo::Key> own;
    auto& k = key != nullptr ? *key : own;
    if (!k) {
      std::vector<std::vector<net::CollectiveSpec>> specs;
      for (const auto& call : program.collectives) specs.push_back(specs_of(call));
      k = ReplayMemo::Key{config_.network, replay_fingerprint(program, specs, topology_, *links_, config_.comm_sm_slowdown)};
    }
    record = config_.replays->get(*k, wait, [&] { return replay(program, false); });
    if (!record) return std::nullopt;
  }
  if (link_bytes != nullptr) {
    link_bytes->add(record->bytes);
    add_unsimulated_copies(program, *link_bytes);
  }
  return std::move(record->outcome);
}

void PassRunner::add_unsimulated_copies(const workload::PassProgram& program, LinkClassBytes& bytes) const {
  // A copy moves what the simulated one did alone (the same flows; contention moves time, not bytes).
  for (const auto& call : program.collectives) {
    if (call.copies_per_block == 1) continue;
    const auto& r = solo(call);
    bytes.add(r.bytes, call.copies_per_block - 1);
  }
}

ReplayRecord PassRunner::replay(const workload::PassProgram& program, bool record_ops) const {
  engine::Simulator sim;
  auto network = net::make_network(*config_.network, sim, links_);
  sim.add_model(*network);
  net::CollectiveEngine engine(sim, *network, topology_);
  EngineLauncher launcher(engine, *this);
  ReplayRecord out{execute_pass(program, sim, launcher, config_.comm_sm_slowdown, record_ops), {}};
  check_all_completed(engine, *network);
  collect_link_bytes(*network, topology_, &out.bytes);
  return out;
}

core::Seconds PassRunner::concurrent_time(const std::vector<net::CollectiveSpec>& specs, LinkClassBytes* link_bytes,
                                          const net::NetworkModelEntry* model) const {
  engine::Simulator sim;
  auto network = net::make_network(model != nullptr ? *model : *config_.network, sim, links_);
  sim.add_model(*network);
  net::CollectiveEngine engine(sim, *network, topology_);
  core::SimTime last;
  for (const auto& s : specs) {
    engine.start(s, [&last](const net::CollectiveResult& r) { last = std::max(last, r.finish); });
  }
  sim.run();
  check_all_completed(engine, *network);
  collect_link_bytes(*network, topology_, link_bytes);
  return last.seconds();
}

core::Seconds PassRunner::collective_time(const net::CollectiveSpec& spec, LinkClassBytes* link_bytes) const {
  return concurrent_time({spec}, link_bytes);
}

}  // namespace k3::exec
