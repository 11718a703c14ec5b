#pragma once

namespace k3::cost {

// How attention is computed. `flash`: one fused kernel that never writes the score matrix
// (FlashAttention). `unfused`: as Megatron-LM did in 2021 (SC21 section 4.2): batched GEMMs write the full
// seq x seq score matrix (the causal mask only zeroes half of it), a fused scale-mask-softmax kernel reads
// and writes it, dropout reads and writes it, and the second GEMM reads it again. `flash_fp8`: the fused kernel
// with FP8 (E4M3) q, k and v in the forward pass (FlashAttention-3's FP8 forward, arXiv:2407.08608 section 3.3;
// Transformer Engine's fp8_dpa); the backward stays BF16, as FlashAttention-3 has no FP8 backward.
enum class AttentionKernel { flash, unfused, flash_fp8 };

}  // namespace k3::cost
