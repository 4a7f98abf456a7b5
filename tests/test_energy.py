"""Energy: the counter's update period, the power integral, energy per token — on a real stand-in run with a fake
pynvml whose counter advances at the H200's recorded idle power and updates every 50 ms."""
import json
import os
import time

import pytest

from wrapper.derive import energy
from wrapper.measure.sampling import energy_probe
from wrapper.sources.runner import RunConfig, execute, prepare
from wrapper.measure.sampling import NvmlSampler

from .conftest import STANDIN
from .test_sampling_nvml import BUSY, FakePynvml, captured

RATE_W = captured("power_mw") / 1000  # 86.556 W: what the H200 drew when the fixture was recorded
ENERGY_READ_S = BUSY["calls"]["energy_mj"]["us_per_call"] / 1e6  # 3.35 ms a read on the H200


class ClockedPynvml(FakePynvml):
    """The fake pynvml, with an energy counter that advances at ``rate_w`` on the monotonic clock but shows a new
    value only every ``period_s`` (as real counters do), each read taking what it took on the H200."""

    def __init__(self, period_s=0.05, rate_w=RATE_W, **kwargs):
        super().__init__(**kwargs)
        self.period_s = period_s
        self.rate_w = rate_w
        self.t0 = time.monotonic()
        self.base_mj = captured("energy_mj")

    def nvmlDeviceGetTotalEnergyConsumption(self, handle):
        time.sleep(ENERGY_READ_S)
        updates = int((time.monotonic() - self.t0) / self.period_s)
        return self.base_mj + round(updates * self.period_s * self.rate_w * 1000)


def test_update_period_on_an_exact_fake_clock():
    now = [0]

    def clock():
        return now[0]

    def sleep(s):
        now[0] += round(s * 1e9)

    def read():  # a 40 ms counter, each read taking 1 ms
        now[0] += 1_000_000
        return now[0] // 40_000_000

    assert energy_probe.measure_update_period(read, clock, sleep, poll_s=0.004) == (0.04, None)  # 4 ms polls, 1 ms reads
    assert energy_probe.measure_update_period(lambda: 7, clock, sleep)[1] == (
        "the energy counter changed 0 time(s) in 0.5 s: update period unknown")
    assert energy_probe.measure_update_period(lambda: None, clock, sleep) == (None, "the energy counter could not be read")


def test_update_period_of_the_clocked_fake_within_a_poll():
    fake = ClockedPynvml(period_s=0.05)
    period, reason = energy_probe.measure_update_period(lambda: fake.nvmlDeviceGetTotalEnergyConsumption(None))
    assert reason is None and abs(period - 0.05) <= 0.015


def test_power_integral_exact():
    ms = 1_000_000
    times, watts = [0, 100 * ms, 200 * ms], [100.0, 200.0, 200.0]
    # 50 → 150 ms: 150 W at 50 ms, 200 W at 100 ms and at 150 ms: 8.75 J + 10 J over 0.1 s
    joules, approximate = energy.power_integral_j(times, watts, 50 * ms, 150 * ms)
    assert joules == pytest.approx(0.05 * 175 + 0.05 * 200) and approximate is True
    joules, approximate = energy.power_integral_j(times, watts, 0, 200 * ms)
    assert joules == pytest.approx(0.1 * 150 + 0.1 * 200) and approximate is False
    assert energy.power_integral_j([], [], 0, 1) == (None, True)


def test_per_token_figures():
    res = {"decode": {"energy_j": 9.0}, "ttft": {"energy_j": 0.5}}
    assert energy.per_token(res, {"output": 10, "input": 4}) == {
        "energy_per_output_token_mj": 1000.0, "output_tokens_per_j": 1.0, "prefill_energy_per_input_token_mj": 125.0}
    assert energy.per_token(res, {"output": 1, "input": None}) == dict.fromkeys(
        ("energy_per_output_token_mj", "output_tokens_per_j", "prefill_energy_per_input_token_mj"))


def _run(tmp_path, fake, ttft_s=0.03, tokens=150, interval_s=0.02):
    stamps = tmp_path / "child.json"
    prep = prepare(RunConfig(command=[*STANDIN, "--load-s", "0.2", "--ttft-s", str(ttft_s), "--tokens", str(tokens),
                                      "--interval-s", str(interval_s), "--stamps-file", str(stamps)],
                             ready="model loaded", quiet=True))
    with open(os.devnull, "wb") as null:
        record, _ = execute(prep, samplers=[NvmlSampler(0.01, nvml_module=fake)], out_fd=null.fileno(),
                            err_fd=null.fileno())
    return record, json.loads(stamps.read_text())


def test_energy_per_token_within_5_percent_and_a_30ms_phase_approximate(tmp_path):
    """3 s of decode: the counter's 50 ms steps at either end (and a boundary read delayed on a loaded machine)
    stay well inside 5 %."""
    record, child = _run(tmp_path, ClockedPynvml(period_s=0.05))
    res = record["resources"]
    assert res["samplers"]["nvml"]["energy_update_period_s"] == pytest.approx(0.05, abs=0.015)
    child_tpot_s = (child["last_token_ns"] - child["first_token_ns"]) / 1e9 / (child["tokens"] - 1)
    truth_mj = RATE_W * child_tpot_s * 1000
    assert res["energy_per_output_token_mj"] == pytest.approx(truth_mj, rel=0.05)
    assert res["output_tokens_per_j"] == pytest.approx(1000 / truth_mj, rel=0.05)
    assert res["decode"]["energy_source"] == "counter" and res["decode"]["energy_approximate"] is False
    assert record["phases"]["ttft_s"] < 0.1
    assert res["ttft"]["energy_approximate"] is True and res["ttft"]["approximate"] is True
    assert res["prefill_energy_per_input_token_mj"] is None  # the stand-in prints no prompt token count
    from wrapper.present.export.summary import render

    assert (f"energy: decode {res['decode']['energy_j']:.1f} J (counter) · {res['energy_per_output_token_mj']:.1f} "
            "mJ/output token · ") in render(record)
    assert {"field": "resources.prefill_energy_per_input_token_mj",
            "reason": "the input token count is unknown (the framework printed none)"} in record["missing"]


def test_without_the_counter_power_samples_are_integrated(tmp_path):
    fake = ClockedPynvml(fail={"nvmlDeviceGetTotalEnergyConsumption": FakePynvml.NVML_ERROR_NOT_SUPPORTED})
    record, _ = _run(tmp_path, fake, tokens=30)
    res = record["resources"]
    decode = res["decode"]
    assert decode["energy_source"] == "power-integral" and decode["energy_approximate"] is False
    assert decode["energy_j"] == pytest.approx(RATE_W * record["phases"]["decode_s"], rel=1e-6)
    assert res["samplers"]["nvml"]["energy_update_period_s"] is None
    assert res["samplers"]["nvml"]["energy_update_period_reason"] == "the energy counter could not be read"
