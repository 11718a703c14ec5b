#pragma once
// What interrupts a training run, and how often: one rate per cause, per unit that can fail (a GPU, a node, or
// the job as a whole). The shipped rates are the Llama 3 405B pre-training run's (Meta, "The Llama 3 Herd of
// Models", arXiv:2407.21783, section 3.3.4 and Table 5): 466 interruptions in a 54-day snapshot on 16,384 H100
// (2,048 nodes of 8), 47 planned and 419 unexpected, each root cause counted.
#include <array>
#include <string_view>

namespace k3::reliability {

enum class FailureCause { gpu, hbm, network, nic, host, software, planned };
inline constexpr std::array kFailureCauses{FailureCause::gpu,  FailureCause::hbm,      FailureCause::network,
                                           FailureCause::nic,  FailureCause::host,     FailureCause::software,
                                           FailureCause::planned};
inline constexpr std::size_t kCauseCount = kFailureCauses.size();
std::string_view to_string(FailureCause c);
std::string_view describe(FailureCause c);  // one line: what the cause covers

// What a cause's rate is counted per: a failure of one GPU or node stops the synchronous job, so those rates
// grow with the cluster; a software fault or a planned maintenance window is one per job.
enum class RateUnit { gpu, node, job };
RateUnit unit_of(FailureCause c);
std::string_view to_string(RateUnit u);
// Whether the cause takes hardware out of the job (a node then goes to repair and a spare, if any, replaces it).
bool takes_a_node(FailureCause c);

// Interruptions per unit-hour of each cause, indexed by FailureCause.
struct FailureRates {
  std::array<double, kCauseCount> per_unit_hour{};
  double& operator[](FailureCause c) { return per_unit_hour[static_cast<std::size_t>(c)]; }
  double operator[](FailureCause c) const { return per_unit_hour[static_cast<std::size_t>(c)]; }
};

// The Llama 3 run's counts, and their rates per unit-hour (count / (54 days x 24 h x units)).
struct PublishedInterruptions {
  std::array<int, kCauseCount> count{};  // by cause, summing to 466
  double days = 54;
  double gpus = 16384;
  double gpus_per_node = 8;
  std::string_view source;
};
const PublishedInterruptions& llama3_405b_interruptions();
FailureRates llama3_405b_rates();

// Interruptions per hour of a job on `gpus` GPUs of `gpus_per_node`, by cause.
std::array<double, kCauseCount> job_rates_per_hour(const FailureRates& r, double gpus, double gpus_per_node);

}  // namespace k3::reliability
