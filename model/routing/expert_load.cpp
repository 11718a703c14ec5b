#include "model/routing/expert_load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace k3::routing {

double ExpertLoad::max_over_mean(int layer) const {
  double worst = 0;
  for (int g = 0; g < gpus; ++g) worst = std::max(worst, share(layer, g));
  return worst * gpus;
}

ExpertLoad uniform_expert_load(int layers, int gpus) {
  K3SIM_ASSERT(layers >= 0 && gpus >= 1, "uniform expert load needs >= 1 GPU");
  ExpertLoad load{layers, gpus, "uniform", {}};
  load.gpu_share.assign(static_cast<std::size_t>(layers) * static_cast<std::size_t>(gpus), 1.0 / gpus);
  return load;
}

nlohmann::json to_json(const ExpertLoad& load) {
  nlohmann::json rows = nlohmann::json::array();
  for (int l = 0; l < load.layers; ++l) {
    nlohmann::json row = nlohmann::json::array();
    for (int g = 0; g < load.gpus; ++g) row.push_back(load.share(l, g));
    rows.push_back(row);
  }
  return {{"layers", load.layers}, {"gpus", load.gpus}, {"source", load.source}, {"gpu_share", rows}};
}

ExpertLoad expert_load_from_json(const nlohmann::json& doc, const std::string& source) {
  auto fail = [&](const std::string& key, const std::string& problem, const std::string& allowed) {
    throw core::InputError({source, key, 0}, problem, allowed);
  };
  if (!doc.is_object()) fail("", "expert load is not a JSON object", "{layers, gpus, source, gpu_share}");
  for (const auto& [key, value] : doc.items())
    if (key != "layers" && key != "gpus" && key != "source" && key != "gpu_share")
      fail(key, "unknown key", "layers, gpus, source, gpu_share");
  for (const char* key : {"layers", "gpus", "gpu_share"})
    if (!doc.contains(key)) fail(key, "missing", "required");
  if (!doc["layers"].is_number_integer() || doc["layers"].get<int>() < 0) fail("layers", "not an integer >= 0", ">= 0");
  if (!doc["gpus"].is_number_integer() || doc["gpus"].get<int>() < 1) fail("gpus", "not an integer >= 1", ">= 1");
  ExpertLoad load;
  load.layers = doc["layers"].get<int>();
  load.gpus = doc["gpus"].get<int>();
  load.source = doc.contains("source") && doc["source"].is_string() ? doc["source"].get<std::string>() : "";
  const auto& rows = doc["gpu_share"];
  if (!rows.is_array() || static_cast<int>(rows.size()) != load.layers)
    fail("gpu_share", "not an array of one row per layer", fmt::format("{} rows", load.layers));
  for (std::size_t l = 0; l < rows.size(); ++l) {
    const auto& row = rows[l];
    const std::string key = fmt::format("gpu_share[{}]", l);
    if (!row.is_array() || static_cast<int>(row.size()) != load.gpus)
      fail(key, "not an array of one share per GPU", fmt::format("{} numbers", load.gpus));
    double sum = 0;
    for (const auto& v : row) {
      if (!v.is_number() || v.get<double>() < 0) fail(key, "share not a number >= 0", "numbers >= 0");
      sum += v.get<double>();
      load.gpu_share.push_back(v.get<double>());
    }
    if (std::abs(sum - 1.0) > 1e-6) fail(key, fmt::format("shares sum to {}", sum), "shares summing to 1");
  }
  return load;
}

}  // namespace k3::routing
