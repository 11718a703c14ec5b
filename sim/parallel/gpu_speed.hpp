#pragma once
// GPUs of one SKU do not run at one speed: clocks and power management differ chip by chip. Sinha et al. measured
// 8% average (22% at most) performance variation across the GPUs of one cluster and SKU, with outliers up to 1.5x
// slower than the median GPU ("Not All GPUs Are Created Equal", SC22, arXiv:2208.11035). A pass waits at every
// collective for its slowest member and a pipeline hands work on at the slowest stage's pace, so a step runs at the
// pace of its slow GPUs. Here each GPU's compute runs at a speed relative to the kernel tables' GPU, taken as the
// fleet's median: drawn from the scenario's spread, or set GPU by GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "sim/parallel/rank_mapping.hpp"

namespace k3::parallel {

struct SlowGpu {
  std::int64_t gpu = 0;  // global GPU index (node by node)
  double speed = 1;      // its compute rate over the kernel tables' GPU
  core::InputLocation where;  // its entry in the scenario, for the error when the cluster has no such GPU
};

// A run of consecutive GPUs at one speed: nodes of another kind (an older generation, a power-capped rack).
struct SlowGpuRange {
  std::int64_t first = 0;  // global GPU index of the first
  std::int64_t count = 0;
  double speed = 1;
  core::InputLocation where;
};

struct GpuSpeedSpec {
  // The range of speeds across the fleet as a fraction of the median: each GPU's speed is uniform on
  // [1 - spread/2, 1 + spread/2], drawn from the scenario's seed and the GPU's index. 0: every GPU at 1.
  double spread = 0;
  std::vector<SlowGpuRange> ranges;  // after the draw (a later range wins where two overlap)
  std::vector<SlowGpu> slow;  // set GPU by GPU, after the draw and the ranges
  bool modelled() const { return spread > 0 || !slow.empty() || !ranges.empty(); }
};

// Each GPU's speed, drawn on demand (a 131,072-GPU job keeps no table).
class GpuSpeeds {
 public:
  GpuSpeeds() = default;
  // Throws core::InputError naming the gpu_speed.slow or .ranges entry of a GPU the job does not have.
  GpuSpeeds(GpuSpeedSpec spec, std::int64_t gpus, std::uint64_t seed);
  bool modelled() const { return spec_.modelled(); }
  double of(GpuIndex gpu) const;
  const GpuSpeedSpec& spec() const { return spec_; }

 private:
  GpuSpeedSpec spec_;
  std::uint64_t stream_ = 0;
};

// The block each pipeline rank's passes are simulated on, and at what speeds. Blocks of a stage are independent
// inside a pass (they meet only at pipeline hand-offs and the DP reductions), so the stage's slowest block sets
// the pace the others wait for at those: each rank runs the block holding its stage's slowest GPU (the first
// block where every GPU runs at 1), each of its GPUs at its own speed. Exact for slow GPUs in one pipeline replica;
// where several replicas hold slow GPUs at different stages it joins each stage's slowest into one pipeline, an
// upper bound on the step (the real slowest replica is slow at fewer stages).
struct SimulatedBlocks {
  std::vector<std::vector<GpuIndex>> gpus;  // [pipeline rank]: the block, in position order
  std::vector<std::vector<double>> speed;   // [pipeline rank][position]; empty: every GPU of the block at 1
  // [pipeline rank]: ranks with the same speeds share a class, and with it their simulated passes (0: all at 1).
  std::vector<int> speed_class;
  // The job's slowest GPU and its speed (1 and GPU 0 where none is slow).
  GpuIndex slowest_gpu = 0;
  double slowest_speed = 1;
  bool uniform_within(int rank) const;  // every GPU of the rank's block at one speed
  double slowest_in(int rank) const;    // the slowest speed in the rank's block (1 where all run at 1)
};

SimulatedBlocks choose_simulated_blocks(const RankMapping& map, const GpuSpeeds& speeds);

}  // namespace k3::parallel
