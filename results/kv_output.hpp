#pragma once
// The KV-cache budget as JSON: the `k3sim kv --json` contract and the KV curves of the `compare` review,
// from one writer. Rows: one per model and context, with the cache per token, the state per sequence, the
// bytes of one sequence (whole replica and per GPU), the weights and free memory per GPU and the largest
// batch that fits (model/kv_cache.hpp).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "model/kv_cache.hpp"
#include "model/model_spec.hpp"

namespace k3::results {

struct KvModel {
  model::ModelSpec spec;
  double total_params = 0;  // without MTP: what a serving replica holds
  std::string note;         // "as published", "K2: 61 MLA layers", ...
};

// `base` and the baselines the K3 notes compare it with: K2 (unless base is K2), its full-attention layers
// as GQA8 128+128, and as MFA (MQA) 256+256.
std::vector<KvModel> kv_models_with_baselines(const model::ModelSpec& base, const std::string& note = "as published");
KvModel kv_model(const model::ModelSpec& spec, std::string note);

struct KvBudgetOptions {
  model::GpuMemory gpu;
  int gpus = 64;                      // GPUs holding one model replica
  double weight_bytes_per_param = 2;  // 2 = BF16, 1 = FP8
  double reserve_fraction = 0.1;      // of HBM kept for activations and runtime
  int batch = 0;                      // sequences to check against the memory left; 0 = none
  double cache_bytes_per_element = 2; // of the MLA / GQA cache: 2 = BF16, 1 = FP8
};

// {"gpu": {...}, "gpus", "weight_bytes_per_param", "reserve_fraction", "rows": [...]} (reports/sections/kv.hpp).
nlohmann::json kv_budget_json(const std::vector<KvModel>& models, const std::vector<double>& contexts,
                              const KvBudgetOptions& options);

}  // namespace k3::results
