"""aggregate(): hand-made samples with exact expected figures, and the real H200 cold run's telemetry."""
from pathlib import Path

import pytest

from wrapper.derive.aggregate import KEYS, aggregate
from wrapper.model.events import Sample
from wrapper.measure.sampling import parse_dmon, parse_pidstat

MS = 1_000_000
MIB = 1048576.0
NVML_INFO = {"name": "nvml", "available": True, "reason": None, "interval_s": 0.05, "resolution_s": 0.05,
             "boundary_readings": True}
PSUTIL_INFO = {"name": "psutil", "available": True, "reason": None, "interval_s": 0.1, "resolution_s": 0.1,
               "boundary_readings": True}
INFOS = [NVML_INFO, PSUTIL_INFO]


def nvml(ms, gpu, **values):
    return Sample(ms * MS, "nvml", gpu, values)


def proc(ms, **values):
    return Sample(round(ms * MS), "psutil", "proc", values)


GPU0_UTIL = [0, 0, 10, 50, 90, 90, 80, 80, 0]  # t = 0, 50, ..., 400 ms
GPU0_VRAM = [100, 900, 4000, 4100, 4200, 4200, 4300, 4200, 4200]
GPU0_POWER = [80, 80, 100, 300, 500, 500, 450, 450, 90]
GPU1 = {"gpu_util_pct": 100.0, "vram_used_mib": 20000.0, "vram_total_mib": 143771.0, "power_w": 700.0}


def run_samples(child_gpu="gpu0"):
    """A run where the child's processes hold memory on ``child_gpu`` (None: on no GPU)."""
    out = []
    for i, t in enumerate(range(0, 401, 50)):
        gpu0 = {
            "gpu_util_pct": float(GPU0_UTIL[i]), "vram_used_mib": float(GPU0_VRAM[i]), "vram_total_mib": 143771.0,
            "power_w": float(GPU0_POWER[i]),
        }
        gpu1 = dict(GPU1)
        if i % 2 == 0:  # process memory every other tick; gpu1 runs another user's job
            gpu0["proc_vram_mib"] = GPU0_VRAM[i] - 100.0 if child_gpu == "gpu0" else 0.0
            gpu1["proc_vram_mib"] = 0.0
        out += [nvml(t, "gpu0", **gpu0), nvml(t, "gpu1", **gpu1)]
    # energy readings a couple of ms after start, ready (100), first token (150), exit (400), and at stop
    for t, mj0, mj1 in [(2, 1000, 7000), (102, 11000, 77000), (153, 35000, 112000), (402, 95000, 287000), (405, 96000, 289000)]:
        out += [nvml(t, "gpu0", energy_mj=float(mj0)), nvml(t, "gpu1", energy_mj=float(mj1))]
    cpu = [None, 100.0, 200.0, 50.0, 30.0]
    busiest = {0: None, 100: 80.0, 200: 99.0, 400: 40.0}
    reads = [0, 1, 3, 3, 4]
    writes = [0, 0, 0, 2, 2]
    faults = [0, 5, 9, 9, 10]
    rss = [10.0, 500.0, 800.0, 700.0, 700.0]
    for i, t in enumerate(range(0, 401, 100)):
        values = {
            "cpu_pct": cpu[i], "rss_mib": rss[i], "disk_read_bytes_total": reads[i] * MIB,
            "disk_write_bytes_total": writes[i] * MIB, "major_faults_total": float(faults[i]), "nprocs": 1.0,
        }
        if t in busiest:
            values["busiest_thread_pct"] = busiest[t]
        out.append(proc(t, **values))
    return out


WINDOWS = {
    "load": (0, 100 * MS),
    "ttft": (100 * MS, 150 * MS),
    "decode": (150 * MS, 400 * MS),
    "total": (0, 400 * MS),
}


def test_every_window_has_exactly_the_keys():
    result = aggregate(run_samples(), WINDOWS, INFOS)
    assert set(result) == {"load", "ttft", "decode", "total", "samplers"}
    for name in WINDOWS:
        assert tuple(result[name]) == KEYS
    assert result["samplers"] == {"nvml": NVML_INFO, "psutil": PSUTIL_INFO}


