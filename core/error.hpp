#pragma once
// Errors. Library code throws; cli/main.cpp converts once into a message and an exit status:
// InputError (bad scenario, flag, topology, config.json) -> exit 2; anything else -> exit 1.
#include <stdexcept>
#include <string>

namespace k3::core {

// Where a bad value came from. Every field is optional; the message includes those that are set.
struct InputLocation {
  std::string file;  // path or "--flag" or "<string>"
  std::string key;   // dotted key path inside the file, e.g. "parallel.ep"
  int line = 0;      // 1-based line in the file, 0 when unknown
};

class InputError : public std::runtime_error {
 public:
  InputError(InputLocation where, const std::string& problem, const std::string& allowed = {});
  const InputLocation& where() const { return where_; }
  const std::string& problem() const { return problem_; }
  const std::string& allowed() const { return allowed_; }

 private:
  InputLocation where_;
  std::string problem_;
  std::string allowed_;
};

// Formats "file:line: key 'k': problem (allowed: ...)" with the parts that are known.
std::string format_input_error(const InputLocation& where, const std::string& problem, const std::string& allowed);

// An internal invariant broke: a bug in k3sim, never the user's input.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

#define K3SIM_ASSERT(cond, msg)                                                                  \
  do {                                                                                           \
    if (!(cond)) throw ::k3::core::InternalError(std::string(__FILE__) + ":" +                   \
                                                 std::to_string(__LINE__) + ": " + (msg));       \
  } while (false)

}  // namespace k3::core
