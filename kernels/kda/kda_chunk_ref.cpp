#include "kernels/kda/kda_chunk_ref.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"

namespace k3::kernels {

namespace {

// One head's inputs, rows of one chunk; row r of x is x + r * stride.
struct ChunkView {
  const float* q;
  const float* k;
  const float* v;
  const float* a;
  const float* beta;
  std::size_t qk_stride, v_stride, beta_stride;
};

// Advances one head's state s [dk, dv] over one chunk of `len` tokens and writes their outputs.
void chunk_step(const ChunkView& in, std::size_t len, std::size_t dk, std::size_t dv, std::vector<double>& s,
                float* o, std::size_t o_stride) {
  // G [len, dk]: cumulative log decay from the chunk start (non-increasing along r).
  std::vector<double> g(len * dk);
  for (std::size_t r = 0; r < len; ++r) {
    for (std::size_t c = 0; c < dk; ++c) {
      const double prev = r == 0 ? 0.0 : g[(r - 1) * dk + c];
      g[r * dk + c] = prev + std::log(static_cast<double>(in.a[r * in.qk_stride + c]));
    }
  }
  const auto row_g = [&](std::size_t r) { return g.data() + r * dk; };
  const auto beta = [&](std::size_t r) { return static_cast<double>(in.beta[r * in.beta_stride]); };

  // Pair products with decay for j <= i: kk_ij = sum_c k_ic k_jc gamma_ic / gamma_jc (A before b) and
  // qk_ij the same with q_i (P). Split in sub-chunks as the header says: pairwise exp within one,
  // exp(G_i - G_s) exp(G_s - G_j) across, s the start of i's sub-chunk; every factor is <= 1.
  const std::size_t subs = (len + kKdaSubChunk - 1) / kKdaSubChunk;
  std::vector<double> to_start(len * dk), from_start(subs * len * dk), kk(len * len, 0.0), qk(len * len, 0.0);
  for (std::size_t r = 0; r < len; ++r) {
    const double* g_s = row_g(r / kKdaSubChunk * kKdaSubChunk);
    for (std::size_t c = 0; c < dk; ++c) to_start[r * dk + c] = std::exp(row_g(r)[c] - g_s[c]);
    for (std::size_t b = r / kKdaSubChunk + 1; b < subs; ++b) {  // starts of later sub-chunks
      const double* g_b = row_g(b * kKdaSubChunk);
      for (std::size_t c = 0; c < dk; ++c) from_start[(b * len + r) * dk + c] = std::exp(g_b[c] - row_g(r)[c]);
    }
  }
  for (std::size_t i = 0; i < len; ++i) {
    const std::size_t s_i = i / kKdaSubChunk * kKdaSubChunk;
    for (std::size_t j = 0; j <= i; ++j) {
      const bool same = j >= s_i;
      const float* k_i = in.k + i * in.qk_stride;
      const float* q_i = in.q + i * in.qk_stride;
      const float* k_j = in.k + j * in.qk_stride;
      double acc_k = 0, acc_q = 0;
      for (std::size_t c = 0; c < dk; ++c) {
        const double decay = same ? std::exp(row_g(i)[c] - row_g(j)[c])
                                  : to_start[i * dk + c] * from_start[((s_i / kKdaSubChunk) * len + j) * dk + c];
        const double kj = static_cast<double>(k_j[c]) * decay;
        acc_k += static_cast<double>(k_i[c]) * kj;
        acc_q += static_cast<double>(q_i[c]) * kj;
      }
      kk[i * len + j] = acc_k;
      qk[i * len + j] = acc_q;
    }
  }

  // T = (I + A)^-1, row by row: T_ij = -sum_{j<=m<i} A_im T_mj (A strictly lower, T unit lower).
  std::vector<double> t(len * len, 0.0), a_row(len);
  for (std::size_t i = 0; i < len; ++i) {
    for (std::size_t j = 0; j < i; ++j) a_row[j] = beta(i) * kk[i * len + j];
    t[i * len + i] = 1.0;
    for (std::size_t j = 0; j < i; ++j) {
      double acc = 0;
      for (std::size_t m = j; m < i; ++m) acc += a_row[m] * t[m * len + j];
      t[i * len + j] = -acc;
    }
  }
  // U = T (b V) - T (b K~) S_0 = U~ - W S_0  [len, dv].
  std::vector<double> u(len * dv, 0.0), w_row(dk);
  for (std::size_t i = 0; i < len; ++i) {
    std::fill(w_row.begin(), w_row.end(), 0.0);
    for (std::size_t j = 0; j <= i; ++j) {
      const double tb = t[i * len + j] * beta(j);
      for (std::size_t c = 0; c < dv; ++c) u[i * dv + c] += tb * static_cast<double>(in.v[j * in.v_stride + c]);
      for (std::size_t c = 0; c < dk; ++c) {
        w_row[c] += tb * static_cast<double>(in.k[j * in.qk_stride + c]) * std::exp(row_g(j)[c]);
      }
    }
    for (std::size_t c = 0; c < dk; ++c) {
      for (std::size_t e = 0; e < dv; ++e) u[i * dv + e] -= w_row[c] * s[c * dv + e];
    }
  }
  // O = (gamma Q) S_0 + Tril_incl(P) U.
  std::vector<double> o_row(dv);
  for (std::size_t r = 0; r < len; ++r) {
    const float* qr = in.q + r * in.qk_stride;
    std::fill(o_row.begin(), o_row.end(), 0.0);
    for (std::size_t c = 0; c < dk; ++c) {
      const double qc = static_cast<double>(qr[c]) * std::exp(row_g(r)[c]);
      for (std::size_t e = 0; e < dv; ++e) o_row[e] += qc * s[c * dv + e];
    }
    for (std::size_t j = 0; j <= r; ++j) {
      for (std::size_t e = 0; e < dv; ++e) o_row[e] += qk[r * len + j] * u[j * dv + e];
    }
    for (std::size_t e = 0; e < dv; ++e) o[r * o_stride + e] = static_cast<float>(o_row[e]);
  }
  // S_L = Diag(gamma_L) S_0 + (K gamma_L / gamma)^T U.
  const double* g_last = row_g(len - 1);
  for (std::size_t c = 0; c < dk; ++c) {
    const double keep = std::exp(g_last[c]);
    for (std::size_t e = 0; e < dv; ++e) s[c * dv + e] *= keep;
    for (std::size_t j = 0; j < len; ++j) {
      const double kj = static_cast<double>(in.k[j * in.qk_stride + c]) * std::exp(g_last[c] - row_g(j)[c]);
      for (std::size_t e = 0; e < dv; ++e) s[c * dv + e] += kj * u[j * dv + e];
    }
  }
}

}  // namespace

void kda_chunk_ref(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                   std::span<const float> a, std::span<const float> beta, std::size_t tokens, std::size_t heads,
                   std::size_t dk, std::size_t dv, std::size_t chunk, std::span<float> state, std::span<float> o) {
  K3SIM_ASSERT(q.size() == tokens * heads * dk && k.size() == q.size() && a.size() == q.size() &&
                   v.size() == tokens * heads * dv && beta.size() == tokens * heads &&
                   state.size() == heads * dk * dv && o.size() == v.size(), "kda_chunk_ref: bad sizes");
  K3SIM_ASSERT(chunk >= kKdaSubChunk && chunk % kKdaSubChunk == 0, "kda_chunk_ref: chunk a multiple of 16");
  K3SIM_ASSERT(std::all_of(a.begin(), a.end(), [](float x) { return x > 0.0f && x <= 1.0f; }),
               "kda_chunk_ref: decays in (0, 1]");
  std::vector<double> s(dk * dv);
  for (std::size_t h = 0; h < heads; ++h) {
    float* head_state = state.data() + h * dk * dv;
    std::copy(head_state, head_state + dk * dv, s.begin());
    for (std::size_t start = 0; start < tokens; start += chunk) {
      const std::size_t len = std::min(chunk, tokens - start);
      const std::size_t row = start * heads + h;
      const ChunkView in{q.data() + row * dk, k.data() + row * dk, v.data() + row * dv, a.data() + row * dk,
                         beta.data() + row, heads * dk, heads * dv, heads};
      chunk_step(in, len, dk, dv, s, o.data() + row * dv, heads * dv);
    }
    std::transform(s.begin(), s.end(), head_state, [](double x) { return static_cast<float>(x); });
  }
}

}  // namespace k3::kernels
