#include "kernels/kda/kda_ref.hpp"

#include <vector>

#include "core/error.hpp"

namespace k3::kernels {

void kda_recurrent_ref(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                       std::span<const float> a, std::span<const float> beta, std::size_t tokens, std::size_t heads,
                       std::size_t dk, std::size_t dv, std::span<float> state, std::span<float> o) {
  K3SIM_ASSERT(q.size() == tokens * heads * dk && k.size() == q.size() && a.size() == q.size() &&
                   v.size() == tokens * heads * dv && beta.size() == tokens * heads &&
                   state.size() == heads * dk * dv && o.size() == v.size(), "kda_recurrent_ref: bad sizes");
  std::vector<double> u(dv);
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t h = 0; h < heads; ++h) {
      float* s = state.data() + h * dk * dv;
      const float* kt = k.data() + (t * heads + h) * dk;
      const float* at = a.data() + (t * heads + h) * dk;
      const float* qt = q.data() + (t * heads + h) * dk;
      const float* vt = v.data() + (t * heads + h) * dv;
      const auto b = static_cast<double>(beta[t * heads + h]);
      // S' = Diag(a) S; u = S'^T k; S = S' + b k (v - u)^T.
      std::fill(u.begin(), u.end(), 0.0);
      for (std::size_t i = 0; i < dk; ++i) {
        for (std::size_t j = 0; j < dv; ++j) {
          s[i * dv + j] *= at[i];
          u[j] += static_cast<double>(kt[i]) * static_cast<double>(s[i * dv + j]);
        }
      }
      for (std::size_t i = 0; i < dk; ++i) {
        for (std::size_t j = 0; j < dv; ++j) s[i * dv + j] += static_cast<float>(b * static_cast<double>(kt[i]) * (static_cast<double>(vt[j]) - u[j]));
      }
      for (std::size_t j = 0; j < dv; ++j) {
        double acc = 0;
        for (std::size_t i = 0; i < dk; ++i) acc += static_cast<double>(s[i * dv + j]) * static_cast<double>(qt[i]);
        o[(t * heads + h) * dv + j] = static_cast<float>(acc);
      }
    }
  }
}

}  // namespace k3::kernels
