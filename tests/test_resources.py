"""Per-phase resources of real runs through the CLI (the samplers' own tests live in test_sampling_*)."""
import shutil

import pytest

from .conftest import STANDIN, run_phasewrap, json_record

BURN_THEN_SLEEP = ["--", *STANDIN, "--load-mode", "burn", "--load-s", "2.5", "--ttft-s", "0.1", "--tokens", "50",
                   "--interval-s", "0.03"]


def _record(*options):
    proc = run_phasewrap(["run", "--quiet", "--format", "json", "--ready", "model loaded", *options, *BURN_THEN_SLEEP])
    assert proc.returncode == 0, proc.stderr
    return json_record(proc)


def test_one_core_burning_in_load_and_idle_decode():
    res = _record()["resources"]
    assert res["load"]["cpu_pct_mean"] >= 70
    assert res["load"]["cpu_busiest_thread_pct_max"] >= 80
    assert res["decode"]["cpu_pct_mean"] <= 15


def test_gpu_unavailable_is_recorded_with_reason():
    rec = _record("--gpu", "auto")
    gpu = rec["resources"]["samplers"]["gpu"]
    if gpu["available"]:
        pytest.skip("this machine has a GPU")
    assert gpu["reason"] and "NVML" in gpu["reason"]
    assert rec["resources"]["load"]["gpu_util_mean"] is None


@pytest.mark.skipif(shutil.which("pidstat") is None, reason="pidstat (sysstat) is not installed")
def test_pidstat_load_cpu_agrees_with_psutil():
    by_psutil = _record("--cpu", "psutil")["resources"]["load"]["cpu_pct_mean"]
    by_pidstat = _record("--cpu", "pidstat")["resources"]["load"]["cpu_pct_mean"]
    assert by_pidstat is not None
    assert abs(by_pidstat - by_psutil) <= 25, (by_psutil, by_pidstat)
