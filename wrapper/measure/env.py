"""The run's environment fingerprint (the record's ``env``): host, CPU, memory, GPUs, model files and their disk,
the executable (path, size, sha256, version), and hashes of the prompt and the arguments.

Every value that can't be read is ``None`` with the reason under ``unavailable`` (key: the field's dotted name).
Cheap by design: the executable's sha256 is cached by (path, size, mtime) in a JSON file under the cache
directory (``$PHASEWRAP_CACHE``, default ``~/.cache/phasewrap``), /proc and /sys are read once per call, and
the only slow part, ``EXE --version``, runs only when asked (5 s timeout).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from typing import Optional, Sequence

from .. import __version__
from ..core.digest import sha256_hex
from ..core.paths import cache_dir  # noqa: F401 (env.cache_dir, as callers name it)
from .sampling import nvml as _nvml

_MIB = 1048576
HASH_CACHE_FILE = "exe-sha256.json"
HASH_CACHE_ENTRIES = 64
VERSION_TIMEOUT_S = 5.0
VERSION_MAX_CHARS = 200
_HASH_CHUNK = 1 << 20
OS_RELEASE_PATHS = ("/etc/os-release", "/usr/lib/os-release")


def _sha256_text(text) -> str:
    return sha256_hex(text if isinstance(text, bytes) else str(text).encode("utf-8"))


def args_sha256(argv: Sequence[str]) -> str:
    """sha256 of the full argument list (executable included) as compact JSON: unambiguous about spaces."""
    return _sha256_text(json.dumps(list(argv), ensure_ascii=False, separators=(",", ":")))


# -- host, CPU, memory ----------------------------------------------------------------------------------------

def _read(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _cpu(proc_root: str) -> tuple[dict, dict]:
    """CPU model and physical core count from /proc/cpuinfo (one read; no psutil import on the hot path)."""
    path = os.path.join(proc_root, "cpuinfo")
    text = _read(path)
    if text is None:
        reason = f"{path} is not readable"
        return {"cpu_model": None, "cpu_cores_physical": None}, {"cpu_model": reason, "cpu_cores_physical": reason}
    model, socket_id, cores = None, None, set()
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep:
            continue
        # x86: "model name"; many ARM kernels: "Model" or "Hardware" (the cores themselves are unnamed)
        if model is None and key in ("model name", "Model", "Hardware", "cpu model") and value:
            model = value
        elif key == "physical id":
            socket_id = value
        elif key == "core id":
            cores.add((socket_id, value))
    unavailable = {}
    if model is None:
        unavailable["cpu_model"] = f"{path} names no CPU model"
    if not cores:
        unavailable["cpu_cores_physical"] = f"{path} lists no core ids"
    return {"cpu_model": model, "cpu_cores_physical": len(cores) or None}, unavailable


def _memory_total_mib() -> tuple[Optional[float], Optional[str]]:
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / _MIB, 1), None
    except (ValueError, OSError, AttributeError) as e:
        return None, f"sysconf(SC_PHYS_PAGES): {e}"


def _distro(paths: Sequence[str] = OS_RELEASE_PATHS) -> tuple[Optional[str], Optional[str]]:
    for path in paths:
        text = _read(path)
        if text is None:
            continue
        fields = {}
        for line in text.splitlines():
            key, eq, value = line.partition("=")
            if eq:
                fields[key.strip()] = value.strip().strip("\"'")
        name = fields.get("PRETTY_NAME") or fields.get("NAME")
        return (name, None) if name else (None, f"{path} names no distribution")
    return None, f"no {' or '.join(paths)}"


def host_info(proc_root: str = "/proc") -> tuple[dict, dict]:
    """(fields, unavailable) for host name, OS, kernel, distribution, architecture, CPU and memory."""
    uname = os.uname()
    fields = {"host": uname.nodename or None, "os": uname.sysname or None, "kernel": uname.release or None,
              "arch": uname.machine or None}
    unavailable = {k: "uname() did not tell" for k, v in fields.items() if v is None}
    fields["distro"], reason = _distro()
    if reason:
        unavailable["distro"] = reason
    cpu, cpu_unavailable = _cpu(proc_root)
    fields["cpu_model"] = cpu["cpu_model"]
    fields["cpu_cores_logical"] = os.cpu_count()
    fields["cpu_cores_physical"] = cpu["cpu_cores_physical"]
    unavailable.update(cpu_unavailable)
    if fields["cpu_cores_logical"] is None:
        unavailable["cpu_cores_logical"] = "os.cpu_count() could not tell"
    fields["memory_total_mib"], reason = _memory_total_mib()
    if reason:
        unavailable["memory_total_mib"] = reason
    return fields, unavailable


# -- GPUs (NVML) ----------------------------------------------------------------------------------------------

def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _cuda_version(value: int) -> str:
    """NVML's CUDA driver version integer (13000) as "13.0"."""
    return f"{value // 1000}.{value % 1000 // 10}"


