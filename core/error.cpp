#include "core/error.hpp"

namespace k3::core {

std::string format_input_error(const InputLocation& where, const std::string& problem, const std::string& allowed) {
  std::string msg;
  if (!where.file.empty()) {
    msg += where.file;
    if (where.line > 0) msg += ":" + std::to_string(where.line);
    msg += ": ";
  }
  if (!where.key.empty()) msg += "key '" + where.key + "': ";
  msg += problem;
  if (!allowed.empty()) msg += " (allowed: " + allowed + ")";
  return msg;
}

InputError::InputError(InputLocation where, const std::string& problem, const std::string& allowed)
    : std::runtime_error(format_input_error(where, problem, allowed)),
      where_(std::move(where)),
      problem_(problem),
      allowed_(allowed) {}

}  // namespace k3::core
