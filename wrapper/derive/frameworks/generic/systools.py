"""The general reader's Unix tools: what people paste beside a slow model from ``free``, ``top``, ``df``, ``dd`` and
``curl`` (and ``rocm-smi --showclocks``'s current levels); and the measuring and building tools pasted beside it:
``perf stat``'s counters, valgrind cachegrind's summary, Rust criterion's outliers, iperf3's rows, cmake's progress and
git's clone counts.

Each line is read on its own, so a row still reads when the block reader skipped its header (a header holds no
figure): ``free``'s row names its columns by position (procps' order), ``df``'s row ends in its mount point, ``top``'s
process row is told by its fixed columns. Sizes with a suffix are binary multiples, as these tools print them
(``7.4Gi``, ``504G``, top's ``125.6g``); a bare number has a unit only where the tool fixes it (top's summary names
it, ``MiB Mem :``), else it is a ``value`` with no unit: ``free`` and ``df`` print bare numbers in a unit their flags
or their header chose.
"""
from __future__ import annotations

from typing import Optional

from ....core.lazy_re import LazyPattern
from ..units import clock_s
from .lexicon import MAGNITUDES, _path_tail

_SIZE = r"\d+(?:[.,]\d+)?(?:[KMGTPE]i?|[kmgtp]|B)?"

# free (procps-ng): "Mem:  7.4Gi  2.7Gi  2.2Gi  10Mi  2.5Gi  4.5Gi", "Swap:  11Gi  372Mi  11Gi"
_FREE_ROW = LazyPattern(r"(?P<row>Mem|Swap|Low|High|Total):\s+(?P<cells>" + _SIZE + r"(?:\s+" + _SIZE + r"){1,6})")
_FREE_COLUMNS = ("total", "used", "free", "shared", "buff/cache", "available")

# df -h: "tmpfs  504G  4.2M  504G  1% /run" (filesystem, size, used, available, use%, mount point)
_DF_ROW = LazyPattern(r"\S+\s+(?P<size>" + _SIZE + r")\s+(?P<used>" + _SIZE + r")\s+(?P<avail>" + _SIZE + r")\s+"
                      r"(?P<use>\d{1,3})%\s+(?P<mount>/\S*)")

# top's summary: "top - 17:13:10 up 211 days, 18:13,  0 user,  load average: 2056.81, 1932.66, 1972.64"
_TOP_LOAD = LazyPattern(r"load average: (?P<a>\d+(?:[.,]\d+)?),? (?P<b>\d+(?:[.,]\d+)?),? (?P<c>\d+(?:[.,]\d+)?)")
# "Tasks: 9 total, 1 running, …", "%Cpu(s):  1.4 us, 98.5 sy, …", "MiB Mem : 2063985.+total, 975160.8 free, …"
_TOP_ITEM = LazyPattern(r"(?P<num>\d+(?:\.\d+)?)(?P<cut>\.?\+)? ?(?P<name>[a-z]+(?:/[a-z]+)?(?: Mem)?)")
_TOP_CPU = {"us": "user", "sy": "system", "ni": "nice", "id": "idle", "wa": "iowait", "hi": "hardware irq",
            "si": "software irq", "st": "steal"}
_TOP_GLUED = LazyPattern(r"(?=Tasks:|%Cpu\(s\):|[KMGTPE]iB Mem :|[KMGTPE]iB Swap:)")
_TOP_MEMORY = LazyPattern(r"(?P<unit>[KMGTPE]iB) (?P<what>Mem|Swap)\s*:")
# top's process row: PID USER PR NI VIRT RES SHR S %CPU %MEM TIME+ COMMAND
_TOP_PROCESS = LazyPattern(r"\d+\s+\S+\s+(?:-?\d+|rt)\s+-?\d+\s+(?P<virt>[\d.]+[kmgtpe]?)\s+(?P<res>[\d.]+[kmgtpe]?)\s+"
                           r"(?P<shr>[\d.]+[kmgtpe]?)\s+[RSDZTIt]\s+(?P<cpu>[\d.]+)\s+(?P<mem>[\d.]+)\s+"
                           r"(?P<min>\d+):(?P<sec>\d\d(?:\.\d+)?)\s+(?P<command>\S.{0,40}?)\s*")

# ps aux / ps -ef u (procps): "root  1166  6.2  0.5 68235476 5179612 ?  RNl  17:36   0:36 ray::RayWorkerVllm": user, pid,
# %CPU, %MEM, VSZ and RSS (KiB), tty, state, start, CPU time ([dd-]hh:mm:ss or mm:ss), command
_PS_ROW = LazyPattern(r"(?P<user>[\w.+-]{1,32})\s+(?P<pid>\d+)\s+(?P<cpu>\d+(?:\.\d+)?)\s+(?P<mem>\d+(?:\.\d+)?)\s+"
                      r"(?P<vsz>\d+)\s+(?P<rss>\d+)\s+\S+\s+[RSDZTIWXt][<NLsl+]*\s+\S+\s+"
                      r"(?:(?P<days>\d+)-)?(?P<time>\d+:\d\d(?::\d\d)?)\s+(?P<command>\S.*)")

