"""Parsers of recorded nvidia-smi dmon, --query-gpu and pidstat output, on real H200 captures."""
from pathlib import Path

import pytest

from wrapper.measure.sampling import parse_dmon, parse_pidstat, parse_query_gpu
from wrapper.measure.sampling.anchor import local_to_epoch_ns, seconds_to_ns, wall_to_mono_ns
from wrapper.measure.sampling.dmon import DmonParser
from wrapper.measure.sampling.pidstat import PidstatParser

H200 = Path(__file__).parent / "fixtures" / "h200"
S = 1_000_000_000
UTC_ANCHOR = (0, 0)  # monotonic ns == epoch ns: the expected times below are epoch seconds read off the files


def lines(name):
    return (H200 / name).read_text().splitlines(keepends=True)


def epoch(text):
    """'2026-11-30 00:03:30' (UTC) -> epoch ns."""
    date, clock = text.split(" ")
    y, mo, d = (int(x) for x in date.split("-"))
    h, mi, sec = clock.split(":")
    return local_to_epoch_ns(y, mo, d, int(h), int(mi), seconds_to_ns(sec), 0)


PUCVMET_ROW = {
    "gpu_util_pct": 0.0, "mem_util_pct": 0.0, "vram_used_mib": 0.0, "power_w": 76.0,
    "sm_clock_mhz": 345.0, "mem_clock_mhz": 3201.0, "temp_c": 32.0,
}


def test_anchor_arithmetic_is_exact_in_integer_ns():
    assert seconds_to_ns("21.036") == 21_036_000_000
    assert seconds_to_ns("07") == 7 * S
    assert epoch("2026-11-30 00:03:30") == 1795997010 * S
    assert local_to_epoch_ns(2026, 11, 30, 2, 3, 30 * S, utc_offset_s=7200) == 1795997010 * S
    assert wall_to_mono_ns((1795997060_951874500, 5 * S), 1795997061 * S) == 5_048_125_500


def test_dmon_space_aligned_with_date_and_time():
    samples = parse_dmon(lines("dmon-pucvmet-DT.txt"), UTC_ANCHOR, utc_offset_s=0)
    assert [s.t_ns for s in samples] == [epoch(f"2026-11-30 00:03:{sec}") for sec in (30, 31, 32)]
    assert {s.source for s in samples} == {"dmon"}
    assert {s.device for s in samples} == {"gpu0"}
    assert all(dict(s.values) == PUCVMET_ROW for s in samples)


def test_dmon_csv_maps_the_same_columns():
    samples = parse_dmon(lines("dmon-csv.txt"), UTC_ANCHOR, utc_offset_s=0)
    assert [s.t_ns for s in samples] == [epoch(f"2026-11-30 00:03:{sec}") for sec in (32, 33, 34)]
    assert all(dict(s.values) == PUCVMET_ROW for s in samples)


def test_dmon_csv_without_header_uses_the_pucvmet_dt_columns():
    samples = parse_dmon(lines("dmon-csv-noheader.txt"), UTC_ANCHOR, utc_offset_s=0)
    assert [s.t_ns for s in samples] == [epoch("2026-11-30 00:03:34"), epoch("2026-11-30 00:03:35")]
    assert all(dict(s.values) == PUCVMET_ROW for s in samples)


def test_dmon_default_columns_have_no_time_and_are_stamped_on_arrival():
    # `nvidia-smi dmon` without -s/-o: no fb column, no date/time; a recorded file cannot be placed in time
    assert parse_dmon(lines("dmon-default.txt"), UTC_ANCHOR, utc_offset_s=0) == []
    parser = DmonParser(UTC_ANCHOR)
    out = [s for i, line in enumerate(lines("dmon-default.txt")) for s in parser.feed(line, arrival_ns=i)]
    assert [s.t_ns for s in out] == [2, 3, 4]
    assert dict(out[0].values) == {
        "gpu_util_pct": 0.0, "mem_util_pct": 0.0, "power_w": 108.0,
        "sm_clock_mhz": 375.0, "mem_clock_mhz": 3201.0, "temp_c": 33.0,
    }
    assert dict(out[1].values)["power_w"] == 76.0 and dict(out[1].values)["sm_clock_mhz"] == 345.0


def test_dmon_dash_is_none_and_anchor_shifts_to_monotonic():
    parser = DmonParser((1795997060_951874500, 0), utc_offset_s=0)
    head = lines("dmon-pucvmet-DT.txt")[:2]
    row = " 20261130    00:04:47       0      -     34     33      1      0      0      0      0      0   3201   1980      0      0   9303   9304      0      0      0      0      0      0 \n"
    out = [s for line in head + [row] for s in parser.feed(line)]
    assert out[0].t_ns == 26_048_125_500
    assert out[0].values["power_w"] is None
    assert out[0].values["vram_used_mib"] == 9303.0


