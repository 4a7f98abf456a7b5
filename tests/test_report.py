import base64
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
    assert overview[0] == ["run", "cache", "status", "load s", "ttft s", "decode s", "total s", "tokens/s"]
    assert overview[1] == ["c01d", "cold", "ok", "25.492", "1.907", "4.178", "33.110", "15.1"]
    assert overview[2] == ["3a73", "warm", "ok", "15.145", "0.984", "4.642", "22.357", "13.6"]
    phases = page.tables[1]
    assert phases[0][:3] == ["phase", "seconds", "share"]
    assert [row[:3] for row in phases[1:]] == [["load", "25.492", "77%"], ["ttft", "1.907", "6%"],
                                               ["decode", "4.178", "13%"], ["total", "33.110", "100%"]]
    assert "disk read MB" in phases[0]
    assert ["gpu", "NVIDIA H200"] in page.tables[3] and ["driver", "580.159.04"] in page.tables[3]
    (src,) = [v for k, v in page.attrs if k == "src"]
    assert src.startswith("data:image/png;base64,")
    assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")
    assert "[LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLTTDDDDD..] L=77% T=6% D=13%" in text


def test_report_loads_nothing_from_anywhere(tmp_path):
    text, page = render(tmp_path, [COLD, WARM, TINY])
    assert "http://" not in text and "https://" not in text
    assert not [(k, v) for k, v in page.attrs if k in ("src", "href") and not v.startswith("data:")]
    assert "script" not in page.tags and "link" not in page.tags
    (csp,) = [v for k, v in page.attrs if k == "content" and "default-src" in v]
    assert csp == "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def test_child_output_and_run_text_are_escaped(tmp_path):
    text, page = render(tmp_path, [TINY])
    assert page.tags.count("script") == 0 and "b" not in page.tags
    assert page.tags.count("img") == HAVE_MPL  # the timeline only; not those in the env value or the warning
    assert "<script>" not in text and "<img src=x" not in text
    words = "".join(page.text)
    for shown in ("warmup <script>alert(1)</script>", "tiny-llm --prompt <script>alert('cmd')</script>",
                  "case=<b>tag</b>", "note </td><script>alert(2)</script>",
                  "warning: warning <img src=x onerror=alert(3)>", "Fake GPU <img src=x onerror=alert(4)>"):
        assert shown in words
    assert ["cpu.model", "Fake CPU"] in page.tables[-1] and ["cpu.cores", "4"] in page.tables[-1]


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
    assert 'src="data:image/png;base64,' in text


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
    """The real diagnose over the run's one record (it takes a list of records), rendered and escaped."""
    from wrapper.method.diagnose import diagnose, render as render_findings

    record = json.loads(open(TINY, encoding="utf-8").read().splitlines()[-1])["record"]
    expected = render_findings(diagnose([record]))
    text, _page = render(tmp_path, [TINY])
    assert "diagnosis failed" not in text
    assert f"<h3>diagnosis</h3>\n<pre>{html.escape(expected)}</pre>" in text
    assert expected.startswith("1. [")


def test_diagnosis_text_is_escaped(tmp_path, monkeypatch):
    # a fake with render's own signature: findings in, text out
    monkeypatch.setattr(report, "render_diagnosis", lambda findings: f"<b>{findings[0].rule}</b>")
    text, _page = render(tmp_path, [TINY])
    assert re.search(r"<h3>diagnosis</h3>\n<pre>&lt;b&gt;\w+&lt;/b&gt;</pre>", text)


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
