#include "sim/reliability/failure_rates.hpp"

namespace k3::reliability {

std::string_view to_string(FailureCause c) {
  switch (c) {
    case FailureCause::gpu: return "gpu";
    case FailureCause::hbm: return "hbm";
    case FailureCause::network: return "network";
    case FailureCause::nic: return "nic";
    case FailureCause::host: return "host";
    case FailureCause::software: return "software";
    case FailureCause::planned: return "planned";
  }
  return "?";
}

std::string_view describe(FailureCause c) {
  switch (c) {
    case FailureCause::gpu: return "faulty GPU, its SRAM, system processor, thermal interface, silent data corruption";
    case FailureCause::hbm: return "GPU HBM";
    case FailureCause::network: return "network switch or cable";
    case FailureCause::nic: return "NIC";
    case FailureCause::host: return "unplanned host maintenance, SSD, power supply, chassis, IO board, CPU, DRAM";
    case FailureCause::software: return "software bug, dependency, NCCL watchdog timeout";
    case FailureCause::planned: return "planned maintenance (a checkpoint first: no work lost)";
  }
  return "?";
}

RateUnit unit_of(FailureCause c) {
  switch (c) {
    case FailureCause::host: return RateUnit::node;
    case FailureCause::software:
    case FailureCause::planned: return RateUnit::job;
    default: return RateUnit::gpu;
  }
}

std::string_view to_string(RateUnit u) {
  switch (u) {
    case RateUnit::gpu: return "GPU";
    case RateUnit::node: return "node";
    case RateUnit::job: return "job";
  }
  return "?";
}

bool takes_a_node(FailureCause c) {
  return c == FailureCause::gpu || c == FailureCause::hbm || c == FailureCause::nic || c == FailureCause::host;
}

const PublishedInterruptions& llama3_405b_interruptions() {
  // Table 5's 18 root causes grouped by cause here: gpu = faulty GPU 148 + SRAM 19 + system processor 17 + silent
  // data corruption 6 + thermal interface and sensor 6; hbm = 72; network = switch/cable 35; nic = 7; host = host
  // maintenance 32 + SSD 3 + power supply 3 + chassis 2 + IO expansion board 2 + CPU 2 + system memory 2;
  // software = software bug 54 + dependency 2 + NCCL watchdog timeouts 7 (cause unknown); planned = 47.
  static const PublishedInterruptions p{
      {196, 72, 35, 7, 46, 63, 47},
      54,
      16384,
      8,
      "Meta, The Llama 3 Herd of Models (arXiv:2407.21783), sec. 3.3.4 and Table 5: 466 interruptions of "
      "Llama 3 405B pre-training in a 54-day snapshot on 16,384 H100"};
  return p;
}

FailureRates llama3_405b_rates() {
  const auto& p = llama3_405b_interruptions();
  FailureRates r;
  const double hours = p.days * 24;
  for (const auto c : kFailureCauses) {
    const double units = unit_of(c) == RateUnit::gpu ? p.gpus : unit_of(c) == RateUnit::node ? p.gpus / p.gpus_per_node : 1;
    r[c] = p.count[static_cast<std::size_t>(c)] / (hours * units);
  }
  return r;
}

std::array<double, kCauseCount> job_rates_per_hour(const FailureRates& r, double gpus, double gpus_per_node) {
  std::array<double, kCauseCount> out{};
  for (const auto c : kFailureCauses) {
    const double units = unit_of(c) == RateUnit::gpu ? gpus : unit_of(c) == RateUnit::node ? gpus / gpus_per_node : 1;
    out[static_cast<std::size_t>(c)] = r[c] * units;
  }
  return out;
}

}  // namespace k3::reliability
