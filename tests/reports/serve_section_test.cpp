// The serve report opens with its verdict: whether the SLO holds at P99, the share of requests that meet it, each
// P99 against its target and the price, from results::serve_to_json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/sections/serve.hpp"
#include "results/serve_output.hpp"

using namespace k3;

namespace {

serve::ServeResult served(double ttft_p99_s, double tpot_p99_s) {
  serve::ServeResult r;
  r.name = "unit";
  r.model = "m";
  r.topology = "t";
  r.deployment = "disaggregated";
  r.nodes = r.prefill_nodes = 1;
  r.decode_nodes = 1;
  r.gpus = 16;
  r.window_s = 10;
  r.arrival_rate_per_s = 4;
  r.ttft.p50 = r.ttft.p99 = ttft_p99_s;
  r.tpot.p50 = r.tpot.p99 = tpot_p99_s;
  r.slo_ttft_s = 2.0;
  r.slo_tpot_s = 0.05;
  r.slo_attainment = 0.25;
  r.usd_per_million_output_tokens = 8.5;
  return r;
}

std::string verdict_of(const serve::ServeResult& r) {
  const auto path = (std::filesystem::temp_directory_path() / "k3sim_serve_verdict.html").string();
  reports::write_serve_report(path, results::serve_to_json(r), {});
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  const std::string html = s.str();
  const auto start = html.find("class=\"verdict\"");
  EXPECT_NE(start, std::string::npos);
  // The verdict comes before the summary's cards.
  EXPECT_LT(start, html.find("Output per node"));
  return html.substr(start, html.find("</div>", start) - start);
}

TEST(ServeReport, OpensWithWhetherTheSloHolds) {
  // P99 TTFT 3 s against 2 s: not met, though TPOT (40 ms against 50 ms) is.
  const auto missed = verdict_of(served(3.0, 0.040));
  EXPECT_NE(missed.find("The SLO is not met at P99 at 4 requests/s: 25% of requests meet"), std::string::npos) << missed;
  EXPECT_NE(missed.find("P99 TTFT 3,000 ms (over the target); P99 TPOT 40 ms (within the target)"), std::string::npos)
      << missed;
  EXPECT_NE(missed.find("$8.5 per 1M output tokens"), std::string::npos) << missed;
  // Both within: met.
  const auto met = verdict_of(served(1.5, 0.040));
  EXPECT_NE(met.find("The SLO is met at P99"), std::string::npos) << met;
}

}  // namespace
