#pragma once
// What a serving run keeps per request, per attention-DP rank and per instance while it runs (ServingRun in
// serving_simulator.cpp): the queues a request moves through, the running decode batch as a heap of finish
// steps with the sum of its contexts (so a step costs O(ranks), not O(sequences)), and the iteration in flight.
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "core/units.hpp"
#include "sim/serve/iteration_cost.hpp"
#include "sim/serve/kv_capacity.hpp"
#include "sim/serve/request_stream.hpp"
#include "topologies/topology.hpp"

namespace k3::serve {

struct Req {
  Request r;
  double done = 0;          // prompt tokens in the cache: prefix hits, then computed chunks
  double first_token = -1, finish = -1;
  double decode_start = -1;  // the first decode iteration that runs it starts (after the KV transfer and any wait)
  core::Bytes prefill_bytes = 0, decode_bytes = 0;  // KV reserved per GPU on each side
  long start_step = 0, finish_step = 0;
  int prefill_instance = -1, prefill_rank = -1;
};

struct Running {
  long finish_step;
  int id;
  bool operator>(const Running& o) const { return finish_step != o.finish_step ? finish_step > o.finish_step : id > o.id; }
};

struct Rank {
  std::deque<int> pending;   // here, KV not reserved yet
  std::deque<int> prefill;   // KV reserved, prompt not finished
  std::priority_queue<Running, std::vector<Running>, std::greater<>> running;
  double context_sum = 0;    // of the running sequences
  core::Bytes kv_used = 0;   // per GPU
  double queued_tokens = 0;  // prompt tokens not yet computed, pending + prefill
  double load() const { return static_cast<double>(pending.size() + prefill.size() + running.size()); }
};

struct Chunk { int rank, id; double tokens; };

struct Instance {
  bool prefill = false, decode = false;
  std::vector<topo::GpuId> gpus;
  std::vector<Rank> ranks;
  std::unique_ptr<IterationCostModel> cost;
  const RankKvCapacity* kv = nullptr;
  bool busy = false;
  long step = 0;
  std::vector<Chunk> chunks;         // of the iteration in flight
  std::vector<int> decoding;         // running sequences per rank in the iteration in flight
  core::Seconds pipeline_drain_s = 0;  // pp stages: from the iteration's end until its batch leaves the last stage
};

}  // namespace k3::serve