def test_load_window():
    load = aggregate(run_samples(), WINDOWS, INFOS)["load"]
    assert load == {
        # gpu1 never held the child's memory, so only gpu0 counts: util at 0, 50, 100 ms
        "gpu_util_mean": 10 / 3, "gpu_util_max": 10.0,
        "vram_used_peak_mib": 4000.0, "vram_total_mib": 143771.0, "proc_vram_peak_mib": 3900.0,
        "power_mean_w": (80 + 80 + 100) / 3,
        "energy_j": 10.0,  # 11000 mJ (read 2 ms after ready) - 1000 mJ (read 2 ms after launch)
        "cpu_pct_mean": 100.0, "cpu_pct_max": 100.0,  # the first psutil reading has no CPU figure
        "cpu_busiest_thread_pct_max": 80.0,
        "rss_peak_mib": 500.0,
        "disk_read_mib": 1.0, "disk_write_mib": 0.0, "major_faults": 5.0,
        "samples": 3 * 2 + 1 * 2 + 2,  # nvml ticks x 2 GPUs, the start energy readings, psutil
        "approximate": False,
        "energy_source": "counter", "energy_approximate": False,  # no update period known: the window's flag
    }


def test_ttft_window_is_shorter_than_the_psutil_interval():
    ttft = aggregate(run_samples(), WINDOWS, INFOS)["ttft"]
    assert ttft == {
        "gpu_util_mean": 30.0, "gpu_util_max": 50.0,
        "vram_used_peak_mib": 4100.0, "vram_total_mib": 143771.0,
        "proc_vram_peak_mib": 3900.0,  # one process reading (100 ms) in the window
        "power_mean_w": 200.0,
        "energy_j": 24.0,  # 35000 (153 ms) - 11000 (102 ms): each boundary's own reading
        "cpu_pct_mean": 100.0, "cpu_pct_max": 100.0,
        "cpu_busiest_thread_pct_max": 80.0,
        "rss_peak_mib": 500.0,
        "disk_read_mib": 0.0, "disk_write_mib": 0.0, "major_faults": 0.0,  # both ends read at 100 ms
        "samples": 2 * 2 + 2 + 1,
        "approximate": True,  # 50 ms < psutil's 100 ms, and one psutil sample
        "energy_source": "counter", "energy_approximate": False,  # its own two readings; no update period known
    }


def test_decode_and_total_windows():
    result = aggregate(run_samples(), WINDOWS, INFOS)
    decode, total = result["decode"], result["total"]
    assert decode["gpu_util_mean"] == (50 + 90 + 90 + 80 + 80 + 0) / 6
    assert decode["gpu_util_max"] == 90.0
    assert decode["vram_used_peak_mib"] == 4300.0
    assert decode["proc_vram_peak_mib"] == 4200.0
    assert decode["energy_j"] == 60.0  # 95000 (exit, 402 ms) - 35000; not the stop reading at 405 ms
    assert decode["cpu_pct_mean"] == (200 + 50 + 30) / 3
    assert decode["cpu_busiest_thread_pct_max"] == 99.0
    assert decode["disk_read_mib"] == 3.0 and decode["disk_write_mib"] == 2.0 and decode["major_faults"] == 5.0
    assert decode["approximate"] is False
    assert total["energy_j"] == 94.0
    assert total["gpu_util_mean"] == sum(GPU0_UTIL) / 9
    assert total["power_mean_w"] == sum(GPU0_POWER) / 9
    assert total["cpu_pct_mean"] == (100 + 200 + 50 + 30) / 4 and total["cpu_pct_max"] == 200.0
    assert total["rss_peak_mib"] == 800.0
    assert total["disk_read_mib"] == 4.0 and total["major_faults"] == 10.0
    assert total["samples"] == 9 * 2 + 3 * 2 + 5  # energy at 2, 102, 153 ms; those at 402 and 405 ms fall after the end


