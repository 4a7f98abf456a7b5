"""The environment fingerprint: fake NVML with the H200's recorded answers, real files, a fake sysfs, real
child processes for --version."""
import hashlib
import json
import os
import stat
import sys
import time


from wrapper import __version__
from wrapper.measure import env


class FakeNvmlError(Exception):
    def __init__(self, value):
        super().__init__(f"NVML error {value}")
        self.value = value


class FakeMemory:
    def __init__(self, total):
        self.total = total


class FakeNvml:
    """Answers as NVML did on the project's H200 (tests/fixtures/h200/nvml-busy.json); ``fail`` names functions
    that raise instead."""

    NVML_ERROR_LIBRARY_NOT_FOUND = 12

    def __init__(self, count=1, fail=(), init_error=None):
        self.count = count
        self.fail = set(fail)
        self.init_error = init_error
        self.calls = []

    def _call(self, name, value):
        self.calls.append(name)
        if name in self.fail:
            raise FakeNvmlError(3)
        return value

    def nvmlInit(self):
        self.calls.append("nvmlInit")
        if self.init_error is not None:
            raise FakeNvmlError(self.init_error)

    def nvmlShutdown(self):
        self.calls.append("nvmlShutdown")

    def nvmlSystemGetDriverVersion(self):
        return self._call("nvmlSystemGetDriverVersion", "580.159.04")

    def nvmlSystemGetCudaDriverVersion(self):
        return self._call("nvmlSystemGetCudaDriverVersion", 13000)

    def nvmlDeviceGetCount(self):
        return self._call("nvmlDeviceGetCount", self.count)

    def nvmlDeviceGetHandleByIndex(self, i):
        return self._call("nvmlDeviceGetHandleByIndex", ("handle", i))

    def nvmlDeviceGetName(self, handle):
        return self._call("nvmlDeviceGetName", b"NVIDIA H200")

    def nvmlDeviceGetUUID(self, handle):
        return self._call("nvmlDeviceGetUUID", f"GPU-9a48c30d-4e93-df4c-5c50-04ae00c11a7{handle[1]}")

    def nvmlDeviceGetMemoryInfo(self, handle):
        return self._call("nvmlDeviceGetMemoryInfo", FakeMemory(150754820096))

    def nvmlDeviceGetCudaComputeCapability(self, handle):
        return self._call("nvmlDeviceGetCudaComputeCapability", (9, 0))


H200 = {"index": 0, "name": "NVIDIA H200", "uuid": "GPU-9a48c30d-4e93-df4c-5c50-04ae00c11a70",
        "vram_total_mib": 143771.0, "compute_capability": "9.0"}


def test_gpu_info_reads_every_figure_and_shuts_nvml_down():
    nv = FakeNvml(count=2)
    info = env.gpu_info(nv)
    second = dict(H200, index=1, uuid="GPU-9a48c30d-4e93-df4c-5c50-04ae00c11a71")
    assert info == {"gpus": [H200, second], "gpu_count": 2, "gpu_driver": "580.159.04", "cuda_version": "13.0",
                    "gpu_reason": None, "unavailable": {}}
    assert nv.calls[0] == "nvmlInit" and nv.calls[-1] == "nvmlShutdown"


def test_gpu_info_one_failing_call_is_one_unavailable_field():
    info = env.gpu_info(FakeNvml(fail={"nvmlDeviceGetCudaComputeCapability"}))
    assert info["gpus"] == [dict(H200, compute_capability=None)]
    assert info["unavailable"] == {
        "gpus[0].compute_capability": "NVML nvmlDeviceGetCudaComputeCapability: NVML error 3"}


def test_gpu_info_without_driver_says_so():
    info = env.gpu_info(FakeNvml(init_error=FakeNvml.NVML_ERROR_LIBRARY_NOT_FOUND))
    assert info == {"gpus": [], "gpu_count": None, "gpu_driver": None, "cuda_version": None,
                    "gpu_reason": "NVML: libnvidia-ml.so.1 not found (no NVIDIA driver here?)", "unavailable": {}}