# ls -l (-h): "-rw-r--r-- 1 root root 3.6G Apr  2 16:26 checkpoint-12/model-00001-of-00008.safetensors": a file's
# size ("3.6G" in binary multiples; a bare number counts bytes), labelled by its name
_LS_ROW = LazyPattern(r"[-dlcbps][rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+(?P<size>\d+(?:[.,]\d+)?[KMGTPE]?)\s+"
                      r"(?:[A-Z][a-z]{2}\s+\d{1,2}\s+(?:\d{4}|\d{1,2}:\d\d)|\d{4}-\d\d-\d\d(?:\s+\d\d:\d\d(?::\d\d(?:\.\d+)?)?"
                      r"(?:\s+[+-]\d{4})?)?)\s+(?P<name>\S.*?)(?:\s+->\s+\S.*)?")

# Julia's @time / @btime: " 91.943642 seconds (71.75 M allocations: 11.714 GiB, 1.71% gc time, 34.51% compilation
# time)", "  604.971 μs (211 allocations: 12.69 KiB)": labelled by the line above when it ends in a colon
_JULIA_TIME = LazyPattern(r"(?P<t>\d+(?:\.\d+)?) (?P<unit>seconds|s|ms|\u03bcs|\u00b5s|ns) \((?P<allocs>\d+(?:\.\d+)?)(?: ?(?P<mag>[kMG]))? "
                          r"allocations?: (?P<size>\d+(?:\.\d+)?) (?P<sunit>[KMGT]?i?B|bytes)(?:, (?P<gc>\d+(?:\.\d+)?)% gc time)?"
                          r"(?:, (?P<comp>\d+(?:\.\d+)?)% compilation time[^)]*)?\)")

# llama.cpp's test-backend-ops -o perf: "MUL_MAT(type_a=q4_0,…,k=14336):  8520 runs -  117.46 us/run - 117.44 MFLOP/run
# - 999.84 GFLOPS", "MUL_MAT(name=node_34,…):  204800 runs -  4.92 us/run -  155 kB/run -  30.07 GB/s": per case
# (its name= when given, else its parameters) the runs, the time a run, the work a run and the rate
_BACKEND_OP = LazyPattern(r"(?P<op>[A-Z][A-Z0-9_]*)\((?P<params>.*)\):\s+(?P<runs>\d+) runs\s+-\s+(?P<us>\d+(?:\.\d+)?) us/run"
                          r"\s+-\s+(?P<work>\d+(?:\.\d+)?) (?P<wunit>[kMGT]B|[KMGT]?FLOP)/run\s+-\s+(?P<rate>\d+(?:\.\d+)?) "
                          r"(?P<runit>[KMGT]B/s|[KMGT]?FLOPS)")
_OP_NAME = LazyPattern(r"(?:^|,)name=([^,]+)")

# pip's download bar: "━━━━━━━━━━ 66.7/66.7 MB 10.9 MB/s eta 0:00:00" (dashes in a legacy Windows console)
_PIP_BAR = LazyPattern(r"[\u2501\u257a\u2578-]+\s+(?P<done>\d+(?:\.\d+)?)/(?P<total>\d+(?:\.\d+)?) (?P<unit>[kMG]B) "
                       r"(?P<rate>\d+(?:\.\d+)?) (?P<runit>[kMG]B/s)(?: eta \S+)?")

# dd (GNU coreutils): "1+0 records in", "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 4.74373 s, 226 MB/s"
_DD_RECORDS = LazyPattern(r"(?P<full>\d+)\+(?P<partial>\d+) records (?P<way>in|out)")
_DD_COPIED = LazyPattern(r"(?P<bytes>\d+) bytes (?:\([^)]*\) )?copied, (?P<s>\d+(?:[.,]\d+)?) s, "
                         r"(?P<rate>\d+(?:[.,]\d+)?) (?P<unit>[kMGTP]?B/s)")

# rocm-smi --showclocks: the levels a clock supports, the current one starred ("GPU[0] : 1: 480Mhz *") under
# "GPU[0] : Supported dcefclk frequencies on GPU0"; the others are what the card can do, no reading
_ROCM_LEVEL = LazyPattern(r"GPU\[(?P<gpu>\d+)\]\s*:\s*\d+:\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[MG][Hh]z|GT/s)(?:\s*x\d+)?\s*\*")
_ROCM_CLOCK = LazyPattern(r"GPU\[\d+\]\s*:\s*Supported (?P<clock>\S+) frequencies")
ROCM_LEVELS_BACK = 16  # lines looked back over for the clock a starred level belongs to

# curl's progress meter: "% Total % Received % Xferd Average Speed (Dload Upload) Time Total Spent Left Current Speed"
_CURL_SIZE = r"\d+(?:\.\d+)?[kMGTP]?"
_CURL_TIME = r"(?:--:--:--|\d+:\d\d:\d\d|\d+d \d\dh|\d+h \d\dm)"
_CURL_ROW = LazyPattern(
    r"(?P<pt>\d{1,3})\s+(?P<total>" + _CURL_SIZE + r")\s+(?P<pr>\d{1,3})\s+(?P<received>" + _CURL_SIZE + r")\s+"
    r"(?P<px>\d{1,3})\s+(?P<xferd>" + _CURL_SIZE + r")\s+(?P<dload>" + _CURL_SIZE + r")\s+(?P<upload>" + _CURL_SIZE
    + r")\s+" + _CURL_TIME + r"\s+(?P<spent>" + _CURL_TIME + r")\s+" + _CURL_TIME + r"\s+(?P<speed>" + _CURL_SIZE + ")")

