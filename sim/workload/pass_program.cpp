#include "sim/workload/pass_program.hpp"

namespace k3::workload {

std::string to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::dispatch: return "all-to-all dispatch";
    case CollectiveKind::combine: return "all-to-all combine";
    case CollectiveKind::allreduce: return "all-reduce";
    case CollectiveKind::reducescatter: return "reduce-scatter";
    case CollectiveKind::allgather: return "all-gather";
    case CollectiveKind::alltoall: return "all-to-all";
  }
  return "?";
}

int PassProgram::add_collective(CollectiveCall call, std::vector<int> threads_taking_part) {
  collectives.push_back(std::move(call));
  participants.push_back(std::move(threads_taking_part));
  return static_cast<int>(collectives.size()) - 1;
}

}  // namespace k3::workload
