#pragma once
// The requests a serving run replays: arrival times and prompt / output lengths drawn from the scenario's
// distributions with one seeded generator (the same seed gives the same stream on every platform), or read
// from a trace.
#include <cstdint>
#include <vector>

#include "core/rng.hpp"
#include "sim/serve/serve_spec.hpp"

namespace k3::serve {

struct Request {
  double arrival_s = 0;
  double prompt_tokens = 0;
  double output_tokens = 0;
};

// A whole number of tokens >= 1 from `d`.
double draw_length(const LengthDistribution& d, core::Rng& rng);

// Tokens one decode step yields per sequence on average: 1 + a + a^2 + ... over the MTP drafts (each draft is
// accepted with probability a once the ones before it were).
double expected_tokens_per_step(const ServeWorkload& w);

// Poisson arrivals over [0, duration) or the trace's requests (those arriving before duration); closed-loop
// streams are drawn as the run goes (ServingRun).
std::vector<Request> open_loop_requests(const ServeWorkload& w, core::Rng& rng);

}  // namespace k3::serve