def test_all_gpus_count_when_none_held_the_childs_memory():
    total = aggregate(run_samples(child_gpu=None), WINDOWS, INFOS)["total"]
    assert total["gpu_util_mean"] == (sum(GPU0_UTIL) + 100 * 9) / 18
    assert total["gpu_util_max"] == 100.0
    assert total["vram_used_peak_mib"] == 4300.0 + 20000.0  # each GPU's peak, added
    assert total["vram_total_mib"] == 2 * 143771.0
    assert total["power_mean_w"] == sum(GPU0_POWER) / 9 + 700.0
    assert total["energy_j"] == 94.0 + 280.0
    assert total["proc_vram_peak_mib"] == 0.0  # measured: the child held nothing on either GPU


def test_window_without_a_bound_has_a_reason():
    result = aggregate(run_samples(), {"ttft": (100 * MS, None), "load": (None, 100 * MS)}, INFOS)
    assert result["ttft"] == {**dict.fromkeys(KEYS), "reason": "the window has no end: its boundary was not seen"}
    assert result["load"]["reason"] == "the window has no start: its boundary was not seen"
    assert aggregate([], {"odd": (5, 1)}, [])["odd"]["reason"] == "the window ends before it starts"


def test_a_window_between_two_samples_takes_the_reading_that_covers_it():
    tiny = aggregate(run_samples(), {"tiny": (110 * MS, 120 * MS)}, INFOS)["tiny"]
    assert tiny["gpu_util_mean"] == 50.0  # the 150 ms reading, 30 ms after the end (< 50 ms resolution)
    assert tiny["cpu_pct_mean"] == 200.0  # the 200 ms reading, 80 ms after the end (< 100 ms)
    assert tiny["disk_read_mib"] == 0.0
    assert tiny["samples"] == 0 and tiny["approximate"] is True
    # without a known resolution nothing stands in
    bare = aggregate(run_samples(), {"tiny": (110 * MS, 120 * MS)}, [])["tiny"]
    assert bare["gpu_util_mean"] is None and bare["cpu_pct_mean"] is None


def test_nothing_measured_is_none_not_zero():
    only_cpu = [s for s in run_samples() if s.source == "psutil"]
    total = aggregate(only_cpu, WINDOWS, [PSUTIL_INFO, {"name": "gpu", "available": False, "reason": "turned off"}])["total"]
    for key in ("gpu_util_mean", "gpu_util_max", "vram_used_peak_mib", "vram_total_mib", "proc_vram_peak_mib",
                "power_mean_w", "energy_j"):
        assert total[key] is None
    assert total["cpu_pct_max"] == 200.0
    empty = aggregate([], WINDOWS, [])["load"]
    assert empty == {**dict.fromkeys(KEYS), "samples": 0, "approximate": False}


def test_window_that_ends_before_the_first_counter_reading():
    late = [proc(100, disk_read_bytes_total=5 * MIB)]
    load = aggregate(late, {"load": (0, 10 * MS)}, [PSUTIL_INFO])["load"]
    assert load["disk_read_mib"] is None


def test_a_counter_reading_just_after_a_bound_is_the_bounds_own():
    # regular ticks at 0 and 100 ms; the sampler read again 0.3 ms after "ready" at 60 ms
    readings = [proc(0, disk_read_bytes_total=0.0), proc(60.3, disk_read_bytes_total=250 * MIB),
                proc(100, disk_read_bytes_total=260 * MIB), proc(200, disk_read_bytes_total=300 * MIB)]
    result = aggregate(readings, {"load": (0, 60 * MS), "ttft": (60 * MS, 190 * MS)}, [PSUTIL_INFO])
    assert result["load"]["disk_read_mib"] == 250.0
    assert result["ttft"]["disk_read_mib"] == 50.0  # 190 ms: the 200 ms reading is nearer than the 100 ms one
    # a sampler without boundary readings: at or just before, as the 1 s tools' stamps are floored
    plain = aggregate(readings, {"load": (0, 60 * MS)}, [{**PSUTIL_INFO, "boundary_readings": False}])
    assert plain["load"]["disk_read_mib"] == 0.0


