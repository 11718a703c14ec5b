#include "sim/exec/pass_executor.hpp"

#include <algorithm>
#include <deque>

#include "core/error.hpp"

namespace k3::exec {

using core::SimTime;

namespace {

class PassRun {
 public:
  PassRun(const workload::PassProgram& p, engine::Simulator& sim, CollectiveLauncher& launcher, double slowdown,
          bool record_ops)
      : p_(p), sim_(sim), launcher_(launcher), slowdown_(slowdown), record_ops_(record_ops),
        launched_at_(p.collectives.size()),
        pc_(p.threads.size(), 0), accounts_(p.threads.size()), by_category_(p.threads.size()),
        measured_by_category_(p.threads.size()),
        blocked_since_(p.threads.size()),
        stream_busy_(p.gpus.size(), false), stream_queue_(p.gpus.size()),
        issued_(p.collectives.size(), 0), done_(p.collectives.size(), false),
        waiters_(p.collectives.size()), alone_on_gpu_(p.gpus.size(), false) {
    std::vector<int> threads_on(p.gpus.size(), 0);
    for (const auto& th : p.threads) ++threads_on[static_cast<std::size_t>(th.gpu_slot)];
    for (std::size_t g = 0; g < threads_on.size(); ++g) alone_on_gpu_[g] = threads_on[g] == 1;
    for (std::size_t c = 0; c < p.collectives.size(); ++c) {
      K3SIM_ASSERT(!p.participants[c].empty(), "collective without participants");
    }
  }

  PassOutcome run() {
    const SimTime start = sim_.now();
    for (std::size_t t = 0; t < p_.threads.size(); ++t) {
      sim_.schedule_at(start, [this, t] { advance(static_cast<int>(t)); });
    }
    PassOutcome out;
    out.events = sim_.run();
    for (std::size_t t = 0; t < accounts_.size(); ++t) {
      for (const auto& [category, time] : by_category_[t]) accounts_[t].compute_by_category[std::string(category)] += time;
      for (const auto& [category, time] : measured_by_category_[t]) {
        accounts_[t].measured_by_category[std::string(category)] += time;
      }
    }
    out.threads = std::move(accounts_);
    for (auto& op : ops_) {
      op.start = op.start - start;
      op.end = op.end - start;
    }
    out.ops = std::move(ops_);
    for (std::size_t t = 0; t < out.threads.size(); ++t) {
      K3SIM_ASSERT(pc_[t] == p_.threads[t].steps.size(), "pass thread did not finish (deadlocked collective)");
      auto& a = out.threads[t];
      a.finish = a.finish - start;
      if (a.finish > out.duration) {
        out.duration = a.finish;
        out.critical_thread = static_cast<int>(t);
      }
    }
    return out;
  }

 private:
  void advance(int t) {
    const auto ti = static_cast<std::size_t>(t);
    const auto& steps = p_.threads[ti].steps;
    while (pc_[ti] < steps.size()) {
      const workload::Step& step = steps[pc_[ti]];
      if (const auto* c = std::get_if<workload::ComputeStep>(&step)) {
        request_stream(t, *c);
        return;  // resumes when the compute step ends
      }
      if (const auto* is = std::get_if<workload::IssueStep>(&step)) {
        ++pc_[ti];
        issue(is->collective);
        continue;
      }
      const int c = std::get<workload::WaitStep>(step).collective;
      if (done_[static_cast<std::size_t>(c)]) {
        ++pc_[ti];
        continue;
      }
      blocked_since_[ti] = sim_.now();
      waiters_[static_cast<std::size_t>(c)].push_back(t);
      return;
    }
    accounts_[ti].finish = sim_.now();
  }

  void issue(int c) {
    const auto ci = static_cast<std::size_t>(c);
    if (++issued_[ci] < p_.participants[ci].size()) return;
    launched_at_[ci] = sim_.now();
    launcher_.launch(p_.collectives[ci], [this, c] { complete(c); });
  }

  void complete(int c) {
    const auto ci = static_cast<std::size_t>(c);
    done_[ci] = true;
    const auto kind = to_string(p_.collectives[ci].kind);
    if (record_ops_) {
      for (const int t : p_.participants[ci]) {
        ops_.push_back({p_.threads[static_cast<std::size_t>(t)].gpu_slot, t, launched_at_[ci], sim_.now(), kind,
                        p_.collectives[ci].label, c});
      }
    }
    for (int t : waiters_[ci]) {
      const auto ti = static_cast<std::size_t>(t);
      accounts_[ti].exposed_comm[kind] += sim_.now() - blocked_since_[ti];
      ++pc_[ti];
      advance(t);
    }
    waiters_[ci].clear();
  }

