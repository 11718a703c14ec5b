#pragma once
// The self-contained HTML report: one file with inline CSS, inline SVG charts and a few lines of plain
// JavaScript (tabs, sortable tables). A Content-Security-Policy forbids every network fetch, so the file
// opens the same offline, in a mail attachment or printed to PDF.
//
// Commands build a Report from their result structs (the same structs their --json output is written
// from), one Section per kind of result, and call write_html(path) for `--report path`.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/charts/charts.hpp"
#include "reports/table.hpp"

namespace k3::reports {

// A headline number: "Step time 1.23 s". `key` is a JSON pointer into the command's --json output.
struct Card {
  std::string label;
  double value = 0;
  std::string unit;
  std::string key;
  std::string note;  // one short line under the value ("vs 1.41 s for top-8-of-448")
  // The reader sees value x display_scale in `unit` (bytes as GiB, a fraction as %); data-value keeps the
  // exact JSON value so the report and --json still compare equal.
  double display_scale = 1;
};

// Content of a section or of one tab: blocks appended in reading order. Everything is escaped here.
class Blocks {
 public:
  Blocks& paragraph(std::string_view text);
  Blocks& cards(const std::vector<Card>& cards);
  Blocks& chart(const Svg& svg, std::string_view caption = {});
  Blocks& table(const Table& table);
  // Preformatted text (a scenario YAML, a command line).
  Blocks& code(std::string_view caption, std::string_view text);
  // Tabs, one per variant; without JavaScript or when printed, every panel shows one after the other.
  Blocks& tabs(const std::vector<std::pair<std::string, Blocks>>& panels);
  // A collapsible group (<details>): closed on screen until clicked, opened for printing.
  Blocks& details(std::string_view summary, const Blocks& inner, bool open = false);
  // The verdict: a highlighted box of sentences, the first one in bold (what wins, by how much).
  Blocks& verdict(const std::vector<std::string>& sentences);

  const std::string& html() const { return html_; }
  int charts() const { return charts_; }

 private:
  std::string html_;
  int charts_ = 0;
};

class Section : public Blocks {
 public:
  Section(std::string id, std::string title) : id_(std::move(id)), title_(std::move(title)) {}
  const std::string& id() const { return id_; }
  const std::string& title() const { return title_; }

 private:
  std::string id_;
  std::string title_;
};

// Where a figure from outside k3sim came from, or a modelling choice and why.
struct Assumption {
  std::string name;    // "H100 SXM dense BF16 peak"
  std::string value;   // "989 TFLOP/s"
  std::string source;  // "NVIDIA H100 datasheet (2023)" or "k3sim default"
};

// How the run was made, for the "Scenario as run" section.
struct RunInfo {
  std::string command;  // the command line as typed
  std::string version;  // "k3sim 0.1.0"
  std::optional<std::uint64_t> seed;
  std::string scenario_name;  // caption of scenario_text ("" = "Scenario YAML as run")
  std::string scenario_text;  // the YAML (or options) as run, after defaults; "" when there is none
  std::vector<Assumption> assumptions;
};

class Report {
 public:
  Report(std::string title, std::string subtitle = {});

  // Sections appear in the order they are added; ids must be unique HTML ids ([a-z0-9-]).
  // The reference stays valid for the life of the Report.
  Section& add_section(std::string id, std::string title);
  // Adds the "Scenario as run" section (id "scenario") and names the run in the header (scenario file,
  // version and commit (core::source_commit), date, seed).
  Section& add_run_info(const RunInfo& info);
  // The header line naming the run; add_run_info sets it, a caller may set it without that section.
  void set_header_facts(const RunInfo& info);

  const std::deque<Section>& sections() const { return sections_; }
  std::string html() const;
  // Throws core::InputError naming --report when the file cannot be written.
  void write_html(const std::string& path) const;

 private:
  std::string title_;
  std::string subtitle_;
  std::string header_facts_;
  std::deque<Section> sections_;
};

}  // namespace k3::reports
