#include "kernels/mla/mla_tiled_ref.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"

namespace k3::kernels {

namespace {

constexpr float kNoScore = -std::numeric_limits<float>::infinity();

// Running state of FA2's online softmax for a block of query rows: max, sum and unnormalised output.
struct OnlineSoftmax {
  std::vector<float> max, sum, acc;  // [rows], [rows], [rows, dv]
  std::size_t dv;
  OnlineSoftmax(std::size_t rows, std::size_t width)
      : max(rows, kNoScore), sum(rows, 0.0f), acc(rows * width, 0.0f), dv(width) {}

  // Folds in one tile of scores s [keys] for `row` with values value(j) -> pointer to dv floats.
  template <class Value>
  void add(std::size_t row, std::span<const float> s, const Value& value) {
    float tile_max = kNoScore;
    for (float x : s) tile_max = std::max(tile_max, x);
    if (tile_max == kNoScore) return;  // every key of the tile masked for this row
    const float new_max = std::max(max[row], tile_max);
    const float correction = std::exp(max[row] - new_max);  // 0 on the first tile (max = -inf)
    float* out = acc.data() + row * dv;
    for (std::size_t e = 0; e < dv; ++e) out[e] *= correction;
    sum[row] *= correction;
    for (std::size_t j = 0; j < s.size(); ++j) {
      if (s[j] == kNoScore) continue;
      const float p = std::exp(s[j] - new_max);
      sum[row] += p;
      const float* vj = value(j);
      for (std::size_t e = 0; e < dv; ++e) out[e] += p * vj[e];
    }
    max[row] = new_max;
  }
};

float dot(const float* x, const float* y, std::size_t n) {
  float acc = 0;
  for (std::size_t i = 0; i < n; ++i) acc += x[i] * y[i];
  return acc;
}

}  // namespace

std::size_t mla_decode_split_len(std::size_t cache_len) {
  const std::size_t per_split = (cache_len + kMlaDecodeTargetSplits - 1) / kMlaDecodeTargetSplits;
  return std::max<std::size_t>(kMlaKeyTile, (per_split + kMlaKeyTile - 1) / kMlaKeyTile * kMlaKeyTile);
}

void mla_prefill_tiled_ref(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                           std::span<const float> gate, std::size_t tokens, std::size_t heads, std::size_t dqk,
                           std::size_t dv, std::span<float> o) {
  K3SIM_ASSERT(q.size() == tokens * heads * dqk && k.size() == q.size() && v.size() == tokens * heads * dv &&
                   gate.size() == v.size() && o.size() == v.size(), "mla_prefill_tiled_ref: bad sizes");
  const float scale = 1.0f / std::sqrt(static_cast<float>(dqk));
  std::vector<float> s(kMlaKeyTile);
  for (std::size_t h = 0; h < heads; ++h) {
    for (std::size_t q0 = 0; q0 < tokens; q0 += kMlaQueryTile) {
      const std::size_t rows = std::min(kMlaQueryTile, tokens - q0);
      OnlineSoftmax state(rows, dv);
      // Causal: key tiles up to the one holding the tile's last query.
      for (std::size_t k0 = 0; k0 < q0 + rows; k0 += kMlaKeyTile) {
        const std::size_t keys = std::min(kMlaKeyTile, tokens - k0);
        for (std::size_t r = 0; r < rows; ++r) {
          const std::size_t i = q0 + r;
          for (std::size_t c = 0; c < keys; ++c) {
            const std::size_t j = k0 + c;
            s[c] = j > i ? kNoScore : scale * dot(&q[(i * heads + h) * dqk], &k[(j * heads + h) * dqk], dqk);
          }
          const auto value = [&](std::size_t c) { return &v[((k0 + c) * heads + h) * dv]; };
          state.add(r, std::span<const float>(s.data(), keys), value);
        }
      }
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t e = 0; e < dv; ++e) {
          const std::size_t at = ((q0 + r) * heads + h) * dv + e;
          o[at] = state.acc[r * dv + e] / state.sum[r] / (1.0f + std::exp(-gate[at]));
        }
      }
    }
  }
}

void mla_decode_split_ref(std::span<const float> q, std::span<const float> cache, std::size_t heads,
                          std::size_t cache_len, std::size_t dk, std::size_t dv, float scale, std::size_t split_len,
                          std::span<float> o) {
  K3SIM_ASSERT(q.size() == heads * dk && cache.size() == cache_len * dk && o.size() == heads * dv && dv <= dk &&
                   cache_len >= 1 && split_len >= 1, "mla_decode_split_ref: bad sizes");
  const std::size_t splits = (cache_len + split_len - 1) / split_len;
  std::vector<float> part_o(splits * heads * dv), part_lse(splits * heads), s(kMlaKeyTile);
  for (std::size_t sp = 0; sp < splits; ++sp) {
    const std::size_t begin = sp * split_len, end = std::min(cache_len, begin + split_len);
    OnlineSoftmax state(heads, dv);
    for (std::size_t k0 = begin; k0 < end; k0 += kMlaKeyTile) {
      const std::size_t keys = std::min(kMlaKeyTile, end - k0);
      for (std::size_t h = 0; h < heads; ++h) {
        for (std::size_t c = 0; c < keys; ++c) s[c] = scale * dot(&q[h * dk], &cache[(k0 + c) * dk], dk);
        state.add(h, std::span<const float>(s.data(), keys), [&](std::size_t c) { return &cache[(k0 + c) * dk]; });
      }
    }
    for (std::size_t h = 0; h < heads; ++h) {
      for (std::size_t e = 0; e < dv; ++e) part_o[(sp * heads + h) * dv + e] = state.acc[h * dv + e] / state.sum[h];
      part_lse[sp * heads + h] = state.max[h] + std::log(state.sum[h]);
    }
  }
  // Combine: o = sum_s exp(lse_s - M) o_s / sum_s exp(lse_s - M), M = max_s lse_s.
  for (std::size_t h = 0; h < heads; ++h) {
    float top = kNoScore;
    for (std::size_t sp = 0; sp < splits; ++sp) top = std::max(top, part_lse[sp * heads + h]);
    float total = 0;
    for (std::size_t e = 0; e < dv; ++e) o[h * dv + e] = 0;
    for (std::size_t sp = 0; sp < splits; ++sp) {
      const float w = std::exp(part_lse[sp * heads + h] - top);
      total += w;
      for (std::size_t e = 0; e < dv; ++e) o[h * dv + e] += w * part_o[(sp * heads + h) * dv + e];
    }
    for (std::size_t e = 0; e < dv; ++e) o[h * dv + e] /= total;
  }
}

}  // namespace k3::kernels
