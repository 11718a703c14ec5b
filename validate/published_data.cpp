#include "validate/published_data.hpp"

#include <filesystem>
#include <sstream>

#include "core/csv_text.hpp"
#include "core/error.hpp"
#include "core/text_file.hpp"

namespace k3::validate {

const std::vector<PublishedFile>& published_files() {
  static const std::vector<PublishedFile> files = {
      {"deepseek-v3-training.csv", "Insights into DeepSeek-V3 (ISCA'25) Table 4; arXiv:2412.19437 section 3"},
      {"megatron-sc21-table1.csv", "Narayanan et al. SC21 (Megatron-LM on GPU clusters) Table 1"},
      {"megatron-moe-qwen3-235b.csv", "yanring/Megatron-MoE-ModelZoo best_practice/Qwen3/readme.md"},
      {"megatron-moe-qwen3-235b-long-context.csv",
       "yanring/Megatron-MoE-ModelZoo best_practice/Qwen3/readme.md (Long Context)"},
      {"deepep-normal.csv", "deepseek-ai/DeepEP docs/legacy.md (normal kernels)"},
      {"sglang-deepseek-96xh100-serving.csv",
       "LMSYS blog 2025-05-05: Deploying DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on 96 "
       "H100 GPUs"},
  };
  return files;
}

std::string derive_published_table(const std::string& original, const PublishedFile& file) {
  const auto csv = core::parse_csv_text(original, file.file);
  if (csv.rows.empty()) throw core::InputError({file.file, "", 0}, "no data rows", "a header line and data rows");
  std::ostringstream out;
  out << "# Derived by `k3sim validate --import-data` from shared/validation/" << file.file
      << ": the published rows with a source column; the publisher's notes follow.\n";
  std::istringstream lines(original);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '#') out << line << "\n";
  }
  for (const auto& h : csv.header) out << h << ",";
  out << "source\n";
  for (const auto& row : csv.rows) {
    for (const auto& cell : row) out << cell << ",";
    out << file.source << "\n";
  }
  return out.str();
}

std::vector<std::string> import_published_data(const std::string& from_dir, const std::string& to_dir) {
  std::error_code ec;
  std::filesystem::create_directories(to_dir, ec);
  if (ec) throw core::InputError({to_dir, "", 0}, "cannot create the folder: " + ec.message(), "a writable folder");
  std::vector<std::string> written;
  for (const auto& f : published_files()) {
    const std::string text = core::read_text_file(from_dir + "/" + f.file, "the published table in shared/validation");
    const std::string to = to_dir + "/" + f.file;
    core::write_text_file(to, derive_published_table(text, f), "--out");
    written.push_back(to);
  }
  return written;
}

}  // namespace k3::validate
