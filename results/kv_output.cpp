#include "results/kv_output.hpp"

#include "model/totals.hpp"

namespace k3::results {

KvModel kv_model(const model::ModelSpec& spec, std::string note) {
  // Totals do not depend on the sequence length; 4096 is any valid one.
  const double params = model::summarize(spec, 4096).total_params_without_mtp;
  return {spec, params, std::move(note)};
}

std::vector<KvModel> kv_models_with_baselines(const model::ModelSpec& base, const std::string& note) {
  std::vector<KvModel> out;
  out.push_back(kv_model(base, note));
  if (base.name != "kimi-k2") out.push_back(kv_model(model::load_model("kimi-k2"), "K2: 61 MLA layers"));
  out.push_back(kv_model(model::with_full_attention_as_gqa(base, 8, 128, base.name + "/gqa8-128+128"),
                         "full-attention layers as GQA8, 128+128 (K3 notes)"));
  out.push_back(kv_model(model::with_full_attention_as_gqa(base, 1, 256, base.name + "/mfa-256+256"),
                         "full-attention layers as MFA (MQA) 256+256 (K3 notes)"));
  return out;
}

nlohmann::json kv_budget_json(const std::vector<KvModel>& models, const std::vector<double>& contexts,
                              const KvBudgetOptions& o) {
  nlohmann::json j;
  j["gpu"] = {{"name", o.gpu.name}, {"hbm_bytes", o.gpu.hbm_bytes}, {"source", o.gpu.source}};
  j["gpus"] = o.gpus;
  j["weight_bytes_per_param"] = o.weight_bytes_per_param;
  j["cache_bytes_per_element"] = o.cache_bytes_per_element;
  j["reserve_fraction"] = o.reserve_fraction;
  j["rows"] = nlohmann::json::array();
  for (const auto& m : models) {
    const auto kv = model::kv_cache(m.spec, o.cache_bytes_per_element);
    for (const double c : contexts) {
      const auto b = model::kv_budget(m.spec, m.total_params, c, o.gpu, o.gpus, o.weight_bytes_per_param,
                                      o.reserve_fraction, o.cache_bytes_per_element);
      nlohmann::json row{{"model", m.spec.name}, {"note", m.note}, {"context", c},
                         {"kv_cache_bytes_per_token", kv.bytes_per_token},
                         {"state_bytes_per_sequence", kv.state_bytes_per_sequence},
                         {"bytes_per_sequence", b.bytes_per_sequence},
                         {"bytes_per_sequence_per_gpu", b.bytes_per_sequence_per_gpu},
                         {"weight_bytes_per_gpu", b.weight_bytes_per_gpu},
                         {"free_bytes_per_gpu", b.free_bytes_per_gpu}, {"max_batch", b.max_batch}};
      if (o.batch > 0) {
        row["batch"] = o.batch;
        row["batch_bytes_per_gpu"] = o.batch * b.bytes_per_sequence_per_gpu;
        row["batch_fits"] = o.batch <= b.max_batch;
      }
      j["rows"].push_back(std::move(row));
    }
  }
  return j;
}

}  // namespace k3::results
