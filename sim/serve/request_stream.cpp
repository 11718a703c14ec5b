#include "sim/serve/request_stream.hpp"

#include <algorithm>
#include <cmath>

namespace k3::serve {

double draw_length(const LengthDistribution& d, core::Rng& rng) {
  double x = d.mean;
  switch (d.kind) {
    case LengthDistribution::Kind::fixed: break;
    case LengthDistribution::Kind::uniform: x = rng.uniform(d.min, d.max + 1); break;
    case LengthDistribution::Kind::lognormal: {
      // Parameterised by its mean: mu = ln(mean) - sigma^2 / 2.
      const double mu = std::log(d.mean) - d.sigma * d.sigma / 2;
      x = std::exp(rng.normal(mu, d.sigma));
      break;
    }
  }
  return std::max(1.0, std::floor(std::clamp(x, d.min, d.max)));
}

double expected_tokens_per_step(const ServeWorkload& w) {
  double tokens = 1, p = 1;
  for (int i = 0; i < w.mtp_draft_tokens; ++i) tokens += (p *= w.mtp_acceptance);
  return tokens;
}

std::vector<Request> open_loop_requests(const ServeWorkload& w, core::Rng& rng) {
  std::vector<Request> out;
  if (w.arrival.kind == ArrivalSpec::Kind::trace) {
    for (const auto& t : w.arrival.trace)
      if (t.arrival_s < w.duration_s) out.push_back({t.arrival_s, t.prompt_tokens, t.output_tokens});
    std::stable_sort(out.begin(), out.end(), [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
    return out;
  }
  if (w.arrival.kind != ArrivalSpec::Kind::poisson) return out;
  double t = 0;
  for (;;) {
    double u = rng.uniform();
    while (u <= 0) u = rng.uniform();
    t += -std::log(u) / w.arrival.rate_per_s;
    if (t >= w.duration_s) break;
    const double prompt = draw_length(w.prompt, rng);
    out.push_back({t, prompt, draw_length(w.output, rng)});
  }
  return out;
}

}  // namespace k3::serve
