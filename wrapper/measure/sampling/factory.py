"""What every sampler offers, and the choice of samplers for a run.

A sampler reads one kind of resource beside the child and keeps ``Sample`` values on the run's monotonic
clock. One that cannot run says so in ``info()`` (``{"available": False, "reason": ...}``) and the run goes
on; its thread (or tool) never takes the run down.
"""
from __future__ import annotations

import shutil
import time
from typing import Callable, Optional, Protocol

from ...model.events import Sample
from .dmon import DmonSampler
from .nvml import NvmlSampler
from .pidstat import PidstatSampler
from .proc import ProcSampler

GPU_CHOICES = ("auto", "nvml", "dmon", "off")
CPU_CHOICES = ("auto", "psutil", "pidstat", "off")


class Sampler(Protocol):
    name: str  # "nvml" | "dmon" | "psutil" | "pidstat" ("gpu"/"cpu" for an unavailable choice)

    def start(self, pid: int) -> None:
        """Begin sampling (own thread or subprocess); ``pid`` is the child, the root of the tree."""

    def notify(self, boundary: str) -> None:
        """A phase boundary was reached ("ready", "first_token", "last_token", "exit").

        O(1) and never blocks: it is called from the stream-reading hot loop.
        """

    def stop(self) -> None:
        """Stop and join; idempotent; never raises."""

    def samples(self) -> list[Sample]:
        """Everything read so far."""

    def info(self) -> dict:
        """``{"name", "available", "reason", "interval_s", "resolution_s", ...}``; when unavailable only
        ``{"name", "available": False, "reason"}``."""


class UnavailableSampler:
    """Stands where a sampler could not be had, carrying why."""

    def __init__(self, name: str, reason: str):
        self.name = name
        self.reason = reason

    def start(self, pid: int) -> None:
        pass

    def notify(self, boundary: str) -> None:
        pass

    def stop(self) -> None:
        pass

    def samples(self) -> list[Sample]:
        return []

    def info(self) -> dict:
        return {"name": self.name, "available": False, "reason": self.reason}


def make_samplers(
    gpu: str = "auto",
    cpu: str = "auto",
    interval_s: float = 0.1,
    *,
    nvml_module=None,
    clock: Callable[[], int] = time.monotonic_ns,
    which: Callable[[str], Optional[str]] = shutil.which,
) -> list[Sampler]:
    """One GPU sampler and one CPU sampler for a run (``interval_s`` for the in-process ones).

    ``gpu="auto"`` takes NVML, else ``nvidia-smi dmon``, else an unavailable ``gpu`` sampler whose reason
    says why neither works; ``cpu="auto"`` is psutil. ``"off"`` gives an unavailable sampler that says so,
    so the record explains its empty columns.
    """
    if gpu not in GPU_CHOICES:
        raise ValueError(f"gpu: expected one of {', '.join(GPU_CHOICES)}, got {gpu!r}")
    if cpu not in CPU_CHOICES:
        raise ValueError(f"cpu: expected one of {', '.join(CPU_CHOICES)}, got {cpu!r}")
    if not interval_s > 0:
        raise ValueError(f"interval_s: must be a positive number of seconds, got {interval_s!r}")
    return [_gpu_sampler(gpu, interval_s, nvml_module, clock, which), _cpu_sampler(cpu, interval_s, clock, which)]


def _gpu_sampler(choice, interval_s, nvml_module, clock, which) -> Sampler:
    if choice == "off":
        return UnavailableSampler("gpu", "turned off (gpu='off')")
    if choice == "dmon":
        return DmonSampler(clock=clock, which=which)
    nvml = NvmlSampler(interval_s, nvml_module=nvml_module, clock=clock)
    if choice == "nvml" or nvml.info()["available"]:
        return nvml
    dmon = DmonSampler(clock=clock, which=which)
    if dmon.info()["available"]:
        return dmon
    return UnavailableSampler("gpu", f"{nvml.info()['reason']}; {dmon.info()['reason']}")


def _cpu_sampler(choice, interval_s, clock, which) -> Sampler:
    if choice == "off":
        return UnavailableSampler("cpu", "turned off (cpu='off')")
    if choice == "pidstat":
        return PidstatSampler(clock=clock, which=which)
    return ProcSampler(interval_s, clock=clock)
