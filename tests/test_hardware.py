"""The host's peaks: NVML's link figures (a fake pynvml fed the H200 capture), the published table, the cache."""
import os

import pytest

from wrapper.measure import hardware

from .test_sampling_nvml import FakeNVMLError, FakePynvml, captured

# Not in the capture: the H200's memory bus, 6144 bits wide (NVIDIA's H200 datasheet: HBM3e, 4.8 TB/s).
H200_BUS_WIDTH_BITS = 6144


class LinkPynvml(FakePynvml):
    """The fake pynvml plus the link queries: the H200 idle capture's memory clock and PCIe link."""

    def __init__(self, bus_width=H200_BUS_WIDTH_BITS, **kwargs):
        super().__init__(**kwargs)
        self.bus_width = bus_width

    def nvmlDeviceGetMaxClockInfo(self, handle, clock):
        assert clock == self.NVML_CLOCK_MEM
        return captured("clock_mem")  # HBM runs at its one clock: 3201 MHz idle as busy

    def nvmlDeviceGetMemoryBusWidth(self, handle):
        if self.bus_width is None:
            raise FakeNVMLError(self.NVML_ERROR_NOT_SUPPORTED, "Not Supported")
        return self.bus_width

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle):
        return captured("max_pcie_gen")[0]

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle):
        return captured("max_pcie_gen")[1]

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle):
        return captured("max_pcie_gen")[0]

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle):
        return captured("max_pcie_gen")[1]


@pytest.fixture
def proc_root(tmp_path):
    root = tmp_path / "proc"
    (root / "driver" / "nvidia" / "gpus" / "0000:00:06.0").mkdir(parents=True)
    (root / "driver" / "nvidia" / "gpus" / "0000:00:06.0" / "information").write_text(
        "Model: \t\t NVIDIA H200\nBus Location: \t 0000:00:06.0\n")
    (root / "cpuinfo").write_text("processor\t: 0\nmodel name\t: AMD EPYC 9654\n")
    return str(root)


def test_nvml_memory_clock_bus_width_and_pcie_link(tmp_path, proc_root):
    links = hardware._gpu_links(LinkPynvml(), {"gpus": ["x"]})
    memory, pcie = hardware.gpu_peaks(links)
    assert memory["gbps"] == round(3201e6 * 6144 * 2 / 8 / 1e9, 3)  # 4917.1: the datasheet says 4.8 TB/s
    assert "3201 MHz" in memory["source"] and "6144-bit" in memory["source"]
    assert pcie["gbps"] == round(3.938 * 16, 3) and "gen 5 x16" in pcie["source"]


def test_published_figure_where_nvml_has_no_bus_width():
    memory, _ = hardware.gpu_peaks(hardware._gpu_links(LinkPynvml(bus_width=None), {"gpus": ["x"]}))
    assert memory["gbps"] == 4800.0 and "published" in memory["source"]


def test_unknown_gpu_is_null_with_reason():
    links = [{"device": "gpu0", "name": "NVIDIA Quux 9000", "mem_clock_max_mhz": None, "bus_width_bits": None,
              "pcie_max": (None, None), "pcie_current": (None, None)}]
    memory, pcie = hardware.gpu_peaks(links)
    assert memory["gbps"] is None and "Quux 9000" in memory["reason"]
    assert pcie["gbps"] is None and pcie["reason"]
    assert hardware.gpu_peaks([{"name": "NVIDIA GH200 480GB"}])[0]["gbps"] is None  # not taken for an H200


def test_probe_measures_once_then_reads_the_cache(tmp_path, proc_root, monkeypatch):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"\x01" * (32 << 20))
    first = hardware.probe(["llama-cli", "-t", "1", "-m", str(model)], str(model), nvml_module=LinkPynvml(),
                           proc_root=proc_root, folder=str(tmp_path / "cache"))
    peaks = first["peaks"]
    assert first["cached"] is False and first["gpus"] == ["NVIDIA H200"] and first["cpu"] == "AMD EPYC 9654"
    assert peaks["gpu-memory"]["gbps"] > 4000 and peaks["cpu-memory"]["gbps"] > 0
    assert peaks["page-cache"]["gbps"] > 0
    assert peaks["disk"]["gbps"] or "direct I/O" in peaks["disk"]["reason"]  # tmpfs refuses O_DIRECT
    monkeypatch.setattr(hardware, "cpu_memory_gbps", lambda n: pytest.fail("measured again"))
    monkeypatch.setattr(hardware, "page_cache_gbps", lambda f: pytest.fail("measured again"))
    again = hardware.probe(["llama-cli", "-t", "1"], str(model), nvml_module=LinkPynvml(), proc_root=proc_root,
                           folder=str(tmp_path / "cache"))
    assert again["cached"] is True and again["peaks"] == peaks
    assert os.path.isfile(again["cache_file"])


def test_no_driver_means_no_gpu_and_the_gpus_are_nvmls_names(tmp_path, proc_root, monkeypatch):
    with_gpu = hardware.probe(["x", "-t", "1"], nvml_module=LinkPynvml(), proc_root=proc_root,
                              folder=str(tmp_path / "a"))
    assert with_gpu["gpus"] == ["NVIDIA H200"]
    from wrapper.measure.sampling import nvml

    monkeypatch.setattr(nvml, "no_driver_here", lambda: True)
    none = hardware._gpu(None, {"gpus": []})
    assert none["names"] == [] and none["memory"]["reason"] == "no NVIDIA GPU here"
    # a driver but an NVML that fails to start: unknown, not "no GPU"
    broken = hardware._gpu(LinkPynvml(init_error=FakePynvml.NVML_ERROR_UNKNOWN), {"gpus": ["x"]})
    assert broken["names"] is None and "NVML is not available" in broken["memory"]["reason"]
