#pragma once
// Internal to reports/: the stylesheet and the script inlined into every report.
namespace k3::reports::detail {

// Screen: a centred column, cards, figures, tables. Print: no navigation, every tab panel shown,
// charts kept whole on a page.
inline constexpr const char* kReportCss = R"css(
:root{--ink:#1d2329;--muted:#5b6670;--line:#d9dee3;--bg:#f6f7f9;--accent:#0072B2}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.masthead{background:#fff;color:var(--ink);padding:20px 32px 14px;border-bottom:3px solid var(--accent)}
.masthead h1{margin:0;font-size:24px;font-weight:600;letter-spacing:.2px}
.subtitle{margin:4px 0 0;color:#2c353d}
.run-facts{margin:4px 0 0;color:var(--muted);font-size:12.5px}
.verdict{border:1px solid #9cc3de;border-left:6px solid var(--accent);background:#eef5fa;border-radius:4px;padding:4px 18px;margin:12px 0}
.verdict p{max-width:none}
details.group{border:1px solid var(--line);border-radius:4px;margin:8px 0;padding:4px 12px}
details.group>summary{cursor:pointer;font-weight:600;padding:4px 0}
svg.chart text.value{font-size:11.5px;fill:#1d2329}
.toc{display:flex;flex-wrap:wrap;gap:4px 18px;padding:8px 32px;background:#fff;border-bottom:1px solid var(--line)}
.toc a{color:var(--accent);text-decoration:none;font-weight:500}
.toc a:hover{text-decoration:underline}
main{max-width:1120px;margin:0 auto;padding:8px 24px 24px}
.section{background:#fff;border:1px solid var(--line);border-radius:6px;padding:6px 24px 18px;margin:18px 0}
.section h2{font-size:18px;font-weight:600;margin:14px 0 10px;padding-bottom:6px;border-bottom:2px solid var(--accent)}
.section p{max-width:80ch;color:#2c353d}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin:12px 0}
.card{border:1px solid var(--line);border-left:4px solid var(--accent);border-radius:4px;padding:10px 14px;background:#fbfcfd}
.card-label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.4px}
.card-value{font-size:24px;font-weight:600;font-variant-numeric:tabular-nums;white-space:nowrap}
.card-value .unit{font-size:14px;font-weight:400;color:var(--muted)}
.card-note{font-size:12px;color:var(--muted)}
.figure{margin:14px 0;overflow-x:auto}
.figure svg{display:block;max-width:100%;height:auto}
figcaption{color:var(--muted);font-size:12.5px;margin-top:4px;max-width:90ch}
svg.chart text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#333}
svg.chart text.title{font-size:14px;font-weight:600;fill:#1d2329}
svg.chart text.axislabel{font-weight:500;fill:#333}
svg.chart text.reflabel{font-size:11px;fill:#000;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
svg.chart text.cell{font-size:10.5px;fill:#fff}
svg.chart text.cell.dark{fill:#111}
svg.chart line.grid{stroke:#e6e9ec;stroke-width:1}
svg.chart line.axis{stroke:#444;stroke-width:1}
svg.chart line.ref{stroke:#000;stroke-width:1.5;stroke-dasharray:6 4}
svg.chart .mark:hover{stroke:#000;stroke-width:1.5}
.table-wrap{overflow-x:auto;margin:12px 0}
table.data{border-collapse:collapse;font-variant-numeric:tabular-nums;min-width:40%}
table.data caption{caption-side:top;text-align:left;color:var(--muted);font-size:12.5px;padding-bottom:4px}
table.data th,table.data td{padding:5px 12px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
table.data th{background:#eef1f4;font-weight:600;cursor:pointer;vertical-align:bottom}
table.data th.asc::after{content:" \25B2"}
table.data th.desc::after{content:" \25BC"}
table.data td.num{text-align:right;white-space:nowrap}
table.data tbody tr:nth-child(even){background:#fafbfc}
.code-caption{color:var(--muted);font-size:12.5px;margin-top:12px}
pre{background:#f3f5f7;border:1px solid var(--line);border-radius:4px;padding:10px 12px;overflow-x:auto;font-size:12.5px;line-height:1.4}
.tab-buttons{display:flex;gap:4px;border-bottom:1px solid var(--line);margin-top:12px}
.tab-button{font:inherit;border:1px solid var(--line);border-bottom:none;background:#eef1f4;padding:5px 14px;border-radius:4px 4px 0 0;cursor:pointer}
.tab-button.active{background:#fff;color:var(--accent);font-weight:600}
.tab-title{display:none}
.js .tab-panel:not(.active){display:none}
footer{max-width:1120px;margin:0 auto;padding:0 24px 32px;color:var(--muted);font-size:12px}
@media print{
  @page{margin:12mm}
  body{background:#fff;font-size:10pt}
  .masthead{background:#fff;color:#000;padding:0 0 8px;border-bottom:2px solid #000}
  .subtitle,.run-facts{color:#333}
  .section+.section{break-before:page}
  .figure{overflow:visible}
  .figure svg{width:100%;height:auto}
  .verdict{break-inside:avoid}
  .toc,.tab-buttons{display:none}
  .js .tab-panel:not(.active),.tab-panel{display:block}
  .tab-title{display:block;font-size:14px}
  main{max-width:none;padding:0}
  .section{border:none;padding:0;margin:12px 0;break-inside:auto}
  .figure,.card,tr,figure,svg.chart{break-inside:avoid;page-break-inside:avoid}
  h2,h3,.code-caption{break-after:avoid}
  .table-wrap{overflow:visible}
  table.data{font-size:8pt;max-width:100%}
  table.data th,table.data td{padding:2px 4px;overflow-wrap:anywhere}
  table.data td.num{white-space:normal}
  pre{white-space:pre-wrap;overflow-wrap:anywhere}
  table.data th{cursor:auto}
}
)css";

// Tabs and sortable tables; the page reads fine without it.
inline constexpr const char* kReportJs = R"js(
(function(){
  "use strict";
  document.documentElement.classList.add("js");
  // Collapsed groups print open; they close again afterwards.
  var closed=[];
  window.addEventListener("beforeprint",function(){
    closed=Array.prototype.filter.call(document.querySelectorAll("details"),function(d){return !d.open;});
    closed.forEach(function(d){d.open=true;});
  });
  window.addEventListener("afterprint",function(){closed.forEach(function(d){d.open=false;});});
  document.querySelectorAll(".tabs").forEach(function(tabs){
    var buttons=tabs.querySelectorAll(":scope > .tab-buttons > .tab-button");
    var panels=tabs.querySelectorAll(":scope > .tab-panel");
    buttons.forEach(function(b){
      b.addEventListener("click",function(){
        buttons.forEach(function(x){x.classList.toggle("active",x===b);});
        panels.forEach(function(p){p.classList.toggle("active",p.dataset.tab===b.dataset.tab);});
      });
    });
  });
  document.querySelectorAll("table.sortable").forEach(function(table){
    var heads=table.querySelectorAll("thead th");
    heads.forEach(function(th,col){
      th.addEventListener("click",function(){
        var asc=!th.classList.contains("asc");
        heads.forEach(function(h){h.classList.remove("asc","desc");});
        th.classList.add(asc?"asc":"desc");
        var body=table.tBodies[0];
        var rows=Array.prototype.slice.call(body.rows);
        rows.sort(function(a,b){
          var ca=a.cells[col],cb=b.cells[col];
          var va=ca.dataset.value,vb=cb.dataset.value;
          var r=(va!==undefined&&vb!==undefined)?(parseFloat(va)-parseFloat(vb)):ca.textContent.localeCompare(cb.textContent);
          return asc?r:-r;
        });
        rows.forEach(function(r){body.appendChild(r);});
      });
    });
  });
})();
)js";

}  // namespace k3::reports::detail