# go test -bench: "BenchmarkInference-32   99   110913774 ns/op   270.5 tokens/s": its name, how many iterations,
# then its figures per operation and any it reports itself (read as any "number unit" pairs are)
_GO_BENCH = LazyPattern(r"(?P<name>Benchmark\S*)\s+(?P<n>\d+)\s+(?=[-+]?\d+(?:\.\d+)?\s+\S+/op\b)")

_GO_PAIR = LazyPattern(r"([-+]?\d+(?:\.\d+)?)\s+(\S+)")

# Intel Memory Latency Checker: a matrix row under "Numa node" / "Numa node 0 1", a loaded-latency row under its
# two-line header ("Inject Latency Bandwidth" / "Delay (ns) MB/sec" / "=====").
_MLC_ROW = LazyPattern(r"(?P<id>\d+)(?P<cells>(?:[ \t]+\d+(?:\.\d+)?)+)[ \t]*")
_MLC_MEASURING = LazyPattern(r"Measuring (?P<what>.+?)(?: \(in (?P<unit>ns)\))?[. ]*$")
MLC_LINES_BACK = 6  # from a matrix row up to its "Measuring …" line

# iperf3's interval row: "[  5]   0.00-1.00   sec  1.32 GBytes  11.3 Gbits/sec  [retr] [sender|receiver]" (its
# bytes binary multiples, its bits decimal ones)
_IPERF = LazyPattern(r"\[\s*(?:\d+|SUM)\]\s+(?P<a>\d+\.\d+)-(?P<b>\d+\.\d+)\s+sec\s+(?P<tr>\d+(?:\.\d+)?) (?P<tu>[KMGT]?)Bytes"
                     r"\s+(?P<br>\d+(?:\.\d+)?) (?P<bu>[KMGT]?)bits/sec(?:\s+(?P<retr>\d+))?(?:\s+(?P<cwnd>\d+(?:\.\d+)?) "
                     r"(?P<cu>[KMGT]?)Bytes)?(?:\s+(?P<who>sender|receiver))?\s*")  # (TCP: retransmits, congestion window)

# MLPerf loadgen's summary, its early-stopping bullets (latencies in ns, as all loadgen's): "* Processed at least 64
# queries (56356).", "* Early stopping 90th percentile estimate: 19666047" ("* Would discard 5469 highest latency
# queries." has no figure the gates know)
_MLPERF_BULLET = LazyPattern(r"\* (?:Processed at least \d+ queries \((?P<done>\d+)\)"
                             r"|Early stopping (?P<what>[\w ]{1,40}? estimate(?: \(\w+\))?): (?P<ns>\d+))\.?")

# NCCL's communicator start-up, in seconds: "NCCL INFO Init timings - ncclCommInitRankConfig: rank 3 nranks 8 total 55.01
# (kernels 52.45, alloc 0.41, bootstrap 0.57, allgathers 0.08, topo 1.10, graphs 0.01, connections 0.39, rest 0.00)"
_NCCL_INIT = LazyPattern(r"NCCL INFO Init timings(?: - (?P<call>\w+))?: rank (?P<rank>\d+) nranks \d+ total (?P<total>\d+(?:\.\d+)?)"
                         r"(?: \((?P<parts>[^()]*)\))?")
_NCCL_PART = LazyPattern(r"(\w+) (\d+(?:\.\d+)?)")

# httpstat's timing bar under its names: "  DNS Lookup   TCP Connection   …" / "[     6ms    |      25ms      |  …  ]"
_HTTPSTAT_CELL = LazyPattern(r"\s*(\d+)ms\s*")
_NAME_GAP = LazyPattern(r"\s{2,}")

# pytest's summary: "===== 3 failed, 12 passed, 2 warnings in 31.61s (0:00:31) ====="
_PYTEST = LazyPattern(r"=+ (?P<items>\d+ [a-z]+(?:, \d+ [a-z]+)*) in (?P<s>\d+(?:\.\d+)?)s(?: \([\d:]+\))? =+")
_PYTEST_ITEM = LazyPattern(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|warnings?|deselected|rerun)")

_BINARY = {"K": "KiB", "M": "MiB", "G": "GiB", "T": "TiB", "P": "PiB", "E": "EiB"}


# perf stat's counter: "   175,679,285,515      cpu_atom/cycles/    #    1.828 GHz    (51.47%)", "96,107.79 msec task-clock
#   15.209 CPUs utilized", "1,963  context-switches  #  20.425 /sec": the count (a time in msec), the event, what perf
# derives from it after "#", and the share of the run the counter was scheduled (multiplexed)
_PERF_STAT = LazyPattern(r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s+(?:(?P<unit>msec|ns|us|Joules|MiB)\s+)?"
                         r"(?P<event>[A-Za-z_][\w/.:,=-]*?)\s+#\s+(?P<derived>[\d.,]+)\s*(?P<what>%?[^(]*?)"
                         r"\s*(?:\((?P<share>\d+(?:\.\d+)?)%\))?\s*")
