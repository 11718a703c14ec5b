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
        blocked_since_(p.threads.size()), host_clock_(p.threads.size()),
        host_charged_(p.threads.size(), kNothingCharged),
        stream_(p.gpus.size()), stream_queue_(p.gpus.size()), comm_members_(p.gpus.size(), 0),
        issued_(p.collectives.size(), 0), done_(p.collectives.size(), false),
        waiters_(p.collectives.size()), start_waiters_(p.collectives.size()), alone_on_gpu_(p.gpus.size(), false) {
    K3SIM_ASSERT(slowdown >= 1.0, "a communication kernel cannot speed compute up");
    std::vector<int> threads_on(p.gpus.size(), 0);
    for (const auto& th : p.threads) ++threads_on[static_cast<std::size_t>(th.gpu_slot)];
    for (std::size_t g = 0; g < threads_on.size(); ++g) alone_on_gpu_[g] = threads_on[g] == 1;
    for (std::size_t c = 0; c < p.collectives.size(); ++c) {
      K3SIM_ASSERT(!p.participants[c].empty(), "collective without participants");
    }
  }

  PassOutcome run() {
    const SimTime start = sim_.now();
    std::fill(host_clock_.begin(), host_clock_.end(), start);
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
  // The compute running on one GPU's stream: one step, or a thread's run of consecutive steps when no other
  // thread shares the GPU. Its nominal work (the steps' durations on all SMs) drains at full rate, or at
  // 1 / slowdown while a communication kernel holds SMs of that GPU.
  struct Segment {
    // Where the wall clock stood when the segment had drained `drained` of its nominal work, and whether it
    // was slowed from there on: one at the start and one per change of speed, so each step's end is exact.
    struct Pace {
      SimTime wall;
      SimTime drained;
      bool slowed;
    };
    bool running = false;
    int thread = 0;
    std::size_t steps = 0;
    SimTime nominal_total;
    std::vector<Pace> paces;
    engine::EventHandle end;
  };

  void advance(int t) {
    const auto ti = static_cast<std::size_t>(t);
    const auto& steps = p_.threads[ti].steps;
    while (pc_[ti] < steps.size()) {
      const workload::Step& step = steps[pc_[ti]];
      if (const auto* c = std::get_if<workload::ComputeStep>(&step)) {
        if (!host_has_issued(t, c->host)) return;  // resumes when the host has
        request_stream(t);
        return;  // resumes when the compute step ends
      }
      if (const auto* is = std::get_if<workload::IssueStep>(&step)) {
        if (!host_has_issued(t, is->host)) return;
        ++pc_[ti];
        const auto ci = static_cast<std::size_t>(is->collective);
        issue(t, is->collective);
        if (is->host_sync && issued_[ci] < p_.participants[ci].size()) {
          blocked_since_[ti] = sim_.now();
          start_waiters_[ci].push_back(t);
          return;  // resumes when the last member has issued it
        }
        if (is->host_sync) host_clock_[ti] = std::max(host_clock_[ti], sim_.now());
        continue;
      }
      const int c = std::get<workload::WaitStep>(step).collective;
      if (done_[static_cast<std::size_t>(c)]) {
        pass_wait(ti);
        continue;
      }
      blocked_since_[ti] = sim_.now();
      waiters_[static_cast<std::size_t>(c)].push_back(t);
      return;
    }
    accounts_[ti].finish = sim_.now();
  }

  // A member's communication kernel starts when it issues and holds its SMs until the collective completes
  // (it waits on the stragglers in place, as NCCL's and DeepEP's kernels do).
  void issue(int t, int c) {
    hold_sms(gpu_of(t), +1);
    const auto ci = static_cast<std::size_t>(c);
    if (++issued_[ci] < p_.participants[ci].size()) return;
    launched_at_[ci] = sim_.now();
    launcher_.launch(p_.collectives[ci], [this, c] { complete(c); });
    // Hosts held by the collective's sync go on: the counts they waited for are known once all have issued.
    auto held = std::move(start_waiters_[ci]);
    for (const int w : held) {
      const auto wi = static_cast<std::size_t>(w);
      accounts_[wi].exposed_comm[to_string(p_.collectives[ci].kind)] += sim_.now() - blocked_since_[wi];
      host_clock_[wi] = std::max(host_clock_[wi], sim_.now());
      sim_.schedule_at(sim_.now(), [this, w] { advance(w); });
    }
  }

  void complete(int c) {
    const auto ci = static_cast<std::size_t>(c);
    done_[ci] = true;
    for (const int t : p_.participants[ci]) hold_sms(gpu_of(t), -1);
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
      pass_wait(ti);
      advance(t);
    }
    waiters_[ci].clear();
  }

  // The thread's wait at pc is met now: a host sync holds its host until now, then the thread moves past it.
  void pass_wait(std::size_t ti) {
    if (std::get<workload::WaitStep>(p_.threads[ti].steps[pc_[ti]]).host_sync) {
      host_clock_[ti] = std::max(host_clock_[ti], sim_.now());
    }
    ++pc_[ti];
  }

  // The host issues the thread's step at pc after the step before it, `cost` later (charged once); false, with
  // the thread resumed then, when it has not done so yet.
  bool host_has_issued(int t, SimTime cost) {
    const auto ti = static_cast<std::size_t>(t);
    if (host_charged_[ti] != pc_[ti]) {
      host_clock_[ti] += cost;
      host_charged_[ti] = pc_[ti];
    }
    if (host_clock_[ti] <= sim_.now()) return true;
    accounts_[ti].host_wait += host_clock_[ti] - sim_.now();
    sim_.schedule_at(host_clock_[ti], [this, t] { advance(t); });
    return false;
  }

  std::size_t gpu_of(int t) const { return static_cast<std::size_t>(p_.threads[static_cast<std::size_t>(t)].gpu_slot); }
  bool slowed(std::size_t gpu) const { return slowdown_ != 1.0 && comm_members_[gpu] > 0; }
  SimTime wall_time(SimTime nominal, bool slow) const {
    return slow ? SimTime::from_seconds(nominal.seconds() * slowdown_) : nominal;
  }

  // Communication kernels on a GPU share the SMs reserved for them (DeepSeek-V3 gives all of its
  // communication 20 SMs), so compute slows when the first starts and recovers when the last ends.
  void hold_sms(std::size_t gpu, int change) {
    const bool before = slowed(gpu);
    comm_members_[gpu] += change;
    if (before == slowed(gpu)) return;
    Segment& seg = stream_[gpu];
    if (!seg.running) return;
    const Segment::Pace& last = seg.paces.back();
    const SimTime elapsed = sim_.now() - last.wall;
    const SimTime drained = std::min(
        seg.nominal_total, last.drained + (before ? SimTime::from_seconds(elapsed.seconds() / slowdown_) : elapsed));
    seg.paces.push_back({sim_.now(), drained, !before});
    sim_.cancel(seg.end);
    schedule_end(gpu);
  }

  void request_stream(int t) {
    const auto gpu = gpu_of(t);
    if (stream_[gpu].running) {
      stream_queue_[gpu].push_back({t, sim_.now()});
      return;
    }
    run_on_stream(t, sim_.now());
  }

  void run_on_stream(int t, SimTime requested) {
    const auto ti = static_cast<std::size_t>(t);
    const auto gpu = gpu_of(t);
    accounts_[ti].stream_wait += sim_.now() - requested;
    const auto& list = p_.threads[ti].steps;
    Segment& seg = stream_[gpu];
    seg.running = true;
    seg.thread = t;
    seg.steps = 1;
    seg.nominal_total = std::get<workload::ComputeStep>(list[pc_[ti]]).duration;
    if (alone_on_gpu_[gpu]) {
      // No other thread can take this stream, so the thread's next compute steps run back to back whatever
      // happens elsewhere: one event for the run of them instead of one each.
      for (std::size_t k = pc_[ti] + 1; k < list.size(); ++k) {
        const auto* next = std::get_if<workload::ComputeStep>(&list[k]);
        // A step with host time of its own may find the host behind: it goes through advance() on its own.
        if (next == nullptr || next->host != SimTime::zero()) break;
        seg.nominal_total += next->duration;
        ++seg.steps;
      }
    }
    seg.paces.clear();
    seg.paces.push_back({sim_.now(), SimTime::zero(), slowed(gpu)});
    schedule_end(gpu);
  }

  void schedule_end(std::size_t gpu) {
    Segment& seg = stream_[gpu];
    const Segment::Pace& last = seg.paces.back();
    seg.end = sim_.schedule_after(wall_time(seg.nominal_total - last.drained, last.slowed),
                                  [this, gpu] { finish_segment(gpu); });
  }

  void finish_segment(std::size_t gpu) {
    Segment& seg = stream_[gpu];
    seg.running = false;
    const int t = seg.thread;
    const auto ti = static_cast<std::size_t>(t);
    book(t, gpu, seg);
    pc_[ti] += seg.steps;
    if (!stream_queue_[gpu].empty()) {
      const auto [next, since] = stream_queue_[gpu].front();
      stream_queue_[gpu].pop_front();
      run_on_stream(next, since);
    }
    advance(t);
  }

  // Books the segment's steps, each from where the segment had drained the nominal work before it to where
  // it had drained its own (the paces give the wall time of any point of the nominal work).
  void book(int t, std::size_t gpu, const Segment& seg) {
    const auto ti = static_cast<std::size_t>(t);
    const auto& list = p_.threads[ti].steps;
    SimTime at = seg.paces.front().wall;
    SimTime drained;
    std::size_t pace = 0;
    for (std::size_t k = 0; k < seg.steps; ++k) {
      const auto& step = std::get<workload::ComputeStep>(list[pc_[ti] + k]);
      drained += step.duration;
      while (pace + 1 < seg.paces.size() && seg.paces[pace + 1].drained <= drained) ++pace;
      const auto& p = seg.paces[pace];
      const SimTime until = k + 1 == seg.steps ? sim_.now()
                                               : std::min(sim_.now(), p.wall + wall_time(drained - p.drained, p.slowed));
      const SimTime duration = until - at;
      accounts_[ti].compute += duration;
      add_compute(by_category_[ti], step.category, duration);
      if (step.measured) add_compute(measured_by_category_[ti], step.category, duration);
      if (record_ops_) ops_.push_back({static_cast<int>(gpu), t, at, until, std::string(step.category), {}, -1});
      at = until;
    }
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
  static constexpr std::size_t kNothingCharged = static_cast<std::size_t>(-1);
  std::vector<SimTime> host_clock_;        // per thread: when its host finished issuing up to its pc
  std::vector<std::size_t> host_charged_;  // per thread: the pc whose host cost host_clock_ holds
  std::vector<Segment> stream_;
  std::vector<std::deque<std::pair<int, SimTime>>> stream_queue_;
  std::vector<int> comm_members_;  // per GPU: members of collectives issued there and not yet complete
  std::vector<std::size_t> issued_;
  std::vector<bool> done_;
  std::vector<std::vector<int>> waiters_;
  std::vector<std::vector<int>> start_waiters_;  // per collective: threads whose host waits for all to issue it
  std::vector<bool> alone_on_gpu_;
};

}  // namespace

