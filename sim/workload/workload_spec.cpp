#include "sim/workload/workload_spec.hpp"

namespace k3::workload {

std::string to_string(AllToAllAlgorithm a) {
  switch (a) {
    case AllToAllAlgorithm::flat: return "flat";
    case AllToAllAlgorithm::deepep: return "deepep";
    case AllToAllAlgorithm::deepep_ll: return "deepep-ll";
  }
  return "flat";
}

}  // namespace k3::workload