_PERF_DERIVED_UNITS = {"GHz": "GHz", "/sec": "/s", "K/sec": "K/s", "M/sec": "M/s", "G/sec": "G/s"}


# Valgrind cachegrind's summary: "==2919== D   refs:       66,429  (54,246 rd   + 12,183 wr)", "… I1  miss rate:  0.52%"
_CACHEGRIND = LazyPattern(r"==\d+== (?P<label>[A-Za-z][A-Za-z0-9]{0,4} +(?:refs|misses|miss rate)):\s+(?P<num>[\d,.]+%?)"
                          r"(?:\s+\(\s*(?P<rd>[\d,.]+%?) rd\s+\+\s+(?P<wr>[\d,.]+%?) wr\))?\s*")


# Rust criterion's outliers: "Found 5 outliers among 100 measurements (5.00%)", then "5 (5.00%) low mild" by kind
_CRITERION_OUTLIERS = LazyPattern(r"Found (?P<n>\d+) outliers among (?P<of>\d+) measurements \((?P<pct>\d+(?:\.\d+)?)%\)")
_CRITERION_OUTLIER_KIND = LazyPattern(r"(?P<n>\d+) \((?P<pct>\d+(?:\.\d+)?)%\) (?P<kind>(?:low|high) (?:mild|severe))")


# cmake's (make's) progress: "[ 14%] Building CUDA object …/fattn-mma-….cu.o"
_CMAKE_STEP = LazyPattern(r"\[\s*(?P<pct>\d{1,3})%\] (?:Building|Linking|Built|Generating|Scanning|Installing)\b.*")
# git's clone: "remote: Counting objects: 100% (73/73), done.", "Receiving objects: 100% (81513/81513), 103.72 MiB |
# 19.13 MiB/s, done.", "remote: Enumerating objects: 81513, done."
_GIT_PROGRESS = LazyPattern(r"(?:remote: )?(?P<what>[A-Z][a-z]+ (?:objects|deltas)): +(?:(?P<pct>\d{1,3})% \((?P<done>\d+)/"
                            r"(?P<total>\d+)\)|(?P<count>\d+))(?:, (?P<size>\d+(?:\.\d+)?) (?P<sunit>[KMG]iB|bytes) \| "
                            r"(?P<rate>\d+(?:\.\d+)?) (?P<runit>[KMG]iB/s))?(?:, done\.)?\s*")
# "remote: Total 81513 (delta 48), reused 41 (delta 41), pack-reused 81440 (from 2)"
_GIT_TOTAL = LazyPattern(r"(?:remote: )?Total (?P<total>\d+) \(delta (?P<delta>\d+)\), reused (?P<reused>\d+) \(delta "
                         r"(?P<rdelta>\d+)\)(?:, pack-reused (?P<pack>\d+)(?: \(from (?P<packs>\d+)\))?)?\s*")
_GIT_TOTAL_NAMES = {"total": "total", "delta": "deltas", "reused": "reused", "rdelta": "reused deltas",
                    "pack": "pack-reused", "packs": "packs reused from"}


def _size(cell: str) -> Optional[tuple[str, str]]:
    """(number, unit) of a size these tools print with a suffix ("7.4Gi", "504G", "125.6g", "0"); None for a bare
    number other than 0, whose unit the tool's flags chose."""
    cell = cell.replace(",", ".")
    number = cell.rstrip("KMGTPEkmgtpeiB")
    suffix = cell[len(number):]
    if not suffix:
        return (number, "B") if float(number) == 0 else None  # "0": nothing, in any unit
    if suffix == "B":
        return number, "B"
    unit = _BINARY.get(suffix[0].upper())
    return (number, unit) if unit is not None else None


