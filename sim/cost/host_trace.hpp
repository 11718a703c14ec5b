#pragma once
// What the host (CPU) does around the kernels of each annotated module, read from a PyTorch-profiler (Kineto)
// Chrome trace: kernels launched, host time per launch, host gaps the profiler left unmarked, and waits on the
// device. This is how a user calibrates host cost on their own stack (what Lumos reads from traces); the
// numbers are measurements of that run, never fitted to an end-to-end step time.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace k3::cost {

struct HostTraceOptions {
  // An unmarked host gap longer than this is a wait on the device when the op launched last before it ends
  // within this long of the gap's end, before or after: the host stopped until that op got somewhere (a
  // synchronisation, or a spin on a flag the kernel writes, as DeepEP's notify does). When the host runs ahead,
  // as it does issuing work, that op ends long after the gap; when the device idles, long before. Other unmarked
  // gaps are framework time (Python, the dispatcher). 100 us covers how long a signalling kernel runs on after
  // its signal and the profiler's CPU/GPU clock alignment (DeepSeek-V3's trace: the host resumes 67 us before
  // notify_dispatch ends). An assumption of this importer, printed with its output.
  double resume_within_us = 100;
};

// One annotated module (a `record_function` / NVTX-style range with no other range inside it), over all of
// its occurrences. Host times are wall time on the host inside the module's ranges, in microseconds.
struct ModuleHostCost {
  std::string name;
  int occurrences = 0;
  int launches = 0;           // kernel, memset, memcpy and graph launches issued inside its ranges
  double span_us = 0;         // its ranges' wall time
  double busy_us = 0;         // of span: covered by profiled host ops (cpu_op, cuda_runtime, cuda_driver)
  double launch_api_us = 0;   // of busy: inside the launch calls themselves
  double sync_api_us = 0;     // of busy: inside synchronising CUDA calls (cudaStreamSynchronize, cudaMemcpy, ...)
  double device_wait_us = 0;  // of span, not busy: gaps that end as a device op completes
  double gap_us = 0;          // of span, not busy: the other gaps (framework time)
  double gpu_us = 0;          // device time of the ops it launched

  double kernels_per_occurrence() const { return occurrences > 0 ? static_cast<double>(launches) / occurrences : 0; }
  // Host time that goes with issuing work: the span less the waits (on the device, in synchronising calls),
  // per launch.
  double host_us_per_launch() const {
    return launches > 0 ? (span_us - device_wait_us - sync_api_us) / launches : 0;
  }
};

struct HostTraceProfile {
  std::string source;                   // the trace file and its traceName
  HostTraceOptions options;
  std::vector<ModuleHostCost> modules;  // in order of first occurrence
  int launches_outside = 0;             // launches in no annotated range
};

// `trace` is a Chrome trace object with "traceEvents" (or the bare event array); `file` names it in errors
// (a trace without annotated ranges or without launches is an InputError: nothing to calibrate from).
HostTraceProfile import_host_trace(const nlohmann::json& trace, const std::string& file, const HostTraceOptions& options);

nlohmann::json to_json(const HostTraceProfile& profile);

}  // namespace k3::cost
