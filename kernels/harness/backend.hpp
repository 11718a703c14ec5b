#pragma once
// A calibration backend runs K3's operators at a sweep of shapes on one kind of device and returns timed,
// validated runs. The cuda backend times the CUDA kernels (CUDA events, L2 flushed between repetitions);
// the cpu backend times the CPU references so that calibrate -> profile -> cost model runs without a GPU.
// This header is CUDA-free: cli/ includes it.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/harness/timing.hpp"
#include "sim/cost/calibration_profile.hpp"

namespace k3::kernels {

struct OpRun {
  std::string op;        // "situ_glu", "gemm", "hbm_copy", ...
  std::string op_class;  // the profile's curve it feeds: "elementwise", "gemm_bf16", "copy", ...
  std::string peak;      // "hbm" or "gemm_<dtype>"
  cost::WorkUnit unit = cost::WorkUnit::kBytes;
  nlohmann::json shape;  // tokens, widths, dtype, ...
  double flops = 0;      // per launch
  double bytes = 0;      // per launch (compulsory traffic)
  Timing timing;
  std::string validation;  // how the output was checked before timing
  double work() const { return unit == cost::WorkUnit::kFlops ? flops : bytes; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual cost::DeviceIdentity identify() const = 0;
  // Operators this backend can run, probes ("hbm_copy", "gemm_peak") first.
  virtual std::vector<std::string> available_ops() const = 0;
  // Validates the op against its reference, then times it over the shape sweep (smaller with `quick`).
  // Throws core::InternalError when a kernel disagrees with its reference.
  virtual std::vector<OpRun> measure(const std::string& op, bool quick) = 0;
};

std::unique_ptr<Backend> make_cpu_backend();
// core::InputError when this k3sim was built without CUDA or no GPU is visible.
std::unique_ptr<Backend> make_cuda_backend();
bool cuda_backend_compiled();

}  // namespace k3::kernels
