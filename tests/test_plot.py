import copy
import importlib
import json
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import PLOT_COLD, PLOT_TINY, PLOT_WARM, STANDIN, needs_mpl, run_phasewrap

from wrapper.errors import UsageError
from wrapper.model.events import Sample

plot = importlib.import_module("wrapper.present.plot")  # the package; wrapper.present.plot is the library function
draw = importlib.import_module("wrapper.present.plot.draw")
series = importlib.import_module("wrapper.present.plot.series")

os.environ.setdefault("MPLBACKEND", "Agg")  # the figures never touch pyplot; this keeps any other import headless
TINY, COLD, WARM = PLOT_TINY, PLOT_COLD, PLOT_WARM
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def record_of(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.loads(fh.read().splitlines()[-1])["record"]


def write_jsonl(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def scaled(record: dict, factor: float) -> dict:
    out = copy.deepcopy(record)
    out["phases"] = {k: None if v is None else v * factor for k, v in out["phases"].items()}
    return out


# ---- load_runs


def test_load_capture_file_keeps_chunks_samples_and_record():
    (run,) = plot.load_runs([TINY])
    assert run.run_id == "20261130T120000Z-7e57ab"
    assert run.from_capture and run.t0_ns == 5_000_000_000
    assert len(run.chunks) == 10 and len(run.samples) == 24
    assert run.record["phases"] == {"load_s": 1.0, "ttft_s": 0.5, "decode_s": 1.0, "total_s": 2.8}
    assert run.token_times_s() == pytest.approx([1.5, 1.7, 1.9, 2.1, 2.3, 2.5])
    assert run.custom_markers() == [("warmup", 1.2, "warmup <script>alert(1)</script>")]
    assert run.label() == "7e57ab · warm · case=<b>tag</b>"


def test_load_folder_takes_its_captures_in_launch_order(tmp_path):
    for path in (WARM, COLD):
        shutil.copy(path, tmp_path / os.path.basename(path).replace("h200-", record_of(path)["run_id"] + "-"))
    (tmp_path / "notes.txt").write_text("not a capture")
    runs = plot.load_runs([str(tmp_path)])
    assert [r.run_id for r in runs] == ["20261130T000420Z-c01d", "20261130T000456Z-3a73"]
    assert [r.cache for r in runs] == ["cold", "warm"]


def test_load_record_jsonl_and_a_single_pretty_record(tmp_path):
    jsonl = write_jsonl(tmp_path / "runs.jsonl", [record_of(COLD), record_of(WARM)])
    pretty = tmp_path / "one.json"
    pretty.write_text(json.dumps(record_of(TINY), indent=2))
    runs = plot.load_runs([jsonl, str(pretty)])
    assert [r.run_id for r in runs] == ["20261130T000420Z-c01d", "20261130T000456Z-3a73", "20261130T120000Z-7e57ab"]
    assert not any(r.from_capture for r in runs)
    assert runs[0].token_times_s() == [] and runs[0].samples == []


def test_a_run_given_twice_appears_once_as_its_capture(tmp_path):
    jsonl = write_jsonl(tmp_path / "runs.jsonl", [record_of(TINY)])
    runs = plot.load_runs([jsonl, TINY])
    assert len(runs) == 1 and runs[0].from_capture


def test_a_capture_cut_short_gets_its_record_from_the_jsonl(tmp_path):
    lines = open(TINY, encoding="utf-8").read().splitlines()
    cut = tmp_path / "cut.capture.jsonl"
    cut.write_text("\n".join(lines[:12]) + "\n")
    (alone,) = plot.load_runs([str(cut)])
    assert alone.record is None and alone.end_s() == pytest.approx(2.6)
    assert alone.label().endswith("(capture cut short: no record)")
    (joined,) = plot.load_runs([str(cut), write_jsonl(tmp_path / "r.jsonl", [record_of(TINY)])])
    assert joined.from_capture and joined.record["run_id"] == "20261130T120000Z-7e57ab"


@pytest.mark.parametrize("content, message", [
    ("", "line 1: empty file, no run records"),
    ("hello\n", "line 1: invalid JSON at column 1: Expecting value; no run record"),
    ('{"schema": "other/1"}\n', "line 1: not a run record: schema 'other/1'; no run record"),
    ('{"type": "header", "schema": "phasewrap.capture/9", "t0_monotonic_ns": 0}\n', "unknown schema"),
])
def test_bad_inputs_name_the_file(tmp_path, content, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    with pytest.raises(UsageError, match=message) as info:
        plot.load_runs([str(bad)])
    assert str(info.value).startswith(str(bad))


def test_records_are_read_as_every_subcommand_reads_them(tmp_path, caplog):
    """The one reader: a cut-off line is skipped with one warning, the good records are drawn."""
    good = record_of(TINY)
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(good)[:40] + "\n")
    with caplog.at_level("WARNING", logger="phasewrap"):
        (view,) = plot.load_runs([str(path)])
    assert view.record == good
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}: line 2 skipped: invalid JSON at column 41: Expecting value"]


def test_a_folder_without_captures_is_named(tmp_path):
    with pytest.raises(plot.PlotInputError) as info:
        plot.load_runs([str(tmp_path)])
    assert str(info.value) == (f"{tmp_path}: no capture (*.capture.jsonl) or record (*.jsonl) files in this "
                               "folder; give the folder of `run --capture` or record files")


def test_missing_input_is_named(tmp_path):
    with pytest.raises(plot.PlotInputError, match="nope.jsonl: no such file"):
        plot.load_runs([str(tmp_path / "nope.jsonl")])


# ---- series


def test_disk_rate_comes_from_the_cumulative_counter():
    (run,) = plot.load_runs([TINY])
    ((device, xs, ys),) = series.series_of(run, plot.PANELS[4].metrics[0], plot.PANELS[4].scale)
    assert device == "proc"
    # 50 MB read in each of the first three 250 ms intervals: 200 MB/s, then nothing
    assert ys[:6] == pytest.approx([200.0] * 6)
    assert set(ys[6:]) == {0.0}
    assert xs[:2] == pytest.approx([0.001, 0.251])


def test_one_source_per_metric_the_best_one():
    (run,) = plot.load_runs([TINY])
    run.samples.append(Sample(run.t0_ns, "dmon", "gpu0", {"gpu_util_pct": 55.0}))
    ((_dev, _xs, ys),) = series.series_of(run, plot.PANELS[0].metrics[0], 1.0)
    assert 55.0 not in ys and len(ys) == 12


# ---- pictures


@needs_mpl
def test_timeline_png_svg_html(tmp_path):
    runs = plot.load_runs([COLD, WARM])
    png = plot.timeline(runs, str(tmp_path / "t.png"))
    assert open(png, "rb").read(8) == PNG_SIGNATURE
    svg = plot.timeline(runs, str(tmp_path / "t.svg"))
    assert ET.parse(svg).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    page = open(plot.timeline(runs, str(tmp_path / "t.html")), encoding="utf-8").read()
    assert page.startswith("<!DOCTYPE html>") and '<svg viewBox="' in page and 'role="img"' in page
    assert "<script" not in page and "http://" not in page and "https://" not in page


@needs_mpl
def test_timeline_of_records_only_and_of_one_run(tmp_path):
    jsonl = write_jsonl(tmp_path / "runs.jsonl", [record_of(TINY)])
    data = plot.timeline_bytes(plot.load_runs([jsonl]), "png")
    assert data.startswith(PNG_SIGNATURE)
    assert plot.timeline_bytes(plot.load_runs([TINY]), "png").startswith(PNG_SIGNATURE)


@needs_mpl
def test_panels_without_data_are_left_out_and_named_in_a_note(tmp_path):
    lines = [line for line in open(TINY, encoding="utf-8") if '"source": "nvml"' not in line]
    cpu_only = tmp_path / "cpu.capture.jsonl"
    cpu_only.write_text("".join(lines))
    runs = plot.load_runs([str(cpu_only)])
    drawn, note = plot.panel_plan(runs)
    assert [p.name for p in drawn] == ["CPU", "disk read"]
    assert note == ("not drawn: GPU utilization (no gpu_util_pct samples); VRAM (no vram_used_mib samples); "
                    "power (no power_w samples)")
    assert len(draw._timeline_figure(runs).axes) == 1 + 2


@needs_mpl
def test_without_samples_the_note_says_where_they_come_from(tmp_path):
    no_samples = tmp_path / "none.capture.jsonl"
    no_samples.write_text("".join(line for line in open(TINY, encoding="utf-8") if '"sample"' not in line))
    assert plot.panel_plan(plot.load_runs([str(no_samples)])) == (
        [], "not drawn: GPU utilization, VRAM, power, CPU, disk read (no resource samples taken)")
    records = write_jsonl(tmp_path / "r.jsonl", [record_of(TINY)])
    _drawn, note = plot.panel_plan(plot.load_runs([records]))
    assert note == ("not drawn: GPU utilization, VRAM, power, CPU, disk read "
                    "(records only: time series need a capture, run --capture DIR)")
    assert len(draw._timeline_figure(plot.load_runs([records])).axes) == 1


@needs_mpl
def test_every_panel_and_row_share_one_time_axis():
    runs = plot.load_runs([COLD, WARM])
    fig = draw._timeline_figure(runs)
    assert len(fig.axes) == 2 + len(plot.PANELS)
    limits = {ax.get_xlim() for ax in fig.axes}
    assert len(limits) == 1
    assert limits.pop() == pytest.approx((0, 33.110274 * 1.01))


@needs_mpl
def test_marker_text_with_dollars_is_not_mathtext(tmp_path):
    record = record_of(TINY)
    record["markers"]["warmup"]["text"] = "cost $x^2$ and $"
    record["tags"] = {"price": "$5 $"}
    assert plot.timeline_bytes(plot.load_runs([write_jsonl(tmp_path / "r.jsonl", [record])]), "png")


@needs_mpl
def test_unknown_suffix_says_which(tmp_path):
    with pytest.raises(ValueError, match=r"t\.jpg: unknown picture format '\.jpg'; use a file name ending in "
                                         r"\.png, \.svg or \.html"):
        plot.timeline(plot.load_runs([TINY]), str(tmp_path / "t.jpg"))
    assert not (tmp_path / "t.jpg").exists()


@needs_mpl
def test_compare_bars(tmp_path):
    cold, warm = record_of(COLD), record_of(WARM)
    base = [scaled(cold, f) for f in (1.0, 1.04, 0.97)]
    cand = [scaled(warm, f) for f in (1.0, 1.1)]
    assert open(plot.compare_bars(base, cand, str(tmp_path / "b.png")), "rb").read(8) == PNG_SIGNATURE
    assert ET.parse(plot.compare_bars(base, cand, str(tmp_path / "b.svg"))).getroot().tag.endswith("svg")
    assert draw._stats(base, "load_s") == pytest.approx((25.491854, 25.491854 * 0.97, 25.491854 * 1.04))
    no_load = copy.deepcopy(cand)
    for r in no_load:
        r["phases"]["load_s"] = None
    assert draw._stats(no_load, "load_s") is None
    assert plot.compare_bars_bytes(base, no_load, "png").startswith(PNG_SIGNATURE)
    with pytest.raises(ValueError, match="both sides need at least one record"):
        plot.compare_bars_bytes(base, [], "png")


@needs_mpl
def test_compare_bars_name_the_sides_and_mark_what_is_beyond_noise(tmp_path):
    """The legend names each side by its tag set or file; each phase's change carries compare's verdict."""
    from wrapper.method.compare import compare

    cold = record_of(COLD)
    base = [scaled(cold, f) for f in (1.0, 1.01, 0.99, 1.02)]
    cand = [scaled(cold, f) for f in (0.5, 0.51, 0.49, 0.52)]
    for r in cand:  # only load moved; the other phases keep the base's spread
        r["phases"].update({k: v for k, v in scaled(cold, 1.0)["phases"].items() if k != "load_s"})
    verdicts = {k: compare(base, cand)["phases"][k]["verdict"]["beyond_noise"] for k in ("load_s", "ttft_s")}
    assert verdicts == {"load_s": True, "ttft_s": False}
    svg = plot.compare_bars_bytes(base, cand, "svg", ("ngl=0", "ngl=99")).decode()
    comments = [c.replace("\u2212", "-") for c in re.findall(r"<!-- (.*?) -->", svg, re.S)]  # each drawn text
    assert "ngl=0 (n=4)" in comments and "ngl=99 (n=4)" in comments and "ngl=0 vs ngl=99: phase times" in comments
    shown = "\n".join(comments)  # a text of two lines is two comments
    assert shown.count("-50%\nbeyond noise") == 1 and shown.count("-1%\nwithin noise") == 3  # TTFT, decode, total
    assert not any("candidate" in c or c.startswith("base") for c in comments)


# ---- without matplotlib


def test_without_matplotlib_the_error_says_what_to_install(tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)  # None in sys.modules makes the import raise ImportError
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    runs = plot.load_runs([TINY])
    with pytest.raises(plot.PlotUnavailable, match=r"pip install 'phasewrap\[plot\]'"):
        plot.timeline(runs, str(tmp_path / "t.png"))
    with pytest.raises(plot.PlotUnavailable, match=r"pip install 'phasewrap\[plot\]'"):
        plot.compare_bars([record_of(TINY)], [record_of(TINY)], str(tmp_path / "b.png"))
    assert not (tmp_path / "t.png").exists()


# ---- ascii


def test_ascii_bar_reuses_the_summary_bar():
    assert plot.ascii_bar(record_of(TINY)) == (
        "[LLLLLLLLLLLLLLTTTTTTTDDDDDDDDDDDDDD.....] L=36% T=18% D=36%  "
        "(.=other: start-up before load, after last token, exit)")


def test_ascii_bar_without_a_total_says_why():
    record = record_of(TINY)
    record["phases"]["total_s"] = None
    record["missing"] = [{"field": "total_s", "reason": "the child's exit was not observed"}]
    assert plot.ascii_bar(record) == "n/a (the child's exit was not observed)"


@needs_mpl
def test_stalls_are_marked_on_the_token_ticks(tmp_path):
    record = record_of(TINY)
    record["stalls"] = [{"t_s": 0.5, "gap_ms": 300.0, "after": "x"}, {"t_s": 0.9, "gap_ms": 100.0, "after": "y"}]
    fig = draw._timeline_figure(plot.load_runs([write_jsonl(tmp_path / "r.jsonl", [record])]))
    [marks] = [c for c in fig.axes[0].collections if c.get_gid() == "stalls"]
    spans = sorted((round(p.get_extents().x0, 6), round(p.get_extents().x1, 6)) for p in marks.get_paths())
    assert spans == [(0.2, 0.5), (0.8, 0.9)]
    assert "stall" in [t.get_text() for t in fig.legends[0].get_texts()]


@needs_mpl
def test_run_plot_draws_the_samples_and_tokens_of_the_live_session(tmp_path):
    """`run --plot` without --capture: the CPU and disk panels and the token ticks come from what the session
    kept in memory, not from a capture."""
    out = tmp_path / "live.svg"
    proc = run_phasewrap(["run", "-q", "--format", "none", "--ready", "model loaded", "--gpu", "off", "--plot",
                          str(out), "--"] + STANDIN + ["--load-s", "0.3", "--ttft-s", "0.1", "--tokens", "6"])
    assert proc.returncode == 0, proc.stderr
    assert b"timeline written to" in proc.stderr
    drawn = re.findall(r"<!-- (.*?) -->", out.read_text(), re.S)
    assert "CPU %" in drawn and "disk read MB/s" in drawn
    assert not [t for t in drawn if "need a capture" in t]
    assert sum(1 for t in drawn if t.startswith("not drawn:")) == 1  # GPU panels: the GPU sampler is off
