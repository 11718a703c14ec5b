#pragma once
// `k3sim trace import`'s text: per annotated module, kernels per occurrence, host time per launch, waits on the
// device and unmarked gaps, and the whole annotated sequence once through.
#include <string>

#include "sim/cost/host_trace.hpp"

namespace k3::results {

std::string format_host_trace(const cost::HostTraceProfile& profile);

}  // namespace k3::results
