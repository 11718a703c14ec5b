#include "reports/report.hpp"

#include <fmt/format.h>

#include <fmt/chrono.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "reports/style.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"
#include "core/version.hpp"

namespace k3::reports {

Blocks& Blocks::paragraph(std::string_view text) {
  html_ += fmt::format("<p>{}</p>", escape_html(text));
  return *this;
}

Blocks& Blocks::cards(const std::vector<Card>& cards) {
  html_ += R"(<div class="cards">)";
  for (const auto& c : cards) {
    std::string attrs = fmt::format(R"( data-value="{}")", exact_number(c.value));
    if (!c.key.empty()) attrs += fmt::format(R"( data-key="{}")", escape_html(c.key));
    html_ += fmt::format(R"(<div class="card"><div class="card-label">{}</div><div class="card-value"{}>{})",
                         escape_html(c.label), attrs, escape_html(display_number(c.value * c.display_scale)));
    if (!c.unit.empty()) html_ += fmt::format(R"( <span class="unit">{}</span>)", escape_html(c.unit));
    html_ += "</div>";
    if (!c.note.empty()) html_ += fmt::format(R"(<div class="card-note">{}</div>)", escape_html(c.note));
    html_ += "</div>";
  }
  html_ += "</div>";
  return *this;
}

Blocks& Blocks::chart(const Svg& svg, std::string_view caption) {
  html_ += fmt::format(R"(<figure class="figure">{})", svg.markup);
  if (!caption.empty()) html_ += fmt::format("<figcaption>{}</figcaption>", escape_html(caption));
  html_ += "</figure>";
  ++charts_;
  return *this;
}

Blocks& Blocks::table(const Table& table) {
  html_ += table.html();
  return *this;
}

Blocks& Blocks::code(std::string_view caption, std::string_view text) {
  html_ += fmt::format(R"(<div class="code"><div class="code-caption">{}</div><pre>{}</pre></div>)",
                       escape_html(caption), escape_html(text));
  return *this;
}

Blocks& Blocks::tabs(const std::vector<std::pair<std::string, Blocks>>& panels) {
  K3SIM_ASSERT(!panels.empty(), "tabs need at least one panel");
  html_ += R"(<div class="tabs"><div class="tab-buttons" role="tablist">)";
  for (std::size_t i = 0; i < panels.size(); ++i) {
    html_ += fmt::format(R"(<button type="button" role="tab" class="tab-button{}" data-tab="{}">{}</button>)",
                         i == 0 ? " active" : "", i, escape_html(panels[i].first));
  }
  html_ += "</div>";
  for (std::size_t i = 0; i < panels.size(); ++i) {
    html_ += fmt::format(R"(<div class="tab-panel{}" role="tabpanel" data-tab="{}"><h3 class="tab-title">{}</h3>{}</div>)",
                         i == 0 ? " active" : "", i, escape_html(panels[i].first), panels[i].second.html());
    charts_ += panels[i].second.charts();
  }
  html_ += "</div>";
  return *this;
}

Blocks& Blocks::details(std::string_view summary, const Blocks& inner, bool open) {
  html_ += fmt::format(R"(<details class="group"{}><summary>{}</summary>{}</details>)", open ? " open" : "",
                       escape_html(summary), inner.html());
  charts_ += inner.charts();
  return *this;
}

Blocks& Blocks::verdict(const std::vector<std::string>& sentences) {
  K3SIM_ASSERT(!sentences.empty(), "a verdict needs at least one sentence");
  html_ += R"(<div class="verdict">)";
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    html_ += i == 0 ? fmt::format("<p><strong>{}</strong></p>", escape_html(sentences[i]))
                    : fmt::format("<p>{}</p>", escape_html(sentences[i]));
  }
  html_ += "</div>";
  return *this;
}

Report::Report(std::string title, std::string subtitle) : title_(std::move(title)), subtitle_(std::move(subtitle)) {}