class SystemToolShapes:
    """Rows of free, df and top, dd's summary, curl's progress meter, rocm-smi's current clock levels, go test's
    benchmark iterations, Intel MLC's latency and bandwidth tables, pytest's summary, iperf3's intervals, MLPerf loadgen's early-stopping bullets, NCCL's init timings, httpstat's bar."""

    def _system_tool(self, s: str, line: str, routed: bool) -> bool:
        """Whether ``s`` is one of these tools' lines (read here)."""
        first = s[0]
        if " runs - " in s and (op := _BACKEND_OP.fullmatch(s)) is not None:
            return self._backend_op(op, line, routed)
        if "Init timings" in s and (nccl := _NCCL_INIT.search(s)) is not None:
            return self._nccl_init(nccl, line, routed)
        if first.isdigit():
            return self._numbered_line(s, line, routed)
        if first in "-dl\u2501" and self._ls_or_pip(s, line, routed):
            return True
        if first.isalpha() and ":" in s and s.count(" ") > 9 and (row := _PS_ROW.fullmatch(s)) is not None:
            return self._ps_process(row, line, routed)
        if first in "MSLHT" and ":" in s[:6] and (row := _FREE_ROW.fullmatch(s)) is not None:
            for name, cell in zip(self._free_columns(), row["cells"].split()):
                size = _size(cell)  # a bare number: in the unit free's flags chose (KiB, -m MiB, -g GiB), unsaid
                self._add(f"{row['row']} {name}", *(size or (cell, None)), line, routed, bare=size is None)
            return True
        if s.startswith(("top - ", "Tasks:", "%Cpu", "Cpu(s)")) or s[1:8] in ("iB Mem ", "iB Swap") or s[1:7] == "iB Mem":
            return self._top_summary(s, line, routed)
        if first == "B" and "/op" in s and (bench := _GO_BENCH.match(s)) is not None:
            return self._go_bench(bench, s, line, routed)
        if first == "[" and s[-1] == "]" and "ms" in s and "|" in s and self._httpstat(s, line, routed):
            return True
        if first == "[" and "bits/sec" in s and (row := _IPERF.fullmatch(s)) is not None:
            return self._iperf(row, line, routed)
        if first == "*" and (bullet := _MLPERF_BULLET.fullmatch(s)) is not None:
            if bullet["done"]:
                self._add("processed queries", bullet["done"], "queries", line, routed, core=False)
            else:
                self._add(f"early stopping {bullet['what']}", bullet["ns"], "ns", line, routed, core=False)
            return True
        if first == "=" and s[-1] == "=" and " in " in s and (summary := _PYTEST.fullmatch(s)) is not None:
            for num, word in _PYTEST_ITEM.findall(summary["items"]):
                self._add(f"tests {word}", num, None, line, routed, bare=True, core=False)
            self._add("tests time", summary["s"], "s", line, routed, core=False)
            return True
        if first == "G" and s[-1] == "*" and (level := _ROCM_LEVEL.fullmatch(s)) is not None:
            return self._rocm_level(level, line, routed)
        if "% /" in s and (df := _DF_ROW.fullmatch(s)) is not None:
            mount = df["mount"]
            for name in ("size", "used", "avail"):  # (a bare number counts the header's blocks, "1K-blocks": no unit)
                size = _size(df[name])
                self._add(f"{mount} {name}", *(size or (df[name], None)), line, routed, bare=size is None)
            self._add(f"{mount} use", df["use"], "%", line, routed)
            return True
        if first == "=" and s.startswith("==") and (grind := _CACHEGRIND.fullmatch(s)) is not None:
            return self._cachegrind(grind, line, routed)
        if first == "F" and (found := _CRITERION_OUTLIERS.fullmatch(s)) is not None:
            self._add("outliers", found["n"], None, line, routed, bare=True, core=False)
            self._add("measurements", found["of"], None, line, routed, bare=True, core=False)
            self._add("outliers share", found["pct"], "%", line, routed, core=False)
            return True
        return self._build_tool(s, line, routed)

    def _perf_stat(self, perf, line: str, routed: bool) -> bool:
        """A perf stat counter line (``_PERF_STAT``): the count, what perf derives from it, the share counted."""
        event = perf["event"].rstrip(":")
        unit = {"msec": "ms"}.get(perf["unit"], perf["unit"])
        self._add(event, perf["num"].replace(",", ""), unit, line, routed, bare=unit is None, core=False)
        what = perf["what"].strip()
        derived_unit = "%" if what.startswith("%") else _PERF_DERIVED_UNITS.get(what)
        label = f"{event} {what.lstrip('% ')}" if derived_unit in (None, "%") else f"{event} rate"
        self._add(label.strip(), perf["derived"].replace(",", ""), derived_unit, line, routed, bare=derived_unit is None,
                  core=False, noise_label=what.rsplit(" ", 1)[-1] or label)  # "CPUs utilized": a use, no count of CPUs
        if perf["share"] is not None:  # "(51.47%)": perf multiplexed the counter, scaled from this share of the run
            self._add(f"{event} counted share", perf["share"], "%", line, routed, core=False)
        return True

    def _numbered_line(self, s: str, line: str, routed: bool) -> bool:
        """A tool's line that opens with a number: perf stat's counter, criterion's outliers of a kind, Julia's
        @time, Intel MLC's row, dd's summary, top's process row, curl's progress meter."""
        if "#" in s and (perf := _PERF_STAT.fullmatch(s)) is not None:
            return self._perf_stat(perf, line, routed)
        if "%) " in s and (kind := _CRITERION_OUTLIER_KIND.fullmatch(s)) is not None:  # "5 (5.00%) low mild"
            self._add(f"{kind['kind']} outliers", kind["n"], None, line, routed, bare=True, core=False)
            self._add(f"{kind['kind']} outliers share", kind["pct"], "%", line, routed, core=False)
            return True
        if " allocation" in s and (julia := _JULIA_TIME.fullmatch(s)) is not None:
            return self._julia_time(julia, line, routed)
        if "." in s and (" " in s or "\t" in s) and (row := _MLC_ROW.fullmatch(s)) is not None \
                and self.line_before is not None and self._mlc(row, line, routed):
            return True
        return ("records " in s or " copied, " in s) and self._dd(s, line, routed) \
            or ":" in s and (" S " in s or " R " in s or " I " in s or " D " in s) and self._top_process(s, line, routed) \
            or s.count(":") >= 4 and self._curl(s, line, routed)

    def _cachegrind(self, grind, line: str, routed: bool) -> bool:
        """Valgrind cachegrind's summary line: the count (or rate) and its reads and writes in brackets."""
        label = " ".join(grind["label"].split())  # "D   refs" as "D refs"
        for suffix, num in (("", grind["num"]), (" rd", grind["rd"]), (" wr", grind["wr"])):
            if num is not None:
                unit = "%" if num.endswith("%") else None
                self._add(f"{label}{suffix}", num.rstrip("%").replace(",", ""), unit, line, routed, bare=unit is None,
                          core=False)
        return True

    def _iperf(self, row, line: str, routed: bool) -> bool:
        """iperf3's interval or summary row: what it moved, at what bitrate; TCP's retransmits and congestion window."""
        span = f"{row['who'] + ' ' if row['who'] else ''}{row['a']}-{row['b']} s"
        self._add(f"transfer ({span})", row["tr"], f"{row['tu']}iB" if row["tu"] else "B", line, routed, core=False)
        self._add(f"bitrate ({span})", row["br"], f"{row['bu']}bit/s", line, routed, core=False)
        if row["retr"] is not None:
            self._add(f"retransmits ({span})", row["retr"], None, line, routed, bare=True, core=False)
        if row["cwnd"] is not None:
            self._add(f"congestion window ({span})", row["cwnd"], f"{row['cu']}iB" if row["cu"] else "B", line, routed,
                      core=False)
        return True

    def _build_tool(self, s: str, line: str, routed: bool) -> bool:
        """A build's lines pasted beside a slow model: cmake's "[ 14%] Building …" (how far the build is), git's
        clone counts ("Receiving objects: 100% (81513/81513), 103.72 MiB | 19.13 MiB/s, done.", "Total …")."""
        if s[0] == "[" and "%] " in s[:8] and (step := _CMAKE_STEP.fullmatch(s)) is not None:
            self._add("build progress", step["pct"], "%", line, routed, core=False)
            return True
        if " objects: " in s or " deltas: " in s:
            if (git := _GIT_PROGRESS.fullmatch(s)) is None:
                return False
            what = git["what"].lower()
            if git["count"] is not None:
                self._add(what, git["count"], None, line, routed, bare=True, core=False)
                return True
            self._add(f"{what} progress", git["pct"], "%", line, routed, core=False)
            self._add(f"{what} done", git["done"], None, line, routed, bare=True, core=False)
            self._add(f"{what} total", git["total"], None, line, routed, bare=True, core=False)
            if git["size"] is not None:
                self._add(f"{what} received", git["size"], git["sunit"], line, routed, core=False)
                self._add(f"{what} rate", git["rate"], git["runit"], line, routed, core=False)
            return True
        if "Total " in s[:16] and (total := _GIT_TOTAL.fullmatch(s)) is not None:
            for name in ("total", "delta", "reused", "rdelta", "pack", "packs"):
                if total[name] is not None:
                    self._add(f"objects {_GIT_TOTAL_NAMES[name]}", total[name], None, line, routed, bare=True, core=False)
            return True
        return False

    def _go_bench(self, bench, s: str, line: str, routed: bool) -> bool:
        """go test -bench's row: its iterations, then each "number unit" pair ("1234 ns/op", "128 B/op",
        "2 allocs/op", a benchmark's own "270.5 tokens/s")."""
        name = bench["name"]  # (a name, whatever its words: "BenchmarkOpMultiThreaded-6" counts no threads)
        self._add(f"{name} iterations", bench["n"], None, line, routed, bare=True, noise_label="iterations")
        for num, unit in _GO_PAIR.findall(s, bench.end()):
            if unit == "B/op":  # memory allocated per operation
                self._add(f"{name} bytes/op", num, "B", line, routed, noise_label="bytes/op")
            elif unit == "allocs/op":
                self._add(f"{name} allocs/op", num, None, line, routed, bare=True, noise_label="allocs/op")
            else:
                self._add(name, num, unit, line, routed, noise_label="benchmark")
        return True

    def _httpstat(self, s: str, line: str, routed: bool) -> bool:
        """httpstat's bar of phase times, each cell named by the line above (its names as many as its cells)."""
        cells = s[1:-1].split("|")
        names = _NAME_GAP.split((self.line_before(1) or "").strip()) if self.line_before is not None else []
        times = [_HTTPSTAT_CELL.fullmatch(c) for c in cells]
        if len(names) != len(cells) or not all(times):
            return False
        for name, t in zip(names, times):
            self._add(name, t[1], "ms", line, routed, core=False)
        return True

    def _mlc(self, row, line: str, routed: bool) -> bool:
        """Intel MLC's rows: node-to-node latency or bandwidth (its unit from the lines above), or a loaded-latency
        row (delay, latency in ns, bandwidth in MB/sec); a row right under one read continues its table."""
        above = self.line_before(1) or ""
        cells = row["cells"].split()
        if self._mlc_table is not None and above == self._mlc_table[0]:
            columns = self._mlc_table[1]
        elif above.startswith("=====") and (self.line_before(2) or "").split() == ["Delay", "(ns)", "MB/sec"]:
            columns = [("latency at inject delay {}", "ns"), ("bandwidth at inject delay {}", "MB/s")]
        elif (columns := self._mlc_matrix(above)) is None:
            return False
        if len(columns) != len(cells):
            return False
        self._mlc_table = (line, columns)
        for (label, unit), cell in zip(columns, cells):
            self._add(label.format(row["id"]), cell, unit, line, routed)
        return True

    def _mlc_matrix(self, header: str) -> Optional[list]:
        """The columns of MLC's node matrix under ``header`` ("Numa node 0 1"): its title and unit from above."""
        nodes = header.split()
        if nodes[:2] != ["Numa", "node"] or len(nodes) < 3:
            return None
        unit = None
        for back in range(2, MLC_LINES_BACK + 1):
            text = self.line_before(back) or ""
            unit = unit or ("MB/s" if "are in MB/sec" in text else None)
            if (measuring := _MLC_MEASURING.match(text)) is not None:
                unit = unit or measuring["unit"]
                what = measuring["what"].replace("{", "(").replace("}", ")")
                return [(f"{what} node {{}} -> node {node}", unit) for node in nodes[2:]] if unit else None
        return None

    def _free_columns(self) -> tuple:
        """free's column names from its header above (``free -w`` splits buff/cache in two), else procps' own."""
        for back in (1, 2, 3):
            above = self.line_before(back) if self.line_before is not None else None
            if above is not None and above.split()[:2] == ["total", "used"]:
                return tuple(above.split())
        return _FREE_COLUMNS

    def _rocm_level(self, level, line: str, routed: bool) -> bool:
        for back in range(1, ROCM_LEVELS_BACK + 1):
            above = self.line_before(back) if self.line_before is not None else None
            if above is None:
                return False
            if (clock := _ROCM_CLOCK.search(above)) is not None:
                self._add(f"GPU {level['gpu']} {clock['clock']} current", level["num"], level["unit"], line, routed)
                return True
        return False

    def _top_summary(self, s: str, line: str, routed: bool) -> bool:
        if s.startswith("top - ") and "Tasks:" in s:  # its summary lines glued by a paste that lost their newlines
            parts = _TOP_GLUED.split(s)
            return all([self._top_summary(part.strip(), line, routed) for part in parts if part.strip()])
        if s.startswith("top - "):
            if (load := _TOP_LOAD.search(s)) is None:
                return False
            for minutes, group in (("1", "a"), ("5", "b"), ("15", "c")):
                self._add(f"load average {minutes} min", load[group].replace(",", "."), None, line, routed, bare=True)
            return True
        memory = _TOP_MEMORY.match(s)
        head, _, items = s.partition(":")
        if not items:
            return False
        subject = "CPU" if head.startswith(("%Cpu", "Cpu")) else memory["what"] if memory else head.strip()
        for item in _TOP_ITEM.finditer(items):
            if item["cut"]:  # "2063985.+total": top ran out of room, the value is cut
                continue
            name = item["name"]
            if subject == "CPU":  # top's abbreviations spelled out ("id" read alone would be an identifier)
                self._add(f"CPU {_TOP_CPU.get(name, name)}", item["num"], "%", line, routed)
            elif memory is not None:
                self._add(f"{subject} {name}", item["num"], memory["unit"], line, routed)
            else:  # "Tasks: 9 total, 1 running": counts
                self._add(f"{subject.lower()} {name}", item["num"], None, line, routed, bare=True)
        return True

    def _top_process(self, s: str, line: str, routed: bool) -> bool:
        row = _TOP_PROCESS.fullmatch(s)
        if row is None:
            return False
        command = row["command"].split()[0]
        for name in ("virt", "res", "shr"):
            cell = row[name]
            size = _size(cell) if not cell[-1].isdigit() else (cell, "KiB")  # top's unsuffixed memory is KiB
            if size is not None:
                self._add(f"{command} {name.upper()}", size[0], size[1], line, routed)
        self._add(f"{command} CPU", row["cpu"], "%", line, routed)
        self._add(f"{command} memory share", row["mem"], "%", line, routed)
        self._add(f"{command} CPU time", repr(clock_s(row["min"], row["sec"])), "s", line, routed)
        return True

    def _ls_or_pip(self, s: str, line: str, routed: bool) -> bool:
        """An ``ls -l`` row (``_LS_ROW``: a file's size by its name, a bare size in bytes) or pip's download bar
        (``_PIP_BAR``: so much of so much, and the rate); whether ``s`` was one."""
        if s[1:2] in "r-" and (row := _LS_ROW.fullmatch(s)) is not None:
            size = _size(row["size"]) or (row["size"], "B")
            self._add(f"{_path_tail(row['name'])} size", *size, line, routed, core=False)
            return True
        if (bar := _PIP_BAR.fullmatch(s)) is None:
            return False
        self._add("download done", bar["done"], bar["unit"], line, routed, core=False)
        if bar["total"] != bar["done"]:
            self._add("download size", bar["total"], bar["unit"], line, routed, core=False)
        self._add("download rate", bar["rate"], bar["runit"], line, routed, core=False)
        return True

    def _backend_op(self, m, line: str, routed: bool) -> bool:
        """test-backend-ops' perf row (``_BACKEND_OP``): runs, µs a run, the work a run (kB or FLOP), the rate."""
        name = _OP_NAME.search(m["params"])
        label = f"{m['op']} {name[1] if name else m['params'][:60].rstrip(',[')}"
        self._add(f"{label} runs", m["runs"], "runs", line, routed, core=False)
        self._add(f"{label} time per run", m["us"], "us", line, routed, core=False)
        if m["wunit"] == "kB":  # (a FLOP count a run is the case's size, set by its parameters)
            self._add(f"{label} bytes per run", m["work"], "kB", line, routed, core=False)
        self._add(f"{label} rate", m["rate"], m["runit"], line, routed, core=False)
        return True

    def _nccl_init(self, nccl, line: str, routed: bool) -> bool:
        """NCCL's communicator start-up (``_NCCL_INIT``): its total and parts, in seconds, per rank."""
        label = f"NCCL init rank {nccl['rank']}"
        self._add(f"{label} total", nccl["total"], "s", line, routed, core=False)
        for part, num in _NCCL_PART.findall(nccl["parts"] or ""):
            self._add(f"{label} {part}", num, "s", line, routed, core=False)
        return True

    def _julia_time(self, m, line: str, routed: bool) -> bool:
        """Julia's @time / @btime line (``_JULIA_TIME``): the time, allocations, bytes allocated, GC and compilation
        shares, labelled by the line above when it names them ("Timing `500` warmup steps:")."""
        above = (self.line_before(1) or "").strip() if self.line_before is not None else ""
        head = above[:-1].replace("`", "").strip() + " " if above.endswith(":") and len(above) <= 80 else ""
        allocs = float(m["allocs"]) * MAGNITUDES.get(m["mag"] or "", 1)
        self._add(f"{head}time", m["t"], m["unit"], line, routed, core=False)
        self._add(f"{head}allocations", repr(round(allocs)), None, line, routed, bare=True, core=False)
        self._add(f"{head}allocated", m["size"], m["sunit"], line, routed, core=False)
        for name, group in (("GC time share", "gc"), ("compilation time share", "comp")):
            if m[group] is not None:
                self._add(f"{head}{name}", m[group], "%", line, routed, core=False)
        return True

    def _ps_process(self, row, line: str, routed: bool) -> bool:
        """ps's row of a process (``_PS_ROW``), labelled by its command and pid: VSZ and RSS in KiB, its CPU and
        memory shares, its CPU time."""
        command = _path_tail(row["command"].split()[0])
        label = f"{command}[{row['pid']}]"  # (as a journal names it: "pid" is a noise word)
        cpu_s = clock_s(*row["time"].split(":")) + int(row["days"] or 0) * 86400
        for name, num, unit in (("VSZ", row["vsz"], "KiB"), ("RSS", row["rss"], "KiB"), ("CPU", row["cpu"], "%"),
                                ("memory share", row["mem"], "%"), ("CPU time", repr(cpu_s), "s")):
            # (whether it is noise is the column's to say: "RayWorkerVllm" holds "worker")
            self._add(f"{label} {name}", num, unit, line, routed, noise_label=name, core=False)
        return True

    def _curl(self, s: str, line: str, routed: bool) -> bool:
        """curl's progress meter's row: sizes and speeds in binary multiples (curl's "k" is 1024 bytes)."""
        row = _CURL_ROW.fullmatch(s)
        if row is None:
            return False
        for label, group, share in (("total", "total", "pt"), ("received", "received", "pr"), ("sent", "xferd", "px")):
            self._add(f"curl {label} share", row[share], "%", line, routed)
            self._add(f"curl {label}", *(_size(row[group]) or (row[group], "B")), line, routed)
        for label, group in (("average download speed", "dload"), ("average upload speed", "upload"),
                             ("current speed", "speed")):
            number, unit = _size(row[group]) or (row[group], "B")  # (curl's bare number counts bytes)
            self._add(f"curl {label}", number, f"{unit}/s", line, routed)
        spent = row["spent"]
        if spent[0] != "-" and spent.count(":") == 2:
            self._add("curl time spent", repr(int(clock_s(*spent.split(":")))), "s", line, routed)
        return True

    def _dd(self, s: str, line: str, routed: bool) -> bool:
        if (records := _DD_RECORDS.fullmatch(s)) is not None:
            self._add(f"records {records['way']} full", records["full"], None, line, routed, bare=True)
            self._add(f"records {records['way']} partial", records["partial"], None, line, routed, bare=True)
            return True
        if (copied := _DD_COPIED.match(s)) is None:
            return False
        self._add("copied", copied["bytes"], "B", line, routed)
        self._add("copy time", copied["s"].replace(",", "."), "s", line, routed)
        self._add("copy rate", copied["rate"].replace(",", "."), copied["unit"], line, routed)
        return True
