// The `k3sim model` and `k3sim kv` subcommands through the real binary.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/run_k3sim.hpp"

using k3::test::run_k3sim;
using nlohmann::json;

namespace {

json run_json(const std::string& args) {
  const auto r = run_k3sim(args);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  return json::parse(r.out);
}

// A temporary YAML file under the build folder, removed when the test ends.
struct TempFile {
  std::string path;
  TempFile(const std::string& name, const std::string& text) : path(std::string(K3SIM_BINARY_DIR) + "/" + name) {
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

// Bad input: exit status 2, one line on stderr containing every fragment.
void expect_bad_input(const std::string& args, std::initializer_list<std::string> fragments) {
  const auto r = run_k3sim(args);
  EXPECT_EQ(r.exit_status, 2) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const auto& f : fragments) EXPECT_NE(r.err.find(f), std::string::npos) << "missing '" << f << "' in " << r.err;
}

const std::string kGood =
    "name: tiny\nhidden: 1024\nvocab: 32000\nlayers: 4\nfirst_k_dense_replace: 1\nfull_attention: gqa\n"
    "gqa: {heads: 16, kv_heads: 4}\ndense_ffn: {intermediate: 4096}\n"
    "moe:\n  routed_experts: 8\n  experts_per_token: 2\n  expert_ffn: 512\n";

}  // namespace

// Acceptance: JSON names other tools rely on, and K3's published totals.
TEST(ModelCli, K3Json) {
  const auto j = run_json("model k3 --json");
  for (const char* key : {"total_params", "activated_params", "training_flops_per_token", "kv_cache_bytes_per_token",
                          "state_bytes_per_sequence", "layers"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_NEAR(j["total_params"].get<double>() / 2.78e12, 1.0, 0.005);
  EXPECT_NEAR(j["activated_params"].get<double>() / 104.2e9, 1.0, 0.01);
  EXPECT_EQ(j["kv_cache_bytes_per_token"].get<double>(), 27648);
  EXPECT_EQ(j["state_bytes_per_sequence"].get<double>(), 69 * (6.0 * 1024 * 1024 + 221184));
  // Layer kinds: embedding, KDA+dense (layer 1), KDA+MoE (68), MLA+MoE (24), lm_head, mtp.
  std::map<std::string, int> counts;
  double params = 0;
  for (const auto& l : j["layers"]) {
    counts[l["kind"].get<std::string>()] = l["count"].get<int>();
    EXPECT_TRUE(l.contains("flops"));
    if (l["kind"] != "mtp") params += l["params"].get<double>();
  }
  EXPECT_EQ(counts["KDA+dense"], 1);
  EXPECT_EQ(counts["KDA+MoE"], 68);
  EXPECT_EQ(counts["MLA+MoE"], 24);
  EXPECT_EQ(counts["mtp"], 1);
  EXPECT_DOUBLE_EQ(params, j["total_params"].get<double>());  // K3's count excludes MTP
}

TEST(ModelCli, PeersAndSeq) {
  const auto d = run_json("model deepseek-v3 --json --seq 4096");
  EXPECT_NEAR(d["training_flops_per_token"].get<double>() / 250e9, 1.0, 0.02);
  // Longer sequences only add attention FLOPs: 61 layers x 6 x 128 heads x 320 x (8192 - 4096) / 2.
  const auto d8 = run_json("model deepseek-v3 --json --seq 8K");
  EXPECT_NEAR(d8["training_flops_per_token"].get<double>() - d["training_flops_per_token"].get<double>(),
              61 * 6.0 * 128 * 320 * 2048, 1.0);
  const auto text = run_k3sim("model kimi-linear-48b-a3b");
  EXPECT_EQ(text.exit_status, 0);
  EXPECT_NE(text.out.find("KDA+MoE"), std::string::npos);
  EXPECT_NE(text.out.find("GFLOP/token"), std::string::npos);
  const auto cfg = run_json("model tests/model/fixtures/k3/config.json --json");
  EXPECT_DOUBLE_EQ(cfg["total_params"].get<double>(), run_json("model k3 --json")["total_params"].get<double>());
}

TEST(ModelCli, VersusShowsTheDifferencesThatMatter) {
  const auto r = run_k3sim("model k3 --vs k3-448");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("57344 = 16 x 3584"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("57344 = 8 x 7168"), std::string::npos);
  EXPECT_NE(r.out.find("896 x 7168, top-16"), std::string::npos);
  EXPECT_NE(r.out.find("448 x [6144 x 7168]"), std::string::npos);
  const auto j = run_json("model k3 --vs k3-448 --json");
  ASSERT_EQ(j["models"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["models"][0]["routed_flops_per_token"].get<double>(),
                   j["models"][1]["routed_flops_per_token"].get<double>());
}

TEST(KvCli, K3AgainstAlternatives) {
  const auto j = run_json("kv k3 --context 128K,1M --gpu h200 --batch 4 --json");
  EXPECT_EQ(j["gpu"]["name"], "H200-SXM");
  EXPECT_EQ(j["gpu"]["hbm_bytes"].get<double>(), 141e9);
  ASSERT_EQ(j["rows"].size(), 8u);  // k3, kimi-k2, GQA8, MFA at two contexts
  std::map<std::string, double> per_token, batch_1m;
  for (const auto& r : j["rows"]) {
    per_token[r["model"]] = r["kv_cache_bytes_per_token"].get<double>();
    if (r["context"].get<double>() == 1048576) batch_1m[r["model"]] = r["max_batch"].get<double>();
    EXPECT_TRUE(r.contains("batch_fits"));
  }
  EXPECT_EQ(per_token["k3"], 27648);
  EXPECT_EQ(per_token["kimi-k2"], 70272);
  EXPECT_EQ(per_token["k3/gqa8-128+128"], 24 * 4096.0);
  EXPECT_EQ(per_token["k3/mfa-256+256"], 24 * 1024.0);
  EXPECT_GT(batch_1m["k3"], 3 * batch_1m["k3/gqa8-128+128"]);
  const auto text = run_k3sim("kv k3 --context 1M --gpu h200");
  EXPECT_EQ(text.exit_status, 0);
  EXPECT_NE(text.out.find("H200-SXM"), std::string::npos);
  // An FP8 cache (issue 49): K3's 24 MLA layers x 576 x 1 B = 13,824 B per token; its KDA states stay fp32 / BF16.
  const auto fp8 = run_json("kv k3 --context 128K --gpu h200 --kv-cache fp8 --json");
  EXPECT_EQ(fp8["cache_bytes_per_element"], 1.0);
  EXPECT_EQ(fp8["rows"][0]["kv_cache_bytes_per_token"], 13824);
  EXPECT_EQ(fp8["rows"][0]["state_bytes_per_sequence"], j["rows"][0]["state_bytes_per_sequence"]);
  EXPECT_EQ(run_k3sim("kv k3 --kv-cache int8").exit_status, 2);
}

TEST(ModelCli, BadInputIsExitTwoWithFileKeyLineAndAllowed) {
  expect_bad_input("model k4", {"k4", "unknown model preset", "k3, k3-448"});
  expect_bad_input("model /no/such.yaml", {"/no/such.yaml", "no such file"});
  expect_bad_input("model /no/such/config.json", {"/no/such/config.json", "no such file"});
  TempFile malformed("bad-malformed.yaml", "name: x\nhidden: [1, 2\n");
  expect_bad_input("model " + malformed.path, {malformed.path, "malformed YAML"});
  TempFile malformed_json("bad-malformed.json", "{\"model_type\": \"llama\",,}");
  expect_bad_input("model " + malformed_json.path, {malformed_json.path + ":1", "malformed JSON"});
  TempFile unknown("bad-unknown.yaml", kGood + "hiden: 3\n");
  expect_bad_input("model " + unknown.path, {unknown.path + ":13", "key 'hiden'", "unknown key", "allowed:"});
  TempFile topk("bad-topk.yaml", kGood.substr(0, kGood.find("  experts_per_token")) + "  experts_per_token: 9\n  expert_ffn: 512\n");
  expect_bad_input("model " + topk.path, {topk.path + ":11", "moe.experts_per_token", "top-9 is more than the 8", "1 to 8"});
  TempFile heads("bad-heads.yaml", [] {
    auto s = kGood;
    s.replace(s.find("heads: 16, kv_heads: 4"), 22, "heads: 24, kv_heads: 4");
    return s;
  }());
  expect_bad_input("model " + heads.path, {heads.path + ":7", "gqa.heads", "do not divide hidden size 1024"});
  TempFile negative("bad-negative.yaml", [] {
    auto s = kGood;
    s.replace(s.find("hidden: 1024"), 12, "hidden: -1024");
    return s;
  }());
  expect_bad_input("model " + negative.path, {negative.path + ":2", "key 'hidden'", "positive", "integer >= 1"});
  TempFile zero("bad-zero.yaml", [] {
    auto s = kGood;
    s.replace(s.find("expert_ffn: 512"), 15, "expert_ffn: 0");
    return s;
  }());
  expect_bad_input("model " + zero.path, {zero.path + ":12", "moe.expert_ffn", "integer >= 1"});
  expect_bad_input("model k3 --seq 0", {"--seq", "positive"});
  expect_bad_input("kv k3 --gpu tpu9", {"--gpu", "unknown GPU", "H200-SXM"});
  expect_bad_input("kv k3 --context 1M,abc", {"--context"});
  expect_bad_input("kv k3 --gpus 0", {"--gpus"});
}