Section& Report::add_section(std::string id, std::string title) {
  const bool valid = !id.empty() && std::all_of(id.begin(), id.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
  });
  K3SIM_ASSERT(valid, "report section id '" + id + "' must be non-empty [a-z0-9-]");
  for (const auto& s : sections_) K3SIM_ASSERT(s.id() != id, "report section id '" + id + "' used twice");
  return sections_.emplace_back(std::move(id), std::move(title));
}

void Report::set_header_facts(const RunInfo& info) {
  std::vector<std::string> facts;
  // What was run, so the page can be reproduced (issue 47: this said "Scenario Scenario YAML as run", the caption of
  // the YAML further down).
  if (!info.command.empty()) facts.push_back(info.command);
  facts.push_back(info.version + ", commit " + std::string(core::source_commit()));
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  facts.push_back(fmt::format("generated {:%Y-%m-%d %H:%M} UTC", now));
  facts.push_back(info.seed ? "seed " + std::to_string(*info.seed) : "no random seed");
  header_facts_.clear();
  for (const auto& f : facts) header_facts_ += (header_facts_.empty() ? "" : " \u00b7 ") + f;
}

Section& Report::add_run_info(const RunInfo& info) {
  set_header_facts(info);
  Section& s = add_section("scenario", "Scenario as run");
  Table facts({{"Field", ""}, {"Value", ""}});
  facts.add_row({Cell::of_text("Command"), Cell::of_text(info.command)});
  facts.add_row({Cell::of_text("Version"), Cell::of_text(info.version)});
  facts.add_row({Cell::of_text("Commit"), Cell::of_text(std::string(core::source_commit()))});
  facts.add_row({Cell::of_text("Seed"), info.seed ? Cell::of_text(std::to_string(*info.seed))
                                                  : Cell::of_text("none (deterministic, no sampling)")});
  s.table(facts);
  if (!info.assumptions.empty()) {
    Table assumptions({{"Assumption", ""}, {"Value", ""}, {"Source", ""}});
    assumptions.caption("Every figure from outside k3sim, with its source");
    for (const auto& a : info.assumptions)
      assumptions.add_row({Cell::of_text(a.name), Cell::of_text(a.value), Cell::of_text(a.source)});
    s.table(assumptions);
  }
  if (!info.scenario_text.empty())
    s.code(info.scenario_name.empty() ? "Scenario YAML as run" : info.scenario_name, info.scenario_text);
  return s;
}

std::string Report::html() const {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  // No network access: everything the page needs is inline; the policy makes any slip fail loudly.
  out += R"(<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">)";
  out += R"(<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">)";
  out += fmt::format("<title>{}</title><style>{}</style></head><body>", escape_html(title_), detail::kReportCss);
  out += fmt::format(R"(<header class="masthead"><h1>{}</h1>)", escape_html(title_));
  if (!subtitle_.empty()) out += fmt::format(R"(<p class="subtitle">{}</p>)", escape_html(subtitle_));
  if (!header_facts_.empty()) out += fmt::format(R"(<p class="run-facts">{}</p>)", escape_html(header_facts_));
  out += "</header>";
  if (sections_.size() > 1) {
    out += R"(<nav class="toc" aria-label="Sections">)";
    for (const auto& s : sections_) out += fmt::format(R"(<a href="#{}">{}</a>)", s.id(), escape_html(s.title()));
    out += "</nav>";
  }
  out += "<main>";
  for (const auto& s : sections_) {
    out += fmt::format(R"(<section id="{}" class="section"><h2>{}</h2>{}</section>)", s.id(), escape_html(s.title()),
                       s.html());
  }
  out += "</main>";
  out += R"(<footer>Generated by k3sim. Self-contained: inline SVG charts, no network access. Hover a bar or point for its exact value; click a table header to sort.</footer>)";
  out += fmt::format("<script>{}</script></body></html>\n", detail::kReportJs);
  return out;
}

void Report::write_html(const std::string& path) const {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw core::InputError({"--report", "", 0}, "cannot open '" + path + "' for writing");
  file << html();
  file.close();
  if (!file) throw core::InputError({"--report", "", 0}, "cannot write '" + path + "'");
}

}  // namespace k3::reports
