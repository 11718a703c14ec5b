#!/usr/bin/python3
"""Opens a k3sim HTML report in headless Debian Chromium and checks what a reviewer would see.

  browser_check.py --produce "CMD" --html out.html --screenshot out.png
                   [--expect SECTION:KIND,KIND ...] [--json out.json --min-keys N] [--max-bytes N]
                   [--min-charts N] [--pdf out.pdf] [--max-width-px N] [--captions]

--produce runs CMD (a shell command that writes the report, and --json's file when given) first.
Checks, each failing the test with a message:
  * the file is valid HTML: tidy reports no error or warning, and a strict parse finds balanced
    elements and unique ids;
  * it references nothing outside itself and the browser makes no network request (DevTools
    performance log and resource timing entries);
  * no console message of level SEVERE (script errors, Content-Security-Policy violations);
  * every expected section exists and holds the expected chart kinds, and every chart has as many
    marks as it declares, at least one;
  * the tab and sort scripts work;
  * every number with a data-key equals the value at that JSON pointer in the --json output;
  * no two series of one chart share a colour (marks name their series in data-series; heatmaps excepted,
    their colour is the value);
  * with --captions, every chart has a caption (what to look at);
  * with --max-width-px, the page fits a window that wide (a laptop) without horizontal scrolling;
  * with --pdf, Chromium prints the page to A4 and to Letter PDF (out.pdf, out-letter.pdf); in print media at
    each paper's printable size every chart is kept whole (break-inside: avoid, height under one page), each
    section starts a page, and the PDF has pages;
  * a full-page PNG screenshot is written.
"""
import argparse
import html.parser
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class StrictParser(html.parser.HTMLParser):
    """Balanced elements (SVG self-closing allowed), unique ids, no duplicate attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.ids, self.problems = [], set(), []

    def handle_starttag(self, tag, attrs):
        names = [a for a, _ in attrs]
        if len(names) != len(set(names)):
            self.problems.append(f"duplicate attribute in <{tag}> at {self.getpos()}")
        for name, value in attrs:
            if name == "id":
                if value in self.ids:
                    self.problems.append(f"duplicate id '{value}'")
                self.ids.add(value)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        if tag not in VOID and "svg" not in self.stack:
            self.problems.append(f"self-closing <{tag}/> outside SVG at {self.getpos()}")

    def handle_endtag(self, tag):
        if tag in VOID:
            self.problems.append(f"end tag for void element </{tag}>")
        elif not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> at {self.getpos()} does not close <{self.stack[-1] if self.stack else None}>")
        else:
            self.stack.pop()


def fail(message):
    print(f"browser_check: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def validate_html(path, text):
    if not text.startswith("<!DOCTYPE html>"):
        fail("missing <!DOCTYPE html>")
    parser = StrictParser()
    parser.feed(text)
    parser.close()
    if parser.stack:
        parser.problems.append(f"unclosed elements {parser.stack}")
    if parser.problems:
        fail("HTML structure: " + "; ".join(parser.problems[:10]))
    tidy = shutil.which("tidy")
    if not tidy:
        fail("tidy is not installed (scripts/install-deps.sh installs it)")
    r = subprocess.run([tidy, "-q", "-e", "--show-warnings", "yes", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"tidy found problems (exit {r.returncode}):\n{r.stderr[:3000]}")
    # Nothing may point outside the file: the SVG namespace is an identifier, never fetched.
    for m in re.finditer(r"(?:src|href|action|poster|data)\s*=\s*\"([^\"]*)\"", text):
        url = m.group(1)
        if not (url.startswith("#") or url.startswith("data:")):
            fail(f"external reference {url!r}")


def json_pointer(doc, pointer):
    node = doc
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def open_browser(profile):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
                 "--disable-default-apps", "--disable-dev-shm-usage", "--window-size=1280,900",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def check_page(driver, url, args):
    # Drain what the browser did before the report (its start page), so that every request left is the report's.
    driver.get_log("performance")
    driver.get_log("browser")
    driver.get(url)
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            req = message["params"]["request"]["url"]
            from_report = message["params"].get("documentURL") == url
            # The browser's own start page loads chrome:// resources; anything the report asks for, and
            # any request that would leave the machine, fails.
            if (from_report and req != url and not req.startswith("data:")) or \
                    re.match(r"(https?|wss?|ftp)://", req):
                fail(f"network request to {req}")
    resources = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    if resources:
        fail(f"resource requests: {resources}")
    severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    if severe:
        fail(f"console errors: {severe}")

    charts = driver.execute_script("""
      return Array.from(document.querySelectorAll('svg.chart')).map(svg => ({
        section: svg.closest('section') ? svg.closest('section').id : null,
        kind: svg.dataset.chart, declared: parseInt(svg.dataset.marks),
        marks: svg.querySelectorAll('.mark').length,
        titled: svg.querySelectorAll('.mark > title').length}));""")
    if not charts:
        fail("no chart in the report")
    for c in charts:
        if c["marks"] == 0 or c["marks"] != c["declared"] or c["titled"] != c["marks"]:
            fail(f"chart {c} has no marks, or marks without a tooltip, or a wrong data-marks")
    for spec in args.expect:
        section, _, kinds = spec.partition(":")
        if not driver.execute_script("return !!document.getElementById(arguments[0])", section):
            fail(f"section '{section}' missing")
        have = [c["kind"] for c in charts if c["section"] == section]
        for kind in filter(None, kinds.split(",")):
            if kind not in have:
                fail(f"section '{section}' lacks a '{kind}' chart (has {have})")
            have.remove(kind)
    if args.captions:
        bare = driver.execute_script("""
          return Array.from(document.querySelectorAll('figure')).filter(f => {
            const c = f.querySelector('figcaption'); return !c || !c.textContent.trim(); }).length;""")
        if bare:
            fail(f"{bare} charts without a caption")
    if len(charts) < args.min_charts:
        fail(f"{len(charts)} charts, expected at least {args.min_charts}")
    clashes = driver.execute_script("""
      const out = [];
      document.querySelectorAll('svg.chart').forEach((svg, i) => {
        if (svg.dataset.chart === 'heatmap') return;
        const colourOf = new Map();
        svg.querySelectorAll('.mark[data-series]').forEach(m => {
          const fill = m.getAttribute('fill'), series = m.dataset.series;
          if (!colourOf.has(series)) colourOf.set(series, fill);
        });
        const seriesOf = new Map();
        colourOf.forEach((fill, series) => {
          if (seriesOf.has(fill)) out.push(`chart ${i} (${svg.querySelector('title').textContent}): `
                                           + `'${seriesOf.get(fill)}' and '${series}' share ${fill}`);
          seriesOf.set(fill, series);
        });
      });
      return out;""")
    if clashes:
        fail("series sharing a colour: " + "; ".join(clashes[:5]))
    print(f"browser_check: {len(charts)} charts, {sum(c['marks'] for c in charts)} marks")
    return charts


# Printable area of the papers at 96 CSS px per inch, with the report's 12 mm @page margins.
PAPERS = {"A4": (8.27, 11.69), "Letter": (8.5, 11.0)}
MARGIN_IN = 12 / 25.4


def check_print(driver, args):
    import base64

    for paper, (w_in, h_in) in PAPERS.items():
        content_w, content_h = (w_in - 2 * MARGIN_IN) * 96, (h_in - 2 * MARGIN_IN) * 96
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": int(content_w), "height": int(content_h), "deviceScaleFactor": 1, "mobile": False})
        problems = driver.execute_script("""
          const pageH = arguments[0], out = [];
          document.querySelectorAll('figure').forEach((f, i) => {
            const st = getComputedStyle(f), h = f.getBoundingClientRect().height;
            if (st.breakInside !== 'avoid' && st.pageBreakInside !== 'avoid') out.push(`figure ${i}: break-inside ${st.breakInside}`);
            if (h > pageH) out.push(`figure ${i} is ${Math.round(h)} px, taller than a page (${Math.round(pageH)} px)`);
          });
          document.querySelectorAll('section.section').forEach((s, i) => {
            if (i > 0 && getComputedStyle(s).breakBefore !== 'page') out.push(`section ${s.id} does not start a page`);
          });
          if (document.documentElement.scrollWidth > window.innerWidth + 1)
            out.push(`printed page is ${document.documentElement.scrollWidth} px wide, over ${window.innerWidth}`);
          return out;""", content_h)
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        if problems:
            fail(f"{paper} print layout: " + "; ".join(problems[:8]))
        pdf = driver.execute_cdp_cmd("Page.printToPDF", {"paperWidth": w_in, "paperHeight": h_in,
                                                         "printBackground": True, "preferCSSPageSize": False})
        data = base64.b64decode(pdf["data"])
        pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
        if not data.startswith(b"%PDF") or pages < 1:
            fail(f"{paper} PDF has no pages")
        out = pathlib.Path(args.pdf if paper == "A4" else re.sub(r"\.pdf$", "", args.pdf) + "-letter.pdf")
        out.write_bytes(data)
        print(f"browser_check: {paper} PDF {out} ({len(data)} bytes, {pages} pages)")


def check_width(driver, width_px):
    driver.set_window_size(width_px, 900)
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    if overflow > 1:
        fail(f"the page scrolls sideways by {overflow} px in a {width_px} px window")


def check_scripts(driver):
    from selenium.webdriver.common.by import By

    tabs = driver.find_elements(By.CSS_SELECTOR, ".tabs")
    if tabs:
        buttons = tabs[0].find_elements(By.CSS_SELECTOR, ":scope > .tab-buttons > .tab-button")
        panels = tabs[0].find_elements(By.CSS_SELECTOR, ":scope > .tab-panel")
        if len(buttons) > 1:
            if panels[1].is_displayed():
                fail("a second tab panel shows before its tab is clicked")
            buttons[1].click()
            if not panels[1].is_displayed() or panels[0].is_displayed():
                fail("clicking a tab does not switch panels")
            buttons[0].click()
    # Sort the first table that has a column numeric in every row, by clicking its header.
    column = driver.execute_script("""
      for (const t of document.querySelectorAll('table.sortable')) {
        const rows = t.tBodies[0].rows;
        if (rows.length < 2 || t.offsetParent === null) continue;
        for (let c = 0; c < rows[0].cells.length; c++)
          if (Array.from(rows).every(r => r.cells[c] && r.cells[c].dataset.value !== undefined)) {
            t.tHead.rows[0].cells[c].click();
            return Array.from(t.tBodies[0].rows).map(r => parseFloat(r.cells[c].dataset.value));
          }
      }
      return null;""")
    if column is not None and column != sorted(column):
        fail(f"clicking a numeric header does not sort ascending: {column}")


def check_json(driver, args):
    doc = json.loads(pathlib.Path(args.json).read_text())
    keyed = driver.execute_script("""
      return Array.from(document.querySelectorAll('[data-key]')).map(e => [e.dataset.key, e.dataset.value]);""")
    if len(keyed) < args.min_keys:
        fail(f"only {len(keyed)} numbers tied to the JSON output, expected at least {args.min_keys}")
    for key, value in keyed:
        try:
            expected = json_pointer(doc, key)
        except (KeyError, IndexError, ValueError):
            fail(f"data-key {key} is not in the --json output")
        if float(value) != float(expected):
            fail(f"{key}: report shows {value}, --json says {expected}")
    print(f"browser_check: {len(keyed)} numbers equal their --json values")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--produce", required=True)
    ap.add_argument("--html", required=True)
    ap.add_argument("--screenshot", required=True)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--json")
    ap.add_argument("--min-keys", type=int, default=1)
    ap.add_argument("--max-bytes", type=int, default=5_000_000)
    ap.add_argument("--min-charts", type=int, default=1)
    ap.add_argument("--pdf")
    ap.add_argument("--max-width-px", type=int)
    ap.add_argument("--captions", action="store_true")
    args = ap.parse_args()

    pathlib.Path(args.html).parent.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(args.produce, shell=True, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"'{args.produce}' exited {r.returncode}: {r.stderr[:2000]}")
    path = pathlib.Path(args.html).resolve()
    text = path.read_text(encoding="utf-8")
    size = path.stat().st_size
    if size > args.max_bytes:
        fail(f"{path} is {size} bytes, over the {args.max_bytes} limit")
    validate_html(path, text)

    with tempfile.TemporaryDirectory(prefix="k3sim-chromium-") as profile:
        driver = open_browser(profile)
        try:
            check_page(driver, path.as_uri(), args)
            check_scripts(driver)
            if args.json:
                check_json(driver, args)
            if args.max_width_px:
                check_width(driver, args.max_width_px)
            if args.pdf:
                check_print(driver, args)
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.set_window_size(1280, min(height + 40, 16000))
            driver.execute_script("window.scrollTo(0, 0)")
            shot = pathlib.Path(args.screenshot)
            shot.parent.mkdir(parents=True, exist_ok=True)
            if not driver.save_screenshot(str(shot)) or shot.stat().st_size == 0:
                fail("screenshot not written")
        finally:
            driver.quit()
    print(f"browser_check: OK {path} ({size} bytes), screenshot {args.screenshot}")


if __name__ == "__main__":
    main()