def test_gpu_info_no_devices():
    info = env.gpu_info(FakeNvml(count=0))
    assert info["gpus"] == [] and info["gpu_count"] == 0 and info["gpu_reason"] == "NVML sees no GPU"


def _fake_sys(tmp_path, st_dev, rotational="0", partition=True):
    """A sysfs with /sys/dev/block/MAJ:MIN -> a partition (or disk) of disk "nvme9n1"."""
    disk = tmp_path / "sys" / "devices" / "pci0000:00" / "block" / "nvme9n1"
    (disk / "queue").mkdir(parents=True)
    (disk / "queue" / "rotational").write_text(rotational + "\n")
    target = disk
    if partition:
        target = disk / "nvme9n1p2"
        target.mkdir()
        (target / "partition").write_text("2\n")
    links = tmp_path / "sys" / "dev" / "block"
    links.mkdir(parents=True)
    os.symlink(target, links / f"{os.major(st_dev)}:{os.minor(st_dev)}")
    return str(tmp_path / "sys")


XEON = "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\nphysical id\t: 0\ncore id\t\t: 0\n"


def _fake_proc(tmp_path, mounts, cpuinfo=XEON):
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "mounts").write_text(mounts)
    (proc / "cpuinfo").write_text(cpuinfo)
    return str(proc)


def test_host_info_counts_physical_cores_across_sockets(tmp_path):
    blocks = []
    for n, (sock, core) in enumerate([(s, c) for s in (0, 1) for c in (0, 1)] * 2):
        blocks.append(f"processor\t: {n}\nmodel name\t: AMD EPYC 9654\nphysical id\t: {sock}\ncore id\t\t: {core}\n")
    fields, unavailable = env.host_info(_fake_proc(tmp_path, "", cpuinfo="\n".join(blocks)))
    assert fields["cpu_model"] == "AMD EPYC 9654" and fields["cpu_cores_physical"] == 4
    assert fields["host"] == os.uname().nodename and fields["kernel"] == os.uname().release
    assert unavailable == {}


def test_model_file_info_disk_partition_and_filesystem(tmp_path):
    models = tmp_path / "models dir"
    models.mkdir()
    model = models / "m.gguf"
    model.write_bytes(b"x" * 1000)
    sys_root = _fake_sys(tmp_path, os.stat(model).st_dev)
    mounts = (f"/dev/vda / ext4 rw 0 0\n/dev/nvme9n1p2 {str(models).replace(' ', chr(92) + '040')} xfs rw 0 0\n"
              f"tmpfs {tmp_path}/elsewhere tmpfs rw 0 0\n")
    proc_root = _fake_proc(tmp_path, mounts)
    entries, unavailable = env.model_file_info([str(model)], proc_root=proc_root, sys_root=sys_root)
    assert entries == [{"path": str(model), "size_bytes": 1000, "device": "nvme9n1", "rotational": False,
                        "fs_type": "xfs", "mount_point": str(models)}]
    assert unavailable == {}


def test_model_file_info_whole_disk_rotational_and_missing_file(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"x")
    sys_root = _fake_sys(tmp_path, os.stat(model).st_dev, rotational="1", partition=False)
    proc_root = _fake_proc(tmp_path, "/dev/nvme9n1 / ext4 rw 0 0\n")
    gone = str(tmp_path / "gone.gguf")
    entries, unavailable = env.model_file_info([str(model), gone], proc_root=proc_root, sys_root=sys_root)
    assert entries[0]["device"] == "nvme9n1" and entries[0]["rotational"] is True
    assert entries[0]["fs_type"] == "ext4" and entries[0]["mount_point"] == "/"
    assert entries[1] == {"path": gone, "size_bytes": None, "device": None, "rotational": None, "fs_type": None,
                          "mount_point": None}
    assert unavailable == {"model_files[1]": f"{gone}: No such file or directory"}


