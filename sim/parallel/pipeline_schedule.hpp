#pragma once
// Pipeline-parallel schedules as per-rank lists of passes: 1F1B, interleaved 1F1B (Megatron-LM, virtual
// stages), DualPipe (DeepSeek-V3) and DualPipeV (its V-shaped half). A schedule says only the order in which
// each rank runs its passes; exec::pipeline_graph turns it into a step graph that the engine times.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/units.hpp"

namespace k3::parallel {

enum class PassKind : std::uint8_t {
  forward,           // F
  backward,          // B: input and weight gradients together
  backward_input,    // B without W (zero-bubble split); a later `weight` pass completes it
  weight,            // W: weight gradients deferred from an earlier backward_input
  forward_backward,  // F of one chunk overlapped with B of another (DualPipe's F&B)
};

// A unit of work of one micro-batch on one model chunk held by a rank.
struct ChunkWork {
  int chunk = 0;       // which of the rank's model chunks (virtual stage, DualPipe direction, or arm of the V)
  int microbatch = 0;  // index within that chunk's stream of micro-batches
};

struct Pass {
  PassKind kind = PassKind::forward;
  ChunkWork work;       // F, B, B-input, W, or the F half of forward_backward
  ChunkWork backward;   // the B half of forward_backward
};

inline void append_pass(std::vector<Pass>& list, PassKind kind, ChunkWork work, ChunkWork backward = {}) {
  list.push_back(Pass{kind, work, backward});
}

// Which stage each model chunk of a rank holds.
enum class ChunkLayout : std::uint8_t {
  interleaved,    // chunk c of rank r is stage c x PP + r (1F1B: c = 0 only; Megatron-LM's virtual stages)
  bidirectional,  // DualPipe: chunk 0 is stage r of the forward-direction stream, chunk 1 stage PP-1-r of the
                  // reverse one; both streams run through the same PP stages
  v_shape,        // DualPipeV: one stream through 2 x PP stages that goes down the ranks and back up, so chunk 0
                  // is stage r and chunk 1 stage 2 x PP - 1 - r (the last rank hands stage PP-1 to PP itself)
};

struct PipelineSchedule {
  int ranks = 1;            // pipeline ranks (PP)
  int chunks_per_rank = 1;  // model chunks each rank holds (vpp; 2 for DualPipe and DualPipeV)
  int microbatches = 1;     // per pipeline, all directions together
  int streams = 1;          // independent micro-batch streams (2 for DualPipe: one per direction)
  ChunkLayout layout = ChunkLayout::interleaved;
  std::vector<std::vector<Pass>> passes;  // [rank] -> in execution order

  // The pipeline stage (0 = first layers) that `chunk` of `rank` holds, in its stream's order.
  int stage_of(int rank, int chunk) const;
  // The stream a chunk's micro-batches belong to (DualPipe's direction; 0 otherwise).
  int stream_of(int rank, int chunk) const;
  // The rank holding `stage` of `stream`, and which of its chunks it is.
  std::pair<int, int> holder_of(int stream, int stage) const;
  int stages() const { return ranks * chunks_per_rank / streams; }
  // The distinct stages `rank` holds, ascending (what its parameters and activations belong to).
  std::vector<int> stages_held(int rank) const;
};

struct PipelineScheduleEntry;  // schedule_registry.hpp
// Throws InputError (key `parallel.*` / `batch.*`) when the schedule cannot run this layout, e.g.
// DualPipe needs an even PP and at least 2 x PP micro-batches, DualPipeV at least 2 x PP micro-batches,
// interleaved needs micro-batches % PP == 0.
PipelineSchedule make_schedule(const PipelineScheduleEntry& schedule, int pp, int vpp, int microbatches);

// What a pass costs on a rank; `chunk` lets stages differ (the first holds the embedding, the last the head).
struct PassCosts {
  std::function<core::SimTime(int rank, int chunk)> forward;
  std::function<core::SimTime(int rank, int chunk)> backward;        // full B (input + weight)
  std::function<core::SimTime(int rank, int chunk)> weight;          // W part of B
  std::function<core::SimTime(int rank, int f_chunk, int b_chunk)> forward_backward;  // overlapped F&B
  std::function<core::SimTime(int from_rank, int to_rank)> p2p;      // activation / gradient send
  // Blocking sends: the sending rank waits until its outputs have arrived before its next pass (Megatron-LM
  // 2021 synchronised after every batch_isend_irecv); otherwise only the receiver waits for them.
  bool blocking_p2p = false;
};

struct PassTiming {
  Pass pass;
  core::SimTime start;
  core::SimTime end;
};

struct PipelineTimeline {
  std::vector<std::vector<PassTiming>> per_rank;
  core::SimTime makespan;
  std::vector<core::SimTime> busy;  // per rank: sum of pass durations
  std::vector<core::SimTime> sending;  // per rank: time blocked in its own sends (blocking_p2p only)
  // Idle time of a rank inside [0, makespan]: the pipeline bubble as the closed forms count it.
  core::SimTime bubble(int rank) const {
    const auto r = static_cast<std::size_t>(rank);
    return makespan - busy[r] - sending[r];
  }
};

// What `pass` costs on rank `r`, asked of `costs` in a fixed order (a backward-input pass: backward, then
// weight, the difference being its own time).
core::SimTime pass_duration(const PassCosts& costs, int r, const Pass& pass);

// Megatron-Core's EP all-to-all overlap (--overlap-moe-expert-parallel-comm, megatron/core/pipeline_parallel/
// combined_1f1b.py): in the steady state of a 1F1B schedule each backward and the forward after it run as one F&B
// pass, the two micro-batches' all-to-alls overlapping each other's compute as in DualPipe's F&B. Pairing each
// backward with the next forward is Megatron's one extra warm-up forward (its interleaved warm-up count + 1): a
// rank's list F x w, F(w) B0, F(w+1) B1, ... becomes F x (w + 1), [B0 & F(w+1)], [B1 & F(w+2)], ..., then the
// cool-down backwards. A pair stays apart where the backward needs that forward (the same micro-batch at a stage
// at or after the backward's).
void merge_steady_state(PipelineSchedule& schedule);

// Gradient accumulation as separate schedules (batch.gradient_accumulation_steps; PyTorch-native trainers call
// the schedule once per accumulation step): each rank runs its passes `times` over, the k-th time on micro-batches
// k x (per stream) onward, so each repetition fills and drains the pipeline on its own. The gradients are reduced
// and the optimizer steps once, after the last.
void repeat_schedule(PipelineSchedule& schedule, int times);

// Asks `costs` once for each pass of each rank, rank by rank and in each rank's order (pass_duration's order);
// no time, no p2p. exec::pipeline_graph asks in this order too, so a caller that only wants to know which
// passes each rank runs walks this instead.
void ask_each_pass(const PipelineSchedule& schedule, const PassCosts& costs);

std::string to_string(PassKind k);

}  // namespace k3::parallel