def gpu_info(nvml_module=None) -> dict:
    """``{"gpus": [{"index", "name", "uuid", "vram_total_mib", "compute_capability"}], "gpu_count",
    "gpu_driver", "cuda_version", "gpu_reason"}`` through NVML, plus ``"unavailable"`` for single fields.

    No NVML (module missing, no driver): ``gpus`` is ``[]``, the other figures ``None`` and ``gpu_reason`` says
    why. ``nvml_module`` defaults to ``pynvml``; NVML init is reference-counted, so calling this while a sampler
    holds NVML open costs no second initialisation. Every driver call goes through the samplers' choke point.
    """
    out = {"gpus": [], "gpu_count": None, "gpu_driver": None, "cuda_version": None, "gpu_reason": None,
           "unavailable": {}}
    with _nvml.session(nvml_module, log=False) as (nvml, reason):
        if nvml is None:
            out["gpu_reason"] = reason
            return out

        def call(key: str, func: str, *args):
            value = nvml.call(func, *args, gpu=key, log=False)
            if value is None:
                out["unavailable"][key] = f"NVML {nvml.last_error}"
            return value

        _system_info(out, call)
        for i in range(out["gpu_count"] or 0):
            gpu = _device_info(i, call)
            if gpu is not None:
                out["gpus"].append(gpu)
    if out["gpu_count"] is None:
        out["gpu_reason"] = out["unavailable"]["gpu_count"]
    elif out["gpu_count"] == 0:
        out["gpu_reason"] = "NVML sees no GPU"
    return out


def _system_info(out: dict, call) -> None:
    driver = call("gpu_driver", "nvmlSystemGetDriverVersion")
    out["gpu_driver"] = None if driver is None else _text(driver)
    cuda = call("cuda_version", "nvmlSystemGetCudaDriverVersion")
    out["cuda_version"] = None if cuda is None else _cuda_version(int(cuda))
    out["gpu_count"] = call("gpu_count", "nvmlDeviceGetCount")


def _device_info(i: int, call) -> Optional[dict]:
    handle = call(f"gpus[{i}]", "nvmlDeviceGetHandleByIndex", i)
    if handle is None:
        return None
    name = call(f"gpus[{i}].name", "nvmlDeviceGetName", handle)
    uuid = call(f"gpus[{i}].uuid", "nvmlDeviceGetUUID", handle)
    memory = call(f"gpus[{i}].vram_total_mib", "nvmlDeviceGetMemoryInfo", handle)
    cc = call(f"gpus[{i}].compute_capability", "nvmlDeviceGetCudaComputeCapability", handle)
    return {"index": i, "name": None if name is None else _text(name), "uuid": None if uuid is None else _text(uuid),
            "vram_total_mib": None if memory is None else round(memory.total / _MIB, 1),
            "compute_capability": None if cc is None else f"{cc[0]}.{cc[1]}"}


# -- model files and their disk -------------------------------------------------------------------------------

def _unescape_mount(field: str) -> str:
    # /proc/mounts escapes space, tab, newline and backslash as \040 \011 \012 \134
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def parse_mounts(text: str) -> list[tuple[str, str, str]]:
    """(source, mount point, filesystem type) per line of /proc/mounts, in order."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            out.append((_unescape_mount(parts[0]), _unescape_mount(parts[1]), parts[2]))
    return out


def _mount_of(path: str, mounts: list[tuple[str, str, str]]) -> Optional[tuple[str, str, str]]:
    """The mount holding ``path``: the longest mount point above it; of equal ones the last (it shadows)."""
    best = None
    for entry in mounts:
        point = entry[1]
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best[1])):
            best = entry
    return best


def _block_device(st_dev: int, sys_root: str) -> tuple[Optional[str], Optional[bool], Optional[str]]:
    """(disk name, rotational, reason) for a file's st_dev via /sys/dev/block/MAJOR:MINOR."""
    major, minor = os.major(st_dev), os.minor(st_dev)
    if major == 0:
        return None, None, (f"device {major}:{minor} is not a block device (a network, overlay, btrfs or memory "
                            f"filesystem)")
    link = os.path.join(sys_root, "dev", "block", f"{major}:{minor}")
    real = os.path.realpath(link)
    if not os.path.isdir(real):
        return None, None, f"{link} does not exist"
    # a partition's sysfs directory sits inside its disk's, and only the disk has queue/rotational
    disk_dir = os.path.dirname(real) if os.path.exists(os.path.join(real, "partition")) else real
    flag = _read(os.path.join(disk_dir, "queue", "rotational"))
    if flag is None or flag.strip() not in ("0", "1"):
        return os.path.basename(disk_dir), None, f"{disk_dir}/queue/rotational is not readable"
    return os.path.basename(disk_dir), flag.strip() == "1", None