def test_model_file_info_without_a_block_device_says_why(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"x")
    proc_root = _fake_proc(tmp_path, "overlay / overlay rw 0 0\n")
    dev = os.stat(model).st_dev
    entries, unavailable = env.model_file_info([str(model)], proc_root=proc_root, sys_root=str(tmp_path / "nosys"))
    assert entries[0]["device"] is None and entries[0]["fs_type"] == "overlay"
    link = f"{tmp_path}/nosys/dev/block/{os.major(dev)}:{os.minor(dev)}"
    expected = (f"device 0:{os.minor(dev)} is not a block device (a network, overlay, btrfs or memory filesystem)"
                if os.major(dev) == 0 else f"{link} does not exist")
    assert unavailable == {"model_files[0].device": expected, "model_files[0].rotational": expected}


def test_parse_mounts_unescapes_spaces():
    assert env.parse_mounts("/dev/sda1 /mnt/my\\040disk ext4 rw 0 0\n") == [("/dev/sda1", "/mnt/my disk", "ext4")]


def test_pick_version_line_prefers_the_version_line():
    cuda_build = ("ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA H200, compute capability 9.0\n"
                  "version: 0.5.0-dev (build 1, commit 0c1e570)\nbuilt with GNU 12.2.0 for Linux x86_64\n")
    assert env.pick_version_line(cuda_build) == "version: 0.5.0-dev (build 1, commit 0c1e570)"
    assert env.pick_version_line("\n\n  tool 1.2.3\nmore\n") == "tool 1.2.3"
    assert env.pick_version_line(" \n") is None


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_version_is_read_from_stderr_like_llama_cpp(tmp_path):
    exe = _script(tmp_path, "llama-completion", "import sys\nsys.stderr.write('version: 6123 (abc1234)\\n"
                                                 "built with cc for x86_64\\n')")
    info, unavailable = env.executable_info([exe, "-m", "x"], ("--version",), hash_cache_path=None)
    assert info["version"] == "version: 6123 (abc1234)"
    assert "executable.version" not in unavailable


def test_version_failures_are_reasons(tmp_path):
    failing = _script(tmp_path, "bad", "import sys\nprint('unknown option --version')\nsys.exit(2)")
    assert env.read_version([failing, "--version"]) == (
        None, f"`{failing} --version` exited 2: unknown option --version")
    silent = _script(tmp_path, "silent", "pass")
    assert env.read_version([silent, "--version"]) == (None, f"`{silent} --version` printed nothing")


