#pragma once
// Imbalance measures and the sampling-noise floor they must be read against.
//
// MaxVio (arXiv:2408.15664) = (max_j load_j - mean load) / mean load over the global batch.
//
// Noise floor: even a router whose expected loads are exactly equal shows MaxVio > 0 on a finite batch,
// because which experts m tokens pick is random. With equal expected loads each expert's load is
// Binomial(m, p = k/n) (a token picks expert j with probability k/n); the n loads are only weakly
// (negatively, correlation -1/(n-1)) dependent through sum = m k. We take them as independent and compute
// E[max_j L_j] = sum_{x>=0} (1 - F(x)^n) exactly from the binomial CDF F (a closed form, no simulation):
//   floor = (E[max] - m p) / (m p).
// tests/routing checks it against a simulation of tokens picking uniform k-subsets.
#include <span>

namespace k3::balancing {

double max_vio(std::span<const double> expert_load);

// max / mean of a load vector (e.g. tokens per GPU); 1 when perfectly even, 0 when all zero.
double max_over_mean(std::span<const double> load);

// Expected MaxVio of m tokens each choosing k of n experts with equal expected loads (see above).
double maxvio_noise_floor(double tokens, int experts, int top_k);

}  // namespace k3::balancing