def model_file_info(paths: Sequence[str], *, proc_root: str = "/proc", sys_root: str = "/sys") -> tuple[list, dict]:
    """(entries, unavailable): per file ``{"path", "size_bytes", "device", "rotational", "fs_type",
    "mount_point"}``; ``device`` is the disk's kernel name (``nvme0n1``, ``sda``), ``rotational`` True for a
    spinning disk (as the kernel reports it: virtual disks often claim 1)."""
    mounts_text = _read(os.path.join(proc_root, "mounts"))
    mounts = parse_mounts(mounts_text) if mounts_text is not None else None
    entries, unavailable = [], {}
    disks: dict[int, tuple] = {}
    for i, path in enumerate(paths):
        key = f"model_files[{i}]"
        entry = {"path": path, "size_bytes": None, "device": None, "rotational": None, "fs_type": None,
                 "mount_point": None}
        entries.append(entry)
        try:
            st = os.stat(path)
        except OSError as e:
            unavailable[key] = f"{path}: {e.strerror}"
            continue
        entry["size_bytes"] = st.st_size
        if st.st_dev not in disks:
            disks[st.st_dev] = _block_device(st.st_dev, sys_root)
        device, rotational, reason = disks[st.st_dev]
        entry["device"], entry["rotational"] = device, rotational
        if reason:
            if device is None:
                unavailable[f"{key}.device"] = reason
            unavailable[f"{key}.rotational"] = reason
        mount = None if mounts is None else _mount_of(os.path.realpath(path), mounts)
        if mount is None:
            unavailable[f"{key}.fs_type"] = (f"{proc_root}/mounts is not readable" if mounts is None
                                             else f"no mount in {proc_root}/mounts holds it")
        else:
            entry["mount_point"], entry["fs_type"] = mount[1], mount[2]
    return entries, unavailable


# -- the executable -------------------------------------------------------------------------------------------

