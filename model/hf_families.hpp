#pragma once
// The config.json families hf_config.cpp imports: for each model_type, the keys it reads, the keys of its own that
// change nothing, the reader that turns them into a ModelSpec, and one line on what it is (`k3sim list families`).
#include <set>
#include <string>
#include <vector>

#include "model/hf_config_reader.hpp"
#include "model/model_spec.hpp"
#include "model/spec_checks.hpp"

namespace k3::model {

struct HfFamily {
  std::string model_type;
  std::set<std::string> reads;    // keys the family turns into the model
  std::set<std::string> ignores;  // keys of this family that do not change the model, beyond the metadata keys
  void (*read)(const HfConfigReader&, ModelSpec&);
  std::string description;
};

const std::vector<HfFamily>& hf_families();

// Where a spec's canonical (preset) key stands in the file: the file's own spelling of it, for check_spec's errors.
KeyLocator hf_key_locator(const HfConfigReader& c);

}  // namespace k3::model