def test_version_timeout_kills_the_child_and_its_children(tmp_path):
    hang = _script(tmp_path, "hang", "import subprocess, sys, time\n"
                                     "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                                     "time.sleep(60)")
    t0 = time.monotonic()
    assert env.read_version([hang, "--version"], timeout_s=0.5) == (
        None, f"`{hang} --version` did not finish within 0.5 s")
    assert time.monotonic() - t0 < 5


def test_executable_not_found_and_version_not_asked():
    info, unavailable = env.executable_info(["no-such-binary-phasewrap"], ())
    assert info == {"name": "no-such-binary-phasewrap", "path": None, "size_bytes": None, "sha256": None,
                    "version": None}
    reason = "'no-such-binary-phasewrap' is not an executable on PATH"
    assert unavailable == {"executable.path": reason, "executable.size_bytes": reason,
                           "executable.sha256": reason,
                           "executable.version": "not asked: the profile names no version flag"}


def test_sha256_is_cached_by_path_size_and_mtime(tmp_path):
    exe = tmp_path / "bin"
    exe.write_bytes(b"first")
    cache = str(tmp_path / "cache" / "exe-sha256.json")
    assert env.file_sha256(str(exe), cache) == hashlib.sha256(b"first").hexdigest()
    with open(cache) as fh:
        stored = json.load(fh)
    assert stored == {str(exe): {"size": 5, "mtime_ns": exe.stat().st_mtime_ns,
                                 "sha256": hashlib.sha256(b"first").hexdigest()}}
    # a planted entry with the same size and mtime is trusted: proof the file is not read again
    stored[str(exe)]["sha256"] = "cached"
    with open(cache, "w") as fh:
        json.dump(stored, fh)
    assert env.file_sha256(str(exe), cache) == "cached"
    exe.write_bytes(b"other")
    os.utime(exe, ns=(0, exe.stat().st_mtime_ns + 1_000_000_000))
    assert env.file_sha256(str(exe), cache) == hashlib.sha256(b"other").hexdigest()


def test_corrupt_hash_cache_is_rebuilt(tmp_path):
    exe = tmp_path / "bin"
    exe.write_bytes(b"x")
    cache = tmp_path / "exe-sha256.json"
    cache.write_text("{not json")
    assert env.file_sha256(str(exe), str(cache)) == hashlib.sha256(b"x").hexdigest()
    assert json.loads(cache.read_text())[str(exe)]["size"] == 1


def test_fingerprint_whole(tmp_path, monkeypatch):
    monkeypatch.setenv("PHASEWRAP_CACHE", str(tmp_path / "cache"))
    exe = _script(tmp_path, "llama-completion", "import sys\nsys.stderr.write('version: 1 (x)\\n')")
    model = tmp_path / "m.gguf"
    model.write_bytes(b"x" * 10)
    sys_root = _fake_sys(tmp_path, os.stat(model).st_dev)
    proc_root = _fake_proc(tmp_path, f"/dev/nvme9n1p2 {tmp_path} xfs rw 0 0\n")
    argv = [exe, "-m", str(model), "-p", "hello"]
    fp = env.fingerprint(argv, [str(model)], ("--version",), prompt="hello", nvml_module=FakeNvml(),
                         proc_root=proc_root, sys_root=sys_root)
    assert fp["cpu_model"] == "Intel(R) Xeon(R) Processor"
    assert fp["cpu_cores_logical"] == os.cpu_count() and fp["cpu_cores_physical"] == 1
    assert fp["memory_total_mib"] > 0
    assert fp["gpus"] == [H200] and fp["gpu_count"] == 1 and fp["gpu_reason"] is None
    assert fp["gpu_driver"] == "580.159.04" and fp["cuda_version"] == "13.0"
    assert fp["model_files"][0]["device"] == "nvme9n1" and fp["model_size_bytes"] == 10
    assert fp["executable"]["path"] == os.path.realpath(exe)
    assert fp["executable"]["sha256"] == hashlib.sha256(open(exe, "rb").read()).hexdigest()
    assert fp["executable"]["version"] == "version: 1 (x)"
    assert fp["phasewrap_version"] == __version__
    assert fp["prompt_sha256"] == hashlib.sha256(b"hello").hexdigest()
    assert fp["args_sha256"] == hashlib.sha256(json.dumps(argv, separators=(",", ":")).encode()).hexdigest()
    assert fp["unavailable"] == {}
    assert os.path.exists(tmp_path / "cache" / "exe-sha256.json")
    json.dumps(fp)


def test_fingerprint_without_gpu_prompt_or_models_lists_every_reason(tmp_path):
    proc_root = _fake_proc(tmp_path, "", cpuinfo="processor\t: 0\n")
    fp = env.fingerprint(["no-such-binary-phasewrap"], [], ("--version",),
                         nvml_module=FakeNvml(init_error=FakeNvml.NVML_ERROR_LIBRARY_NOT_FOUND), run_version=False,
                         hash_cache_dir=str(tmp_path), proc_root=proc_root)
    nvml = "NVML: libnvidia-ml.so.1 not found (no NVIDIA driver here?)"
    missing = "'no-such-binary-phasewrap' is not an executable on PATH"
    assert fp["gpus"] == [] and fp["gpu_reason"] == nvml
    assert fp["unavailable"] == {
        "cpu_model": f"{proc_root}/cpuinfo names no CPU model",
        "cpu_cores_physical": f"{proc_root}/cpuinfo lists no core ids",
        "gpus": nvml, "gpu_count": nvml, "gpu_driver": nvml, "cuda_version": nvml,
        "model_size_bytes": "no model files found",
        "executable.path": missing, "executable.size_bytes": missing, "executable.sha256": missing,
        "executable.version": "not run (run_version=False)",
        "prompt_sha256": "no prompt given",
    }
    for key in fp["unavailable"]:
        top, _, sub = key.partition(".")
        value = fp[top][sub] if sub else fp[top]
        assert value in (None, []), key