def _load_hash_cache(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _store_hash_cache(path: str, data: dict) -> None:
    """Write atomically (temp file + rename); a cache that can't be written only costs a re-hash later."""
    from ..core.writer import OutputError, write_file

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_file(path, json.dumps(data, indent=0, sort_keys=True))
    except (OSError, OutputError):
        pass


def file_sha256(path: str, cache_path: Optional[str] = None) -> str:
    """sha256 of a file, cached in ``cache_path`` (JSON) by (real path, size, mtime_ns); raises ``OSError``."""
    real = os.path.realpath(path)
    st = os.stat(real)
    cache = _load_hash_cache(cache_path) if cache_path else {}
    hit = cache.get(real)
    if isinstance(hit, dict) and hit.get("size") == st.st_size and hit.get("mtime_ns") == st.st_mtime_ns:
        return hit["sha256"]
    import hashlib  # OpenSSL's sha256, faster on a binary of megabytes; only when the cache has no entry

    digest = hashlib.sha256()
    with open(real, "rb") as fh:
        while True:
            block = fh.read(_HASH_CHUNK)
            if not block:
                break
            digest.update(block)
    value = digest.hexdigest()
    if cache_path:
        cache.pop(real, None)
        cache[real] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": value}
        while len(cache) > HASH_CACHE_ENTRIES:
            cache.pop(next(iter(cache)))
        _store_hash_cache(cache_path, cache)
    return value


def pick_version_line(output: str) -> Optional[str]:
    """The version line of ``EXE --version`` output: the first non-empty line that mentions "version",
    else the first non-empty line (llama.cpp CUDA builds print device lines before ``version: ...``)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if not lines:
        return None
    for line in lines:
        if "version" in line.lower():
            return line[:VERSION_MAX_CHARS]
    return lines[0][:VERSION_MAX_CHARS]


def read_version(cmd: Sequence[str], timeout_s: float = VERSION_TIMEOUT_S) -> tuple[Optional[str], Optional[str]]:
    """(version line, reason) from running ``cmd`` (e.g. ``[exe, "--version"]``), stdout and stderr together.

    The command runs in its own session so a timeout kills whatever it started too.
    """
    shown = " ".join(cmd)
    try:
        proc = subprocess.Popen(list(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as e:
        return None, f"`{shown}` could not start: {e.strerror}"
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        return None, f"`{shown}` did not finish within {timeout_s:g} s"
    text = out.decode("utf-8", "replace")
    line = pick_version_line(text)
    if proc.returncode != 0:
        first = f": {line}" if line else " with no output"
        return None, f"`{shown}` exited {proc.returncode}{first}"
    if line is None:
        return None, f"`{shown}` printed nothing"
    return line, None


def executable_info(argv: Sequence[str], version_args: Sequence[str] = (), *, do_run_version: bool = True,
                    hash_cache_path: Optional[str] = None) -> tuple[dict, dict]:
    """(fields, unavailable) for ``argv[0]``: ``{"name", "path", "size_bytes", "sha256", "version"}``."""
    unavailable = {}
    info = {"name": argv[0] if argv else None, "path": None, "size_bytes": None, "sha256": None, "version": None}
    if not argv:
        for key in info:
            unavailable[f"executable.{key}"] = "no command"
        return info, unavailable
    found = shutil.which(argv[0])
    if found is None:
        reason = f"{argv[0]!r} is not an executable on PATH"
        for key in ("path", "size_bytes", "sha256"):
            unavailable[f"executable.{key}"] = reason
    else:
        info["path"] = os.path.realpath(found)
        try:
            info["size_bytes"] = os.stat(info["path"]).st_size
            info["sha256"] = file_sha256(info["path"], hash_cache_path)
        except OSError as e:
            for key in ("size_bytes", "sha256"):
                if info[key] is None:
                    unavailable[f"executable.{key}"] = f"{info['path']}: {e.strerror}"
    if not version_args:
        unavailable["executable.version"] = "not asked: the profile names no version flag"
    elif not do_run_version:
        unavailable["executable.version"] = "not run (run_version=False)"
    else:
        info["version"], reason = read_version([info["path"] or argv[0], *version_args])
        if reason:
            unavailable["executable.version"] = reason
    return info, unavailable


# -- the whole fingerprint ------------------------------------------------------------------------------------

def fingerprint(argv: Sequence[str], model_files: Sequence[str], profile_version_args: Sequence[str] = (), *,
                prompt=None, nvml_module=None, run_version: bool = True, hash_cache_dir: Optional[str] = None,
                proc_root: str = "/proc", sys_root: str = "/sys") -> dict:
    """The record's ``env``.

    Keys: ``host, os, kernel, distro, arch, cpu_model, cpu_cores_logical, cpu_cores_physical,
    memory_total_mib`` · ``gpus`` (list of ``{index, name, uuid, vram_total_mib, compute_capability}``),
    ``gpu_count, gpu_driver, cuda_version, gpu_reason`` · ``model_files`` (list of ``{path, size_bytes, device,
    rotational, fs_type, mount_point}``), ``model_size_bytes`` · ``executable`` ``{name, path, size_bytes,
    sha256, version}`` · ``phasewrap_version, prompt_sha256, args_sha256`` · ``unavailable`` ``{dotted key:
    reason}`` for every ``None`` above.

    ``prompt`` (str or bytes) is hashed when given. ``profile_version_args`` (e.g. ``("--version",)``) are run
    after the executable when ``run_version``; nothing is run otherwise. ``hash_cache_dir`` defaults to
    ``cache_dir()``.
    """
    env, unavailable = host_info(proc_root)
    gpu = gpu_info(nvml_module)
    unavailable.update(gpu.pop("unavailable"))
    if gpu["gpu_reason"] and not gpu["gpus"]:
        for key in ("gpus", "gpu_count", "gpu_driver", "cuda_version"):
            if gpu[key] in (None, []):
                unavailable.setdefault(key, gpu["gpu_reason"])
    env.update(gpu)
    files, file_unavailable = model_file_info(model_files, proc_root=proc_root, sys_root=sys_root)
    env["model_files"] = files
    unavailable.update(file_unavailable)
    sizes = [f["size_bytes"] for f in files]
    env["model_size_bytes"] = sum(sizes) if files and None not in sizes else None
    if env["model_size_bytes"] is None:
        unavailable["model_size_bytes"] = "no model files found" if not files else "a model file can't be read"
    cache_path = os.path.join(hash_cache_dir or cache_dir(), HASH_CACHE_FILE)
    env["executable"], exe_unavailable = executable_info(argv, profile_version_args, do_run_version=run_version,
                                                         hash_cache_path=cache_path)
    unavailable.update(exe_unavailable)
    env["phasewrap_version"] = __version__
    env["prompt_sha256"] = None if prompt is None else _sha256_text(prompt)
    if prompt is None:
        unavailable["prompt_sha256"] = "no prompt given"
    env["args_sha256"] = args_sha256(argv)
    env["unavailable"] = unavailable
    return env
