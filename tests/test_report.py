import html
import importlib
import json
import re
import sys
from html.parser import HTMLParser

from tests.conftest import HAVE_MPL, PLOT_COLD, PLOT_TINY, PLOT_WARM, needs_mpl

report = importlib.import_module("wrapper.present.html_report")

TINY, COLD, WARM = PLOT_TINY, PLOT_COLD, PLOT_WARM


class Page(HTMLParser):
    """The tags, attributes and text of a page, as a browser's parser would see them."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []
        self.text: list[str] = []
        self.tables: list[list[list[str]]] = []
        self._cell = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(k, v or "") for k, v in attrs]
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def render(tmp_path, inputs) -> tuple[str, Page]:
    path = report.write_report(inputs, str(tmp_path / "report.html"))
    text = open(path, encoding="utf-8").read()
    return text, Page(text)


@needs_mpl
def test_report_has_the_tables_the_timeline_and_the_environment(tmp_path):
    text, page = render(tmp_path, [COLD, WARM])
    overview = page.tables[0]
    assert overview[0] == ["run", "cache", "status", "load s", "TTFT s", "decode s", "total s", "tokens/s"]
    assert overview[1] == ["c01d", "cold", "ok", "25.492", "1.907", "4.178", "33.110", "15.1"]
    assert overview[2] == ["3a73", "warm", "ok", "15.145", "0.984", "4.642", "22.357", "13.6"]
    variants = page.tables[1]  # a cold and a warm run never pool: two variants
    assert [row[:6] for row in variants[1:]] == [["cache=cold", "1", "25.492", "1.907", "4.178", "33.110"],
                                                 ["cache=warm", "1", "15.145", "0.984", "4.642", "22.357"]]
    phases = page.tables[2]
    assert phases[0][:3] == ["phase", "seconds", "share"]
    assert [row[:3] for row in phases[1:]] == [["load", "25.492", "77%"], ["TTFT", "1.907", "6%"],
                                               ["decode", "4.178", "13%"], ["total", "33.110", "100%"]]
    assert "disk read MB" in phases[0]
    env = page.tables[4]
    assert ["gpu", "NVIDIA H200"] in env and ["driver", "580.159.04"] in env and ["cpus", "16"] in env
    assert page.tags.count("svg") == 1 and "img" not in page.tags
    assert ("class", "timeline") in page.attrs and ("role", "img") in page.attrs
    assert 'aria-label="load 77%, TTFT 6%, decode 13% of the total; the rest: start-up, exit"' in text


def test_report_loads_nothing_from_anywhere(tmp_path):
    text, page = render(tmp_path, [COLD, WARM, TINY])
    assert "http://" not in text and "https://" not in text
    # the inline SVG's glyphs and clip paths point into the page itself (#id), nothing else is referenced
    assert not [(k, v) for k, v in page.attrs if k in ("src", "href", "xlink:href") and not v.startswith("#")]
    assert "script" not in page.tags and "link" not in page.tags
    (csp,) = [v for k, v in page.attrs if k == "content" and "default-src" in v]
    assert csp == "default-src 'none'; style-src 'unsafe-inline'"


def test_child_output_and_run_text_are_escaped(tmp_path):
    text, page = render(tmp_path, [TINY])
    assert page.tags.count("script") == 0 and "b" not in page.tags
    assert page.tags.count("svg") == HAVE_MPL and "img" not in page.tags  # not those in the env value or warning
    assert "<script>" not in text and "<img src=x" not in text
    words = "".join(page.text)
    for shown in ("warmup <script>alert(1)</script>", "tiny-llm --prompt <script>alert('cmd')</script>",
                  "case=<b>tag</b>", "note </td><script>alert(2)</script>",
                  "warning: warning <img src=x onerror=alert(3)>", "Fake GPU <img src=x onerror=alert(4)>"):
        assert shown in words
    assert ["cpu model", "Fake CPU"] in page.tables[-1] and ["cpu cores", "4"] in page.tables[-1]


@needs_mpl
def test_records_only_and_a_capture_cut_short(tmp_path):
    lines = open(TINY, encoding="utf-8").read().splitlines()
    cut = tmp_path / "cut.capture.jsonl"
    cut.write_text("\n".join(lines[:12]) + "\n")
    records = tmp_path / "runs.jsonl"
    records.write_text(json.dumps(json.loads(open(COLD).read().splitlines()[-1])["record"]) + "\n")
    text, page = render(tmp_path, [str(records), str(cut)])
    assert page.tables[0][2][:3] == ["7e57ab", "", "no record"]
    assert "the capture was cut short before its record line" in text
    assert '<svg viewBox="' in text


def test_without_matplotlib_the_report_still_has_its_tables(tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    text, page = render(tmp_path, [TINY])
    assert "data:image" not in text
    assert re.search(r"timeline not drawn: plotting needs matplotlib.*pip install &#x27;phasewrap\[plot\]&#x27;",
                     text)
    assert page.tables[0][1][:3] == ["7e57ab", "warm", "ok"]


def test_each_run_has_its_diagnosis(tmp_path):
    """The real diagnose over the run's one record (it takes a list of records), as a numbered list."""
    from wrapper.method.diagnose import diagnose

    record = json.loads(open(TINY, encoding="utf-8").read().splitlines()[-1])["record"]
    findings = diagnose([record])
    text, _page = render(tmp_path, [TINY])
    items = "".join(f"<li><strong>{html.escape(f.bottleneck)}</strong>: {html.escape(f.statement)}<br>"
                    f'<span class="next">next: {html.escape(f.next_step)}</span></li>\n' for f in findings)
    assert f'<h3>diagnosis</h3>\n<ol class="findings">\n{items}</ol>' in text
    assert "<pre>" not in text and "break-all" not in text


