#pragma once
// GEMM precisions (scenario key precision.gemm) and the bytes a quantized element takes.
#include <string_view>

namespace k3::cost {

// bf16: no quantization. fp8: E4M3 with scales the kernel applies in software (DeepSeek-V3's 1x128 activation and
// 128x128 weight tiles, arXiv:2412.19437 section 3.3). The block-scaled formats, whose scales the tensor cores
// apply (Blackwell on): mxfp8, OCP Microscaling FP8 (E4M3 in 1-D blocks of 32 elements, one E8M0 scale each; OCP MX
// v1.0 spec), and nvfp4 (E2M1 in 1-D blocks of 16 elements, one E4M3 scale each, plus one FP32 scale per tensor;
// NVIDIA Transformer Engine NVFP4 recipe).
enum class Precision { bf16, fp8, mxfp8, nvfp4 };

constexpr std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
    case Precision::mxfp8: return "mxfp8";
    case Precision::nvfp4: return "nvfp4";
  }
  return "bf16";
}

// As datasheets and breakdowns write it: "BF16", "FP8", "MXFP8", "NVFP4".
constexpr std::string_view display_name(Precision p) {
  switch (p) {
    case Precision::bf16: return "BF16";
    case Precision::fp8: return "FP8";
    case Precision::mxfp8: return "MXFP8";
    case Precision::nvfp4: return "NVFP4";
  }
  return "BF16";
}

constexpr bool block_scaled(Precision p) { return p == Precision::mxfp8 || p == Precision::nvfp4; }

// Bytes one element of a block-scaled tensor takes with its share of the block scale: MXFP8 1 + 1/32, NVFP4
// 1/2 + 1/16 (the per-tensor FP32 scale is negligible). 0 for the others.
constexpr double block_scaled_bytes_per_element(Precision p) {
  if (p == Precision::mxfp8) return 1.0 + 1.0 / 32;
  if (p == Precision::nvfp4) return 1.0 / 2 + 1.0 / 16;
  return 0;
}

}  // namespace k3::cost
