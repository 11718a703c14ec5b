#include "kernels/gemm/gemm_ref.hpp"

#include <Eigen/Core>

#include "core/error.hpp"

namespace k3::kernels {

namespace {
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
}

void gemm_ref(std::span<const float> a, std::span<const float> b, std::size_t m, std::size_t n, std::size_t k,
              std::span<float> c) {
  K3SIM_ASSERT(a.size() == m * k && b.size() == n * k && c.size() == m * n, "gemm_ref: bad sizes");
  const auto mi = static_cast<Eigen::Index>(m), ni = static_cast<Eigen::Index>(n), ki = static_cast<Eigen::Index>(k);
  Eigen::Map<const RowMajor> am(a.data(), mi, ki);
  Eigen::Map<const RowMajor> bm(b.data(), ni, ki);
  Eigen::Map<RowMajor> cm(c.data(), mi, ni);
  cm.noalias() = am * bm.transpose();
}

void grouped_gemm_ref(std::span<const float> a, std::span<const float> b, std::span<const std::size_t> tokens,
                      std::size_t n, std::size_t k, std::span<float> c) {
  std::size_t rows = 0;
  for (std::size_t t : tokens) rows += t;
  K3SIM_ASSERT(a.size() == rows * k && c.size() == rows * n && b.size() == tokens.size() * n * k,
               "grouped_gemm_ref: bad sizes");
  std::size_t row = 0;
  for (std::size_t g = 0; g < tokens.size(); ++g) {
    gemm_ref(a.subspan(row * k, tokens[g] * k), b.subspan(g * n * k, n * k), tokens[g], n, k,
             c.subspan(row * n, tokens[g] * n));
    row += tokens[g];
  }
}

}  // namespace k3::kernels
