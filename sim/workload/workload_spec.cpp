#include "sim/workload/workload_spec.hpp"

namespace k3::workload {

std::string to_string(AllToAllAlgorithm a) { return a == AllToAllAlgorithm::flat ? "flat" : "deepep"; }

}  // namespace k3::workload
