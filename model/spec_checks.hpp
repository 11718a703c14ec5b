#pragma once
// Consistency checks shared by the YAML preset reader and the config.json importer. Each failing check
// asks `where` for the location of the key it is about (canonical YAML key names such as
// "moe.experts_per_token"), so the message names the file's own key and line.
#include <functional>
#include <string>

#include "model/model_spec.hpp"
#include "core/error.hpp"

namespace k3::model {

using KeyLocator = std::function<core::InputLocation(const std::string& canonical_key)>;

void check_spec(const ModelSpec& spec, const KeyLocator& where);

// hidden / heads for formats that leave head_dim implicit; InputError at `heads_key` when it does not divide.
int head_dim_from_hidden(const KeyLocator& where, const std::string& heads_key, long long heads, long long hidden);

}  // namespace k3::model
