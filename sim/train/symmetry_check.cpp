#include "sim/train/symmetry_check.hpp"

#include "sim/net/network_registry.hpp"

namespace k3::train {

SymmetryCheckResult check_symmetry(const exec::PassRunner& runner, const workload::CollectiveCall& call, int block_gpus,
                                   std::int64_t job_gpus) {
  const auto& analytical = net::network_model("analytical", {});
  const auto specs = runner.specs_of(call);
  SymmetryCheckResult r;
  r.ran = true;
  r.blocks = static_cast<int>(job_gpus / block_gpus);
  r.block_s = runner.concurrent_time(specs, nullptr, &analytical);
  r.fabric_s = r.blocks > 1 ? runner.concurrent_time(exec::over_fabric(specs, block_gpus, job_gpus), nullptr, &analytical)
                            : r.block_s;
  return r;
}

}  // namespace k3::train