def test_dmon_cold_run_capture():
    samples = parse_dmon(lines("cold-p512.dmon.txt"), UTC_ANCHOR, utc_offset_s=0)
    assert len(samples) == 34  # 00:04:21 .. 00:04:55 with 00:04:39 missing in the capture
    assert epoch("2026-11-30 00:04:39") not in {s.t_ns for s in samples}
    assert max(s.values["vram_used_mib"] for s in samples) == 9315.0
    assert max(s.values["gpu_util_pct"] for s in samples) == 8.0
    peak = next(s for s in samples if s.values["vram_used_mib"] == 9315.0)
    assert peak.t_ns == epoch("2026-11-30 00:04:52")
    assert dict(peak.values) == {
        "gpu_util_pct": 3.0, "mem_util_pct": 1.0, "vram_used_mib": 9315.0, "power_w": 123.0,
        "sm_clock_mhz": 1980.0, "mem_clock_mhz": 3201.0, "temp_c": 34.0,
    }


@pytest.mark.parametrize("name", ["llama/warm-ngl99.dmon.txt", "llama/server.dmon.txt"])
def test_dmon_llama_captures_parse_every_data_line(name):
    data_lines = [l for l in lines(name) if l.strip() and not l.startswith("#")]
    samples = parse_dmon(lines(name), UTC_ANCHOR, utc_offset_s=0)
    assert len(samples) == len(data_lines) > 0


def test_query_gpu_cold_run_capture():
    samples = parse_query_gpu(lines("cold-p512.query.csv"), UTC_ANCHOR, utc_offset_s=0)
    assert len(samples) == 352
    first = samples[0]
    assert first.t_ns == epoch("2026-11-30 00:04:21.036")
    assert (first.source, first.device) == ("query-gpu", "gpu0")
    assert dict(first.values) == {
        "gpu_util_pct": 0.0, "mem_util_pct": 0.0, "vram_used_mib": 0.0, "vram_total_mib": 143771.0,
        "power_w": 76.49, "sm_clock_mhz": 345.0, "mem_clock_mhz": 3201.0, "temp_c": 32.0,
    }
    at = {s.t_ns: s for s in samples}
    row = at[epoch("2026-11-30 00:04:52.023")]  # "7 %, 2 %, 9315 MiB, 143771 MiB, 123.73 W, 1980 MHz, 3201 MHz, 5, 34"
    assert dict(row.values) == {
        "gpu_util_pct": 7.0, "mem_util_pct": 2.0, "vram_used_mib": 9315.0, "vram_total_mib": 143771.0,
        "power_w": 123.73, "sm_clock_mhz": 1980.0, "mem_clock_mhz": 3201.0, "temp_c": 34.0,
    }
    assert samples[-1].t_ns == epoch("2026-11-30 00:04:56.366")


def test_query_gpu_na_values_and_noheader():
    header = "timestamp, index, utilization.gpu [%], power.draw [W], memory.used [MiB]\n"
    row = "2026/11/30 00:04:21.5, 1, [N/A], [Not Supported], 12 MiB\n"
    (s,) = parse_query_gpu([header, row], UTC_ANCHOR, utc_offset_s=0)
    assert s.device == "gpu1"
    assert s.t_ns == epoch("2026-11-30 00:04:21.5")
    assert dict(s.values) == {"gpu_util_pct": None, "vram_used_mib": 12.0, "power_w": None}
    with pytest.raises(ValueError, match="noheader"):
        parse_query_gpu([row], UTC_ANCHOR, utc_offset_s=0)
    (s,) = parse_query_gpu(
        ["2026/11/30 00:04:21.5, 1, 3, 7.5\n"], UTC_ANCHOR, utc_offset_s=0,
        columns=["timestamp", "index", "utilization.gpu", "power.draw"],
    )
    assert dict(s.values) == {"gpu_util_pct": 3.0, "power_w": 7.5}


def test_query_gpu_llama_captures():
    for name in ("llama/warm-ngl99.query.csv", "llama/server.query.csv"):
        data = [l for l in lines(name)[1:] if l.strip()]
        samples = parse_query_gpu(lines(name), UTC_ANCHOR, utc_offset_s=0)
        assert len(samples) == len(data)
    second = parse_query_gpu(lines("llama/server.query.csv"), UTC_ANCHOR, utc_offset_s=0)[1]
    assert second.t_ns == epoch("2026-11-30 00:37:44.511")
    assert second.values["vram_used_mib"] == 1.0 and second.values["power_w"] == 118.93


