#include "results/balance_output.hpp"

namespace k3::results {

nlohmann::json balance_run_to_json(const balancing::BalanceRun& r) {
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& s : r.curve)
    curve.push_back({{"step", s.step},
                     {"max_vio", s.max_vio},
                     {"gpu_max_over_mean", s.gpu_max_over_mean},
                     {"bias_error_max", s.bias_error_max},
                     {"bias_error_rms", s.bias_error_rms}});
  return {{"model", r.model},
          {"balancer", r.balancer},
          {"bins", r.bins == 0 ? nlohmann::json(nullptr) : nlohmann::json(r.bins)},
          {"tokens_per_step", r.tokens_per_step},
          {"noise_floor", r.noise_floor},
          {"noise_floor_method", "closed form: E[max of n independent Binomial(m, k/n)] from the exact CDF"},
          {"steps_to_floor", r.steps_to_floor ? nlohmann::json(*r.steps_to_floor) : nlohmann::json(nullptr)},
          {"steady_maxvio_mean", r.steady_maxvio_mean},
          {"steady_maxvio_p99", r.steady_maxvio_p99},
          {"allreduce_bytes_per_layer", r.allreduce_bytes_per_layer},
          {"curve", curve}};
}

}  // namespace k3::results
