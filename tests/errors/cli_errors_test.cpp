// Every bad flag or input of every subcommand, through the real binary: exit status 2, one line on
// stderr line that names the input (flag or file), the key where there is one, and what is allowed. (Errors
// CLI11 finds itself, such as a value outside an IsMember set, add a second line pointing at --help.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/run_k3sim.hpp"

namespace {

struct BadInput {
  std::string args;
  std::vector<std::string> named;  // the input and the key, as they must appear in the message
  std::string allowed;             // a fragment of what is allowed
};

const std::vector<BadInput> kBadInputs = {
    // model / kv
    {"model no-such-model", {"no-such-model"}, "k3"},
    {"model k3 --seq -5", {"--seq"}, "positive"},
    {"kv k3 --context zero", {"--context"}, "128K"},
    {"kv k3 --gpus 0", {"--gpus"}, ">= 1"},
    {"kv k3 --reserve 2", {"--reserve"}, "0 to 0.9"},
    {"kv k3 --weight-bytes 0", {"--weight-bytes"}, "> 0"},
    // topo
    {"topo no-such-preset", {"no-such-preset"}, "h100-rail"},
    {"topo h100-rail --set nodes", {"--set"}, "key=value"},
    {"topo h100-rail --set fabric.radix=3", {"radix"}, "radix"},
    {"topo h100-rail --set nodes=0", {"h100-rail.yaml", "nodes"}, ">= 1"},
    // collective
    {"collective --topology h100-rail --op sum --bytes 1MiB", {"--op"}, "allreduce"},
    {"collective --topology h100-rail --op allreduce --bytes lots", {"--bytes"}, "1MiB:4GiB"},
    {"collective --topology h100-rail --op allreduce --bytes 1MiB --network ideal", {"--network"}, "analytical"},
    {"collective --topology h100-rail --op allreduce --bytes 1MiB --algorithm magic", {"--algorithm"}, "ring"},
    {"collective --topology h100-rail --op allreduce --bytes 1MiB --ranks 1000000", {"--ranks"}, "GPU"},
    // traffic
    {"traffic --ep 0", {"--ep"}, "divides the number of routed experts"},
    {"traffic --ep 64 --tokens-per-gpu 0", {"--tokens-per-gpu"}, ">= 1"},
    {"traffic --ep 64 --algorithm magic", {"--algorithm"}, "deepep"},
    {"traffic --ep 64 --placement diagonal", {"--placement"}, "strided"},
    {"traffic no-such-model --ep 64", {"no-such-model"}, "k3"},
    // balance
    {"balance --bins 1", {"--bins"}, ">= 2"},
    {"balance --steps 0", {"--steps"}, ">= 1"},
    {"balance --ranks 0", {"--ranks"}, ">= 1"},
    {"balance --tokens-per-rank 0", {"--tokens-per-rank"}, ">= 1"},
    {"balance --ep 0", {"--ep"}, "divides the number of routed experts"},
    {"balance --balancer magic --steps 1", {"magic"}, "qb-hist"},
    {"balance --write-state /tmp/k3sim-two-models.json", {"--write-state"}, "exactly one --model and one --balancer"},
    {"balance --model k3 --balancer qb-hist --layers 0 --write-state /tmp/k3sim-no-layers.json", {"--layers"}, ">= 1"},
    // run
    {"run no-such-scenario.yaml", {"no-such-scenario.yaml"}, "scenario"},
    {"run scenarios/k3-h200-2048.yaml --set parallel.ep", {"--set"}, "key=value"},
    {"run scenarios/k3-h200-2048.yaml --set parallel.ep=banana", {"k3-h200-2048.yaml", "parallel.ep"}, "a number"},
    {"run scenarios/k3-h200-2048.yaml --set parallel.warp=2", {"k3-h200-2048.yaml", "parallel.warp"}, "tp, pp"},
    // Issue 47: a mistyped key or value set on the command line is blamed on --set, with the nearest name.
    {"run scenarios/k3-h200-2048.yaml --set paralel.ep=8", {"--set on", "k3-h200-2048.yaml", "'paralel'",
                                                            "did you mean 'parallel'?"}, "batch"},
    {"run scenarios/k3-h200-2048.yaml --set network=flwo", {"--set on", "network", "did you mean 'flow'?"}, "analytical"},
    {"rnu scenarios/k3-h200-2048.yaml", {"k3sim rnu", "unknown command", "did you mean 'run'?"}, "validate"},
    {"run scenarios/k3-h200-2048.yaml --set host.profile=no-such-stack", {"k3-h200-2048.yaml", "host.profile"},
     "deepseek-v3-h800"},
    {"run scenarios/k3-h200-2048.yaml --set host.cuda_graphs=[attention,router]", {"host.cuda_graphs"}, "mlp"},
    {"run scenarios/k3-h200-2048.yaml --set host.cuda_graphs=[dispatch]", {"host.cuda_graphs"}, "deepep-ll"},
    {"run scenarios/k3-h200-2048.yaml --set host.profile=scenarios/k3-h200-2048.yaml", {"k3-h200-2048.yaml"},
     "host profile"},
    {"run scenarios/k3-h200-2048.yaml --set network=quantum", {"network"}, "analytical"},
    // Issue 43: slow GPUs.
    {"run scenarios/k3-h200-2048.yaml --set gpu_speed.spread=1.5", {"--set on", "gpu_speed.spread"}, "below 1"},
    {"run scenarios/k3-h200-2048.yaml --set 'gpu_speed.slow=[{gpu: 4096, speed: 0.5}]'", {"--set on", "gpu_speed.slow[0].gpu", "not in the job"},
     "0 to 2047"},
    {"run scenarios/k3-h200-2048.yaml --set 'gpu_speed.slow=[{gpu: 1, speed: 0}]'", {"gpu_speed.slow[0].speed"}, "> 0"},
    {"run scenarios/k3-h200-2048.yaml --set 'gpu_speed.slow=[{gpu: 1, pace: 0.5}]'", {"gpu_speed.slow[0].pace"}, "speed"},
    // Issue 46: a whole run's goodput.
    {"run scenarios/llama3-405b-h100-16384.yaml --set reliability.rates.gpu=-1", {"reliability.rates.gpu"}, ">= 0"},
    {"run scenarios/llama3-405b-h100-16384.yaml --set reliability.rates=meta", {"reliability.rates"}, "llama3-405b"},
    {"run scenarios/llama3-405b-h100-16384.yaml --set reliability.checkpoint_interval_s=0",
     {"reliability.checkpoint_interval_s"}, "> 0"},
    {"run scenarios/llama3-405b-h100-16384.yaml --set reliability.restart_s=-5", {"reliability.restart_s"}, ">= 0"},
    {"run scenarios/llama3-405b-h100-16384.yaml --set reliability.spare_nodes=2", {"reliability.spare_nodes"}, "repair_hours"},
    {"run scenarios/llama3-405b-h100-16384.yaml --goodput --days 200", {"--days"}, "at most 100"},
    {"run scenarios/llama3-405b-h100-16384.yaml --set 'reliability.stragglers={per_gpu_day: 1, found_after_s: 60}'",
     {"reliability.stragglers"}, "gpu_speed"},
    {"run scenarios/llama3-405b-h100-16384.yaml --set "
     "'reliability.stragglers={per_gpu_day: 1, gpu_speed: 1.2, found_after_s: 60}'",
     {"reliability.stragglers.gpu_speed"}, "below 1"},
    {"run scenarios/llama3-405b-h100-16384.yaml --samples 0 --goodput --days 54 --set reliability.rates.gpu=10",
     {"llama3-405b-h100-16384.yaml", "reliability"}, "at most 100.0K times"},
    {"run scenarios/llama3-405b-h100-16384.yaml --samples 0 --goodput --days 54 --set reliability.checkpoint_interval_s=5",
     {"--set on", "reliability.checkpoint_interval_s"}, "at most 100.0K saves"},
    {"run scenarios/llama3-405b-h100-16384.yaml --goodput --days 0", {"--days"}, "more than 0"},
    {"run scenarios/llama3-405b-h100-16384.yaml --days 5", {"--days"}, "--goodput"},
    {"run scenarios/deepseek-v3-h800-2048.yaml --goodput --days 10", {"deepseek-v3-h800-2048.yaml", "reliability"},
     "restart_s"},
    {"compare scenarios/k3-vs-448-h200-2048.yaml --goodput --days 10", {"k3-vs-448-h200-2048.yaml", "reliability"},
     "restart_s"},
    {"compare scenarios/k3-vs-448-h200-2048.yaml --set reliability.restart_s=60 --goodput --days 101", {"--days"},
     "at most 100"},
    {"run scenarios/k3-h200-2048.yaml --set cluster.nodes=0", {"cluster.nodes"}, ">= 1"},
    // Issue 49: settings teams use.
    {"run scenarios/k3-h200-2048.yaml --set parallel.fsdp_regather=step", {"parallel.fsdp_regather", "only FSDP"},
     "fsdp: true"},
    {"run scenarios/k3-h200-2048.yaml --set parallel.fsdp=true --set parallel.zero=3 --set parallel.fsdp_regather=never",
     {"parallel.fsdp_regather"}, "micro_batch"},
    {"run scenarios/k3-h200-2048.yaml --set cluster.gpus_per_node=9", {"cluster.gpus_per_node"}, "1 to 8"},
    {"run scenarios/k3-h200-2048.yaml --set attention_kernel=fp16", {"attention_kernel"}, "fp8"},
    {"run scenarios/qwen3-235b-h100-256.yaml --set batch.gradient_accumulation_steps=3",
     {"batch.gradient_accumulation_steps", "128 micro-batches"}, "a divisor of 128"},
    {"serve scenarios/serving/k3-h200-serving.yaml --set precision.kv_cache=int8", {"precision.kv_cache"}, "fp8"},
    {"serve scenarios/serving/k3-h200-serving.yaml --set deployment.prefill.pp=3",
     {"deployment.prefill.pp", "64 GPUs"}, "a divisor of 64"},
    {"serve scenarios/serving/k3-h200-serving.yaml --set deployment.decode.pp=2", {"deployment.decode.pp"},
     "deployment.prefill"},
    {"serve scenarios/serving/k3-h200-serving.yaml --set deployment.decode.moe_tp=3", {"deployment.decode.moe_tp"},
     "a divisor of 128"},
    {"serve scenarios/serving/k3-h200-serving.yaml --set scheduler.overlap=[three_batch]", {"scheduler.overlap"},
     "combine_with_down_gemm"},
    {"serve scenarios/serving/k3-h200-serving.yaml --set scheduler.two_batch_overlap=false",
     {"scheduler.two_batch_overlap"}, "scheduler.overlap: [two_batch]"},
    {"serve scenarios/serving/k3-h200-serving.yaml --set deployment.prefill.weight_offload_gb=-1",
     {"deployment.prefill.weight_offload_gb"}, ">= 0"},
    {"run scenarios/k3-h200-2048.yaml --set optimizer.offload_fraction=2", {"optimizer.offload_fraction"}, "[0, 1]"},
    {"run scenarios/k3-h200-2048.yaml --set parallel.fsdp_offload=true", {"parallel.fsdp_offload", "only FSDP"},
     "fsdp: true"},
    {"run scenarios/k3-h200-2048.yaml --set parallel.ep=48", {"k3-h200-2048.yaml", "parallel.ep"}, "ETP x EP dividing"},
    // expert_load.state: a state of another model, a file that is not a state, a state key missing
    {"run scenarios/k3-h200-2048.yaml --set expert_load.state=states/k3-448-qb-hist-20.json",
     {"k3-h200-2048.yaml", "expert_load.state", "top-8 of 448"}, "of this model"},
    {"run scenarios/k3-h200-2048.yaml --set expert_load.state=../tests/golden/megatron_sc21_18b.json",
     {"megatron_sc21_18b.json"}, "--write-state"},
    {"run scenarios/megatron-sc21-selene.yaml --set expert_load.kind=state", {"expert_load.kind"}, "--write-state"},
    {"run scenarios/k3-h200-2048.yaml --set bf16_gemm_kernels=cuda11", {"k3-h200-2048.yaml", "bf16_gemm_kernels", "H200"},
     "cuda12"},
    {"run scenarios/k3-h200-2048.yaml --set bf16_gemm_kernels=cuda10", {"bf16_gemm_kernels"}, "cuda11"},
    // a step beyond the simulated clock: 1e10-token sequences, and 1e13 sequences of 4,096 tokens
    {"run scenarios/k3-h200-2048.yaml --set batch.seq_len=10000000000", {"k3-h200-2048.yaml", "batch.seq_len"},
     "under 86400 s at peak"},
    {"run scenarios/k3-h200-2048.yaml --set batch.global_batch_seqs=10000000000000",
     {"k3-h200-2048.yaml", "batch.global_batch_seqs"}, "under 86400 s at peak"},
    // calibrate / profile
    {"calibrate --backend tpu --out x.json", {"--backend", "tpu"}, "{cuda,cpu}"},
    {"profile diff /nonexistent/a.json /nonexistent/b.json", {"/nonexistent/a.json"}, "profile"},
    // trace
    {"trace import /nonexistent/t.json", {"/nonexistent/t.json"}, "Chrome trace"},
    {"trace import /nonexistent/t.json --resume-within-us 0", {"--resume-within-us"}, "positive"},
    {"trace import " K3SIM_SOURCE_DIR "/tests/golden/k3_h200_2048_analytical.json", {"k3_h200_2048_analytical.json", "traceEvents"}, "Chrome trace object"},
};

TEST(CliErrors, EveryBadInputIsNamedWithWhatIsAllowed) {
  for (const auto& bad : kBadInputs) {
    SCOPED_TRACE(bad.args);
    const auto r = k3::test::run_k3sim(bad.args);
    EXPECT_EQ(r.exit_status, 2) << r.err;
    ASSERT_FALSE(r.err.empty());
    const std::string first_line = r.err.substr(0, r.err.find('\n'));
    for (const auto& name : bad.named) EXPECT_NE(first_line.find(name), std::string::npos) << r.err;
    EXPECT_NE(first_line.find(bad.allowed), std::string::npos) << r.err;
  }
}

}  // namespace