def test_diagnosis_text_is_escaped(tmp_path, monkeypatch):
    from wrapper.method.diagnose import Finding

    # a fake with diagnose's own signature: records in, findings out
    monkeypatch.setattr(report, "diagnose", lambda records: [Finding("x", "<b>b</b>", "<i>s</i>", "<u>n</u>")])
    text, page = render(tmp_path, [TINY])
    assert "<li><strong>&lt;b&gt;b&lt;/b&gt;</strong>: &lt;i&gt;s&lt;/i&gt;<br>" in text
    assert not {"b", "i", "u"} & set(page.tags)


def test_a_record_without_tokens_per_s_still_renders(tmp_path, monkeypatch):
    # A record from an older writer, or one cut down by hand, may lack tokens_per_s: the page shows what is there.
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    record = json.loads(open(COLD).read().splitlines()[-1])["record"]
    del record["tokens_per_s"]
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(record) + "\n")
    text, page = render(tmp_path, [str(path)])
    line = next(t for t in page.text if t.startswith("tokens: "))
    assert line.endswith(f"{record['ms_per_token']:.2f} ms/token")
    assert page.tables[0][1][-1] == "n/a"


def headline_text(text: str) -> str:
    start = text.index('<div class="headline" id="headline">')
    return html.unescape(re.sub(r"<[^>]+>", "", text[start:text.index("</div>", start)]))


def test_the_headline_names_the_dominant_phase_its_share_and_the_first_finding(tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    from wrapper.method.diagnose import diagnose

    record = json.loads(open(COLD).read().splitlines()[-1])["record"]
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(record) + "\n")
    text, _page = render(tmp_path, [str(path)])
    first = diagnose([record])[0]
    assert headline_text(text) == (f"\nload dominates: 25.492 s, 77% of the total\n{first.bottleneck}: "
                                   f"{first.statement}next: {first.next_step}\n")
    assert "efficiency" not in headline_text(text)  # records from before the hardware floors: nothing said
    record["limits"] = {"load": {"efficiency": 0.42}}
    failed = dict(record, run_id="20261130T000000Z-failed", status="failed", exit_code=1)
    path.write_text(json.dumps(record) + "\n" + json.dumps(failed) + "\n")
    text, _page = render(tmp_path, [str(path)])
    assert headline_text(text).startswith("\n1 of 2 runs did not end ok: failed (exit 1); their phases are not in "
                                          "the figures below\nload dominates: 25.492 s, 77% of the total · "
                                          "efficiency 42% of what the hardware allows\n")