PassOutcome execute_pass(const workload::PassProgram& program, engine::Simulator& sim, CollectiveLauncher& launcher,
                         double comm_sm_slowdown, bool record_ops) {
  return PassRun(program, sim, launcher, comm_sm_slowdown, record_ops).run();
}

SimTime busiest_compute_stream(const workload::PassProgram& program) {
  std::vector<SimTime> per_gpu(program.gpus.size(), SimTime::zero());
  for (const auto& t : program.threads) {
    for (const auto& step : t.steps) {
      if (const auto* c = std::get_if<workload::ComputeStep>(&step)) per_gpu[static_cast<std::size_t>(t.gpu_slot)] += c->duration;
    }
  }
  return per_gpu.empty() ? SimTime::zero() : *std::max_element(per_gpu.begin(), per_gpu.end());
}

SimTime busiest_host(const workload::PassProgram& program) {
  SimTime most;
  for (const auto& t : program.threads) {
    SimTime sum;
    for (const auto& step : t.steps) {
      if (const auto* c = std::get_if<workload::ComputeStep>(&step)) sum += c->host;
      if (const auto* i = std::get_if<workload::IssueStep>(&step)) sum += i->host;
    }
    most = std::max(most, sum);
  }
  return most;
}

}  // namespace k3::exec