# --- the real H200 cold run: dmon and pidstat captured beside it ------------------------------------------
H200 = Path(__file__).parent / "fixtures" / "h200"
# cold-p512.events.jsonl: {"wall_start": 1795997060.9518745, ...}; "[workload] model loaded" at 25.658757 s,
# the first token at 27.399297 s, the last at 31.576851 s, exit at 33.110274 s (seconds since launch)
ANCHOR = (1795997060_951874500, 0)  # monotonic 0 = launch
S = 1_000_000_000
COLD_WINDOWS = {
    "load": (0, 25_658_757_000),
    "ttft": (25_658_757_000, 27_399_297_000),
    "decode": (27_399_297_000, 31_576_851_000),
    "total": (0, 33_110_274_000),
}
DMON_INFO = {"name": "dmon", "available": True, "reason": None, "interval_s": 1.0, "resolution_s": 1.0}
PIDSTAT_INFO = {"name": "pidstat", "available": True, "reason": None, "interval_s": 1.0, "resolution_s": 1.0}


@pytest.fixture(scope="module")
def cold():
    samples = parse_dmon((H200 / "cold-p512.dmon.txt").read_text().splitlines(), ANCHOR, utc_offset_s=0)
    samples += parse_pidstat((H200 / "cold-p512.pidstat.txt").read_text().splitlines(), ANCHOR)
    return aggregate(samples, COLD_WINDOWS, [DMON_INFO, PIDSTAT_INFO])


def test_cold_run_ttft(cold):
    # dmon 00:04:47, 00:04:48 and pidstat 1795997087, 1795997088 fall inside (25.66 s .. 27.40 s)
    assert cold["ttft"] == {
        "gpu_util_mean": 4.5, "gpu_util_max": 8.0, "vram_used_peak_mib": 9305.0,
        "vram_total_mib": None, "proc_vram_peak_mib": None,  # dmon sees neither
        "power_mean_w": 118.5,
        # dmon has no energy counter: its power readings integrated, 117 W at 25.05 s, 118 W at 26.05 s, 119 W at
        # 27.05 s, 121 W at 28.05 s, interpolated at the bounds 25.658757 s and 27.399297 s
        "energy_j": pytest.approx(0.3893685 * (117.6106315 + 118) / 2 + 1.0 * 118.5
                                  + 0.3511715 * (119 + 119.702343) / 2, abs=1e-6),
        "energy_source": "power-integral", "energy_approximate": False,  # two readings inside the window
        "cpu_pct_mean": 87.5, "cpu_pct_max": 97.0, "cpu_busiest_thread_pct_max": 96.0,
        "rss_peak_mib": 1839736 / 1024,
        "disk_read_mib": (167923 + 28312) / 1024, "disk_write_mib": (220 + 424) / 1024, "major_faults": 54.0,
        "samples": 4, "approximate": False,
    }


def test_cold_run_load_decode_total(cold):
    load, decode, total = cold["load"], cold["decode"], cold["total"]
    # load: pidstat reports up to 1795997086 (25.05 s); the counters start at pidstat's zero point
    assert load["disk_read_mib"] == 9195841 / 1024
    assert load["disk_write_mib"] == 60 / 1024
    assert load["major_faults"] == 923.0
    assert decode["gpu_util_mean"] == (7 + 5 + 6 + 3) / 4 and decode["gpu_util_max"] == 7.0
    assert decode["power_mean_w"] == (121 + 121 + 122 + 123) / 4
    assert decode["vram_used_peak_mib"] == 9315.0
    assert decode["cpu_pct_mean"] == (100 + 100 + 100 + 99) / 4 and decode["cpu_busiest_thread_pct_max"] == 101.0
    assert decode["disk_read_mib"] == 104 / 1024
    assert decode["rss_peak_mib"] == 1924056 / 1024
    # total: 33 dmon lines (00:04:21 .. 00:04:54, 00:04:39 missing), 33 pidstat reports
    assert total["gpu_util_mean"] == 50 / 33 and total["gpu_util_max"] == 8.0
    assert total["power_mean_w"] == 3089 / 33
    assert total["cpu_pct_mean"] == 3071 / 33 and total["cpu_pct_max"] == 286.0
    assert total["rss_peak_mib"] == 7983012 / 1024
    assert total["disk_read_mib"] == 9504196 / 1024 and total["disk_write_mib"] == 704 / 1024
    assert total["major_faults"] == 2728.0
    assert total["samples"] == 33 + 33 and total["approximate"] is False
    assert cold["samplers"] == {"dmon": DMON_INFO, "pidstat": PIDSTAT_INFO}