def test_pidstat_cold_run_capture():
    samples = parse_pidstat(lines("cold-p512.pidstat.txt"), UTC_ANCHOR)
    origin, first, third, last = samples[0], samples[1], samples[3], samples[-1]
    assert len(samples) == 1 + 33  # the zero point of the counters, then one per report
    assert origin.t_ns == 1795997060 * S
    assert dict(origin.values) == {"disk_read_bytes_total": 0.0, "disk_write_bytes_total": 0.0, "major_faults_total": 0.0}
    # 1795997061 ... 29.00 %CPU, majflt/s 206.00, RSS 252768 kB, kB_rd/s 503432.00
    assert first.t_ns == 1795997061 * S
    assert (first.source, first.device) == ("pidstat", "proc")
    assert dict(first.values) == {
        "cpu_pct": 29.0, "busiest_thread_pct": 29.0, "rss_mib": 252768 / 1024, "nprocs": 1.0,
        "disk_read_bytes_total": 503432 * 1024.0, "disk_write_bytes_total": 0.0, "major_faults_total": 206.0,
    }
    # 1795997063: the process line says 286 %CPU, its 16 threads at most 94 %
    assert third.t_ns == 1795997063 * S
    assert third.values["cpu_pct"] == 286.0
    assert third.values["busiest_thread_pct"] == 94.0
    assert third.values["disk_read_bytes_total"] == (503432 + 391248 + 14984) * 1024.0
    assert third.values["major_faults_total"] == 206 + 97 + 15
    # sums of the process lines over the whole file (awk '$4=="-"')
    assert last.t_ns == 1795997093 * S
    assert last.values["disk_read_bytes_total"] == 9504196 * 1024.0
    assert last.values["disk_write_bytes_total"] == 704 * 1024.0
    assert last.values["major_faults_total"] == 2728.0
    assert last.values["rss_mib"] == 0.0  # the exiting process
    assert max(s.values["cpu_pct"] for s in samples[1:]) == 286.0
    assert max(s.values["busiest_thread_pct"] for s in samples[1:]) == 101.0


def test_pidstat_llama_capture_and_version_independent_columns():
    (origin, report) = parse_pidstat(lines("llama/warm-ngl99.pidstat.txt"), UTC_ANCHOR)
    assert report.t_ns == 1795999053 * S
    assert dict(report.values) == {
        "cpu_pct": 99.0, "busiest_thread_pct": 99.0, "rss_mib": 572980 / 1024, "nprocs": 1.0,
        "disk_read_bytes_total": 0.0, "disk_write_bytes_total": 0.0, "major_faults_total": 0.0,
    }
    # another column order / set (no -d, no %guest, -U style USER column): mapped by the header
    text = [
        "# Time   USER   TGID   TID   %CPU   RSS   Command\n",
        "1795999053   me   516   -   50.00   2048   llama server\n",
        "1795999053   me   -   516   30.00   2048   |__llama server\n",
        "1795999053   me   -   517   20.00   2048   |__worker\n",
    ]
    (report,) = parse_pidstat(text, UTC_ANCHOR)  # no counters, so no zero point either
    assert dict(report.values) == {
        "cpu_pct": 50.0, "busiest_thread_pct": 30.0, "rss_mib": 2.0, "nprocs": 1.0,
        "disk_read_bytes_total": None, "disk_write_bytes_total": None, "major_faults_total": None,
    }


def test_live_lines_that_arrive_at_once_are_placed_by_their_arrival():
    # pidstat and dmon print whole seconds; a line that arrives within its second (+0.5 s) is placed at its
    # arrival, one held back longer (a buffered pipe) at its printed second
    report = lines("llama/warm-ngl99.pidstat.txt")
    printed = 1795999053 * S
    for arrival, expected in [(printed + 970_000_000, printed + 970_000_000), (printed + 9 * S, printed), (None, printed)]:
        parser = PidstatParser(UTC_ANCHOR)
        out = [s for line in report for s in parser.feed(line, arrival)] + parser.finish()
        assert [s.t_ns for s in out] == [expected - S, expected]
    head = lines("dmon-pucvmet-DT.txt")
    printed = epoch("2026-11-30 00:03:30")
    for arrival, expected in [(printed + 400_000_000, printed + 400_000_000), (printed - 1, printed)]:
        parser = DmonParser(UTC_ANCHOR, utc_offset_s=0)
        out = [s for line in head[:3] for s in parser.feed(line, arrival)]
        assert [s.t_ns for s in out] == [expected]


@pytest.mark.parametrize("name,cut_lines", [("cold-p512", 0), ("warm-p512", 1), ("llama/warm-ngl99", 0)])
def test_every_capture_beside_a_run_parses_whole(name, cut_lines):
    dmon_rows = [l for l in lines(f"{name}.dmon.txt") if l.strip() and not l.startswith("#")]
    query_rows = lines(f"{name}.query.csv")[1:]
    reports = {l.split()[0] for l in lines(f"{name}.pidstat.txt") if l[:1].isdigit()}
    parser = DmonParser(UTC_ANCHOR, utc_offset_s=0)
    dmon = [s for line in lines(f"{name}.dmon.txt") for s in parser.feed(line)]
    # warm-p512.dmon.txt ends in a line cut short when dmon was stopped: skipped and counted, not misread
    assert parser.skipped == cut_lines
    dmon_rows = dmon_rows[:len(dmon_rows) - cut_lines]
    query = parse_query_gpu(lines(f"{name}.query.csv"), UTC_ANCHOR, utc_offset_s=0)
    pidstat = parse_pidstat(lines(f"{name}.pidstat.txt"), UTC_ANCHOR)
    assert len(dmon) == len(dmon_rows) and len(query) == len(query_rows) and len(pidstat) == len(reports) + 1
    for samples in (dmon, query, pidstat):
        assert [s.t_ns for s in samples] == sorted(s.t_ns for s in samples)
    totals = [s.values["disk_read_bytes_total"] for s in pidstat]
    assert totals == sorted(totals)