  void request_stream(int t, const workload::ComputeStep& step) {
    const auto gpu = static_cast<std::size_t>(p_.threads[static_cast<std::size_t>(t)].gpu_slot);
    if (stream_busy_[gpu]) {
      stream_queue_[gpu].push_back({t, sim_.now()});
      return;
    }
    run_on_stream(t, step, sim_.now());
  }

  void run_on_stream(int t, const workload::ComputeStep& step, SimTime requested) {
    const auto ti = static_cast<std::size_t>(t);
    const auto gpu = static_cast<std::size_t>(p_.threads[ti].gpu_slot);
    stream_busy_[gpu] = true;
    accounts_[ti].stream_wait += sim_.now() - requested;
    SimTime duration = account(t, gpu, step, sim_.now());
    std::size_t steps = 1;
    if (alone_on_gpu_[gpu]) {
      // No other thread can take this stream, so the thread's next compute steps run back to back whatever
      // happens elsewhere: one event for the run of them instead of one each (the times are the same sums).
      const auto& list = p_.threads[ti].steps;
      for (std::size_t k = pc_[ti] + 1; k < list.size(); ++k) {
        const auto* next = std::get_if<workload::ComputeStep>(&list[k]);
        if (next == nullptr) break;
        duration += account(t, gpu, *next, sim_.now() + duration);
        ++steps;
      }
    }
    sim_.schedule_after(duration, [this, t, gpu, steps] {
      stream_busy_[gpu] = false;
      pc_[static_cast<std::size_t>(t)] += steps;
      if (!stream_queue_[gpu].empty()) {
        const auto [next, since] = stream_queue_[gpu].front();
        stream_queue_[gpu].pop_front();
        const auto& s = std::get<workload::ComputeStep>(p_.threads[static_cast<std::size_t>(next)]
                                                  .steps[pc_[static_cast<std::size_t>(next)]]);
        run_on_stream(next, s, since);
      }
      advance(t);
    });
  }

  // Books one compute step of thread t starting at `start` on the GPU's stream; returns how long it runs.
  SimTime account(int t, std::size_t gpu, const workload::ComputeStep& step, SimTime start) {
    const auto ti = static_cast<std::size_t>(t);
    const auto duration = scaled_compute(step, slowdown_);
    accounts_[ti].compute += duration;
    add_compute(by_category_[ti], step.category, duration);
    if (step.measured) add_compute(measured_by_category_[ti], step.category, duration);
    if (record_ops_) {
      ops_.push_back({static_cast<int>(gpu), t, start, start + duration, std::string(step.category), {}, -1});
    }
    return duration;
  }

  // Compute time by category while the pass runs: a handful of categories, each a literal, so a flat list
  // found by the literal's address (then by content) instead of a string-keyed map per step.
  using CategoryTimes = std::vector<std::pair<std::string_view, SimTime>>;
  static void add_compute(CategoryTimes& times, std::string_view category, SimTime duration) {
    for (auto& [c, t] : times) {
      if ((c.data() == category.data() && c.size() == category.size()) || c == category) {
        t += duration;
        return;
      }
    }
    times.emplace_back(category, duration);
  }

  const workload::PassProgram& p_;
  engine::Simulator& sim_;
  CollectiveLauncher& launcher_;
  double slowdown_;
  bool record_ops_;
  std::vector<SimTime> launched_at_;
  std::vector<OpSpan> ops_;
  std::vector<std::size_t> pc_;
  std::vector<ThreadAccount> accounts_;
  std::vector<CategoryTimes> by_category_;
  std::vector<CategoryTimes> measured_by_category_;
  std::vector<SimTime> blocked_since_;
  std::vector<bool> stream_busy_;
  std::vector<std::deque<std::pair<int, SimTime>>> stream_queue_;
  std::vector<std::size_t> issued_;
  std::vector<bool> done_;
  std::vector<std::vector<int>> waiters_;
  std::vector<bool> alone_on_gpu_;
};

}  // namespace

PassOutcome execute_pass(const workload::PassProgram& program, engine::Simulator& sim, CollectiveLauncher& launcher,
                         double compute_slowdown, bool record_ops) {
  return PassRun(program, sim, launcher, compute_slowdown, record_ops).run();
}

SimTime scaled_compute(const workload::ComputeStep& step, double compute_slowdown) {
  return SimTime::from_seconds(step.duration.seconds() * compute_slowdown);
}

SimTime busiest_compute_stream(const workload::PassProgram& program, double compute_slowdown) {
  std::vector<SimTime> per_gpu(program.gpus.size(), SimTime::zero());
  for (const auto& t : program.threads) {
    for (const auto& step : t.steps) {
      if (const auto* c = std::get_if<workload::ComputeStep>(&step)) {
        per_gpu[static_cast<std::size_t>(t.gpu_slot)] += scaled_compute(*c, compute_slowdown);
      }
    }
  }
  return per_gpu.empty() ? SimTime::zero() : *std::max_element(per_gpu.begin(), per_gpu.end());
}

}  // namespace k3::exec
