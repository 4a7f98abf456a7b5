"""The library: what each subcommand does, as functions (``import wrapper as phasewrap; phasewrap.run([...])``).

The CLI is one caller of these: it parses arguments, calls one function and maps its exceptions to exit
statuses (``UsageError`` 2, ``StartError`` 127, ``GpuBusy`` 3). Defaults are the CLI's. Warnings go to the
``phasewrap`` logger (the CLI prints them on stderr as ``phasewrap: warning: …``); nothing here prints.

Heavy modules (the launcher, samplers, plotting, statistics) are imported inside the functions that use them,
so ``import wrapper`` stays cheap.
"""
from __future__ import annotations

import dataclasses
import logging
import os
from typing import Callable, Iterable, Iterator, Mapping, Optional, Sequence, Union

from .errors import GpuBusy, StartError, UsageError

log = logging.getLogger("phasewrap")

PathOrRecords = Union[str, os.PathLike, Sequence]
EXIT_OUTPUT = 74  # sysexits' EX_IOERR: the child succeeded but its record could not be written

__all__ = ["run", "plan", "merge", "by_host", "diagnose_by_host", "analyze", "compare", "diagnose", "env", "plot",
           "report", "read_records", "RunRecords", "check", "baselines", "UsageError", "StartError", "GpuBusy"]


class RunRecords(list):
    """The records of one ``run()`` call, in run order (warm-ups included, marked ``warmup: true``).

    ``exit_status``: what ``phasewrap run`` exits with — the last run's exit code (128+N when signal N ended
    it), 0 when nothing ran, ``EXIT_OUTPUT`` (74) when the runs succeeded but a record could not be written to
    the JSONL or CSV file. ``unwritten``: the run_ids of those records.
    """

    exit_status: int = 0
    unwritten: tuple = ()  # run() sets a list of its own
    stopped_by: Optional[int] = None  # the signal that stopped the session between two runs


def _marks(marks) -> list:
    """``{"name": "regex"}`` or ``[(name, regex)]`` / ``[(name, regex, stream)]`` → [(name, regex, stream)]."""
    if not marks:
        return []
    items = marks.items() if isinstance(marks, Mapping) else marks
    out = []
    for item in items:
        item = tuple(item)
        if len(item) not in (2, 3):
            raise UsageError(f"marks: expected (name, regex) or (name, regex, stream), got {item!r}")
        out.append(item if len(item) == 3 else (*item, "any"))
    return out


def _sweeps(sweep) -> list:
    """``{"ctx": [512, 4096]}``, ``[("ctx", [...])]`` or ``["ctx=512,4096"]`` → [(name, [text values])]."""
    from .method.session import parse_sweep

    if not sweep:
        return []
    items = sweep.items() if isinstance(sweep, Mapping) else sweep
    out = []
    try:
        for item in items:
            if isinstance(item, str):
                name, values = parse_sweep(item)
            else:
                name, values = item
                values = [str(v) for v in values]
            out.append((name, values))
    except ValueError as exc:
        raise UsageError(f"phasewrap run: {exc}") from None
    return out


def _limits_input(cmd: str, model_path, model_bytes, active_bytes, peaks):
    """The user's figures for the floors, checked (UsageError naming the option)."""
    from .derive.limits import LimitsInput, parse_peak
    from .validate import check_bytes

    try:
        given = {k: check_bytes(f"--{k.replace('_', '-')}", v) for k, v in
                 (("model_bytes", model_bytes), ("active_bytes", active_bytes)) if v is not None}
        items = (peaks or {}).items() if isinstance(peaks, Mapping) else [parse_peak(p) for p in peaks or ()]
        checked = dict(parse_peak(f"{name}={gbps}") for name, gbps in items)
    except ValueError as exc:
        raise UsageError(f"phasewrap {cmd}: {exc}") from None
    return LimitsInput(model_path=None if model_path is None else os.fspath(model_path), peaks=checked, **given)


def _check_seconds(name: str, value, allow_none: bool = True) -> None:
    from . import validate

    if value is None and allow_none:
        return
    maximum = {"interval": validate.MAX_INTERVAL_S, "timeout_s": validate.MAX_TIMEOUT_S}.get(name, validate.MAX_GRACE_S)
    try:
        validate.check_seconds(name, value, maximum)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _refuse_or_warn_busy_gpu(gpu: str, require_idle_gpu: bool) -> None:
    if gpu == "off":
        return
    from .measure.sampling import busy_gpu_processes

    busy = busy_gpu_processes()
    if not busy:
        return
    listing = ", ".join(f"pid {p.get('pid')} ({p.get('name') or '?'}, {p.get('vram_mib') or '?'} MiB)" for p in busy)
    if require_idle_gpu:
        raise GpuBusy(f"--require-idle-gpu: the GPU is in use by {listing}; stop them or drop the option", busy)
    log.warning("other processes use the GPU (%s); timings are only comparable on an idle GPU", listing)


def run(command: Sequence[str], options=None, *, on_record: Optional[Callable[[dict], None]] = None,
        on_progress: Optional[Callable[[str], None]] = None, **keywords) -> RunRecords:
    """Run ``command`` ``warmup + runs`` times per sweep variant, measured as ``phasewrap run`` measures it.

    ``options``: a ``RunOptions`` (``wrapper.model.options``: every run option, declared and documented once);
    keywords set single fields of it (``run(cmd, ready="model loaded", runs=3)``); an unknown one is a
    ``UsageError`` naming it. The CLI's defaults, except ``quiet=True``. ``on_record(record)`` is called after
    each run, ``on_progress(text)`` before each of several runs. SIGINT/SIGTERM/SIGHUP during the call go to the
    running child (its record says ``interrupted``); one between two runs stops the session (``stopped_by``).

    Returns the records (``RunRecords``, a list with ``exit_status``). Raises ``UsageError`` for bad options
    or output paths (before anything runs), ``GpuBusy`` with ``require_idle_gpu`` when the GPU is in use,
    ``StartError`` when the command can't be started.
    """
    from .method import fleet as _fleet
    from .model.profiles import NO_TOKENS_KIND
    from .present.outputs import RunOutputs

    opts = _run_options(options, keywords)
    plan = _session_plan(command, opts)
    prepared = _checked(plan)
    items, fleet = _fleet.setup(opts.shard, opts.shards, opts.sweep_id, len(prepared), opts.runs)
    outputs = RunOutputs(opts, fleet)
    baseline_path = _baseline_target(opts.save_baseline, opts.baseline_dir)
    session = dataclasses.replace(plan, items=items, fleet=fleet, capture_dir_for=outputs.capture_dir_for)
    for warning in prepared[0].warnings:
        if warning.kind != NO_TOKENS_KIND:  # the stream decides that one: in the record only if no token came
            log.warning("%s", warning.text)
    _refuse_or_warn_busy_gpu(opts.gpu, opts.require_idle_gpu)

    def finished(record: dict) -> None:
        outputs.write(record)
        if on_record is not None:
            on_record(record)

    kept: list = []
    out = _run_guarded(session, prepared, opts, finished, on_progress or (lambda text: log.info("%s", text)), kept)
    out.unwritten = outputs.unwritten
    outputs.draw_after(list(out), kept)
    if baseline_path and out and not _save_baseline(list(out), baseline_path, opts.save_baseline):
        out.exit_status = out.exit_status or EXIT_OUTPUT
    if outputs.unwritten:
        log.error("%d record(s) not written to every output (%s); see the errors above", len(outputs.unwritten),
                  ", ".join(outputs.unwritten))
        out.exit_status = out.exit_status or EXIT_OUTPUT
    return out


def _run_options(options, keywords: dict):
    """The run's ``RunOptions`` from a given one and keywords; numbers checked as the CLI checks them."""
    from .model.options import from_keywords

    try:
        opts = from_keywords(options, **keywords)
    except TypeError as exc:
        raise UsageError(f"phasewrap run: {exc}") from None
    for name, value in (("runs", opts.runs), ("warmup", opts.warmup)):
        if not isinstance(value, int) or isinstance(value, bool) or value < (1 if name == "runs" else 0):
            raise UsageError(f"phasewrap run: {name} must be a whole number >= {1 if name == 'runs' else 0}, "
                             f"got {value!r}")
    _check_seconds("interval", opts.interval, allow_none=False)
    _check_seconds("timeout_s", opts.timeout_s)
    _check_seconds("kill_grace_s", opts.kill_grace_s, allow_none=False)
    return opts


def _session_plan(command: Sequence[str], opts):
    """The session the options describe, before the fleet's shard and the outputs are known."""
    from .derive.pipeline import RunConfig
    from .method.session import SessionConfig

    command = list(command[1:] if list(command[:1]) == ["--"] else command)
    base = RunConfig(command=command, profile=opts.profile, ready=opts.ready, ready_stream=opts.ready_stream,
                     first_token=opts.first_token, first_token_stream=opts.first_token_stream,
                     marks=_marks(opts.marks), tags={str(k): str(v) for k, v in (opts.tags or {}).items()},
                     note=opts.note, quiet=opts.quiet, stdout_fd=2 if opts.stdout_to_stderr else 1, pty=opts.pty,
                     timeout_s=opts.timeout_s,
                     kill_grace_s=opts.kill_grace_s, capture_dir=opts.capture_dir, request=opts.request,
                     max_tokens=opts.max_tokens, api=opts.api, url=opts.url, model=opts.model,
                     limits=_limits_input("run", opts.model_path, opts.model_bytes, opts.active_bytes, opts.peaks))
    return SessionConfig(base=base, runs=opts.runs, warmup=opts.warmup, cold=opts.cold, drop_caches=opts.drop_caches,
                         model_files=list(opts.model_files), sweeps=_sweeps(opts.sweep), fingerprint=opts.fingerprint,
                         probe_hardware=opts.probe_hardware)


def _checked(session) -> list:
    from .method.session import check

    try:
        return check(session)
    except ValueError as exc:
        raise UsageError(f"phasewrap run: {exc}") from None


def _run_guarded(session, prepared: list, opts, finished, on_progress, kept: list) -> RunRecords:
    """The session's runs under one signal guard: a signal between two runs stops it (``stopped_by``).
    ``kept``: gets each run's chunk times and samples when ``--plot`` / ``--trace`` will draw them."""
    from .measure.sampling import make_samplers
    from .measure.signals import SignalGuard
    from .method.session import run_session

    with SignalGuard() as signals:
        records, status = run_session(session, prepared, on_record=finished, on_progress=on_progress,
                                      make_samplers=lambda: make_samplers(opts.gpu, opts.cpu, opts.interval),
                                      signals=signals, keep=kept.append if opts.plot or opts.trace else None)
    out = RunRecords(records)
    out.exit_status = status
    if signals.received is not None and (not records or records[-1]["status"] != "interrupted"):
        out.stopped_by = signals.received
    return out


def iter_analyze(paths: Union[str, os.PathLike, Iterable], *, ready: Optional[str] = None,
                 ready_stream: str = "any", first_token: Optional[str] = None, first_token_stream: str = "any",
                 marks=None, profile: str = "auto", framework: Optional[str] = None, dmon: Optional[str] = None,
                 query_gpu: Optional[str] = None, pidstat: Optional[str] = None, utc_offset_s: Optional[int] = None,
                 on_progress: Optional[Callable[[str], None]] = None, model_path: Optional[str] = None,
                 model_bytes: Optional[float] = None, active_bytes: Optional[float] = None,
                 peaks=None) -> Iterator[dict]:
    """``analyze``'s records one by one as they are made (a log of millions of requests in flat memory).
    Every input is checked before the first record comes; ``UsageError`` names a bad one."""
    from .sources.analyze import SideFiles
    from .sources.analyze import iter_analyze as iter_files
    from .derive.pipeline import RunConfig

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    config = RunConfig(command=[], profile=profile, ready=ready, ready_stream=ready_stream, first_token=first_token,
                       first_token_stream=first_token_stream, marks=_marks(marks),
                       limits=_limits_input("analyze", model_path, model_bytes, active_bytes, peaks))
    side = SideFiles(dmon=dmon, query_gpu=query_gpu, pidstat=pidstat, utc_offset_s=utc_offset_s)
    try:
        records = iter_files([os.fspath(p) for p in paths], config, side, framework=framework,
                             on_progress=on_progress or (lambda text: log.info("%s", text)))
        first = next(records, None)  # the inputs are checked before the first record
    except UsageError as exc:
        raise UsageError(f"phasewrap analyze: {exc}") from None
    except ValueError as exc:  # a bad regex or profile, named by prepare()
        raise UsageError(f"phasewrap analyze: {exc}") from None
    return _chain(first, records)


def _chain(first: Optional[dict], records: Iterator[dict]) -> Iterator[dict]:
    if first is not None:
        yield first
    try:
        yield from records
    except UsageError as exc:
        raise UsageError(f"phasewrap analyze: {exc}") from None
    except ValueError as exc:  # a bad regex or profile, named by prepare()
        raise UsageError(f"phasewrap analyze: {exc}") from None


def analyze(paths: Union[str, os.PathLike, Iterable], *, ready: Optional[str] = None, ready_stream: str = "any",
            first_token: Optional[str] = None, first_token_stream: str = "any", marks=None, profile: str = "auto",
            framework: Optional[str] = None, dmon: Optional[str] = None, query_gpu: Optional[str] = None,
            pidstat: Optional[str] = None, utc_offset_s: Optional[int] = None,
            on_progress: Optional[Callable[[str], None]] = None, model_path: Optional[str] = None,
            model_bytes: Optional[float] = None, active_bytes: Optional[float] = None, peaks=None) -> list:
    """Run records from recorded output, as ``phasewrap analyze`` makes them: captures (files or directories),
    timestamped logs, asciinema recordings, plain logs; ``dmon`` / ``query_gpu`` / ``pidstat``: side files.
    ``model_path`` / ``model_bytes`` / ``active_bytes`` / ``peaks``: as for ``run`` (this machine's hardware is
    never probed: the recording may come from another).

    The marker options re-apply other markers to a capture. Raises ``UsageError`` naming a bad input.
    """
    return list(iter_analyze(paths, ready=ready, ready_stream=ready_stream, first_token=first_token,
                             first_token_stream=first_token_stream, marks=marks, profile=profile, framework=framework,
                             dmon=dmon, query_gpu=query_gpu, pidstat=pidstat, utc_offset_s=utc_offset_s,
                             on_progress=on_progress, model_path=model_path, model_bytes=model_bytes,
                             active_bytes=active_bytes, peaks=peaks))


def env(command: Sequence[str] = (), *, model_files: Sequence[str] = ()) -> dict:
    """The environment a run of ``command`` would record (``env`` in the record), as ``phasewrap env`` prints
    it: host, OS, CPU, memory, GPUs and driver, the model files and their disk, the executable's size, hash and
    version (asked with the profile's version flag). No command: the machine alone (with ``model_files``)."""
    from .measure.env import fingerprint
    from .measure.pagecache import model_files as files_of
    from .model import profiles

    command = list(command[1:] if list(command[:1]) == ["--"] else command)
    if command and not command[0]:
        raise UsageError("phasewrap env: the command's name is empty; give -- CMD [ARGS...] or no command")
    profile = profiles.resolve("auto", command)[0] if command else None
    files = files_of(command, list(model_files)) if command else list(model_files)
    return fingerprint(command, files, profile.version_args if profile else ())


def file_dates(records: Sequence[dict]) -> list:
    """Per record, the date for a CSV row when the record has no ``started_at`` (a log whose lines carry no
    times): its file's modification time, when the log was last written (about the run's end); None when the
    record has a start time or the file can't be read (a copy without ``cp -p`` carries the copy's time)."""
    date_of = file_date()
    return [date_of(record) for record in records]


def file_date() -> Callable[[dict], Optional[str]]:
    """``file_dates`` one record at a time, each file looked at once (a log of many records is one file)."""
    from .derive.record import iso_utc

    seen: dict = {}

    def date_of(record: dict) -> Optional[str]:
        path = (record.get("source") or {}).get("file")
        if record.get("started_at") or not path:
            return None
        if path not in seen:
            try:
                seen[path] = iso_utc(os.stat(path).st_mtime)
            except OSError:
                seen[path] = None
        return seen[path]
    return date_of


def read_records(path: Union[str, os.PathLike]) -> list:
    """The run records of a records file (JSONL, a JSON array, pretty-printed objects). Each line that is
    not a record is skipped with one warning naming the file, the line and why; a file with no record at all
    raises ``UsageError``."""
    from .sources.records_io import load_records

    return load_records(os.fspath(path))


def _records_of(given: PathOrRecords) -> list:
    """Records given as a records file path, a list of records, or a list of paths and records."""
    from .sources import reader

    if isinstance(given, (str, os.PathLike)):
        return reader.records([os.fspath(given)])
    if isinstance(given, dict):
        return [given]
    out = []
    for item in given:
        out += reader.records([os.fspath(item)]) if isinstance(item, (str, os.PathLike)) else [item]
    return out


def _side_label(given, tags: Optional[Mapping[str, str]], default: str) -> str:
    """How a picture names a side: its tag filter (``ttft=0.3``), else its file's name, else ``default``."""
    if tags:
        return " ".join(f"{k}={v}" for k, v in tags.items())
    if isinstance(given, (str, os.PathLike)):
        from .core.safe import one_line
        from .core.writer import show_path

        return one_line(show_path(os.path.basename(os.fspath(given))))
    return default


def _select_sides(command: str, base: Optional[PathOrRecords], cand: Optional[PathOrRecords],
                  base_tags: Optional[Mapping[str, str]], cand_tags: Optional[Mapping[str, str]]) -> tuple:
    """(base records, candidate records) as ``compare`` and ``check`` choose them: two sides, each filtered by
    its tags, or both from ``base`` by tags when ``cand`` is None; ``UsageError`` when a side is empty."""
    from .sources.records_io import select

    if cand is None:
        if not (base_tags and cand_tags):
            raise UsageError(f"phasewrap {command}: give two files (BASE CAND), or one file with --base-tag K=V "
                             "and --cand-tag K=V to select the two groups")
        records = _records_of(base)
        base_records, cand_records = select(records, dict(base_tags)), select(records, dict(cand_tags))
    else:
        base_records, cand_records = _records_of(base), _records_of(cand)
        if base_tags:
            base_records = select(base_records, dict(base_tags))
        if cand_tags:
            cand_records = select(cand_records, dict(cand_tags))
    for side, chosen in (("base", base_records), ("candidate", cand_records)):
        if not chosen:
            raise UsageError(f"phasewrap {command}: no {side} records selected; check the file or the tag filter")
    return base_records, cand_records


def compare(base: PathOrRecords, cand: Optional[PathOrRecords] = None, *,
            base_tags: Optional[Mapping[str, str]] = None, cand_tags: Optional[Mapping[str, str]] = None,
            plot: Optional[str] = None) -> dict:
    """Compare two sets of runs phase by phase, as ``phasewrap compare`` does (``compare.compare`` documents
    the result). ``base`` / ``cand``: records or records files; with ``cand=None``, both sides come from
    ``base``, chosen by ``base_tags`` / ``cand_tags`` (``{key: value}``). ``plot``: also draw per-phase bars."""
    from .method.compare import compare as compare_records

    base_records, cand_records = _select_sides("compare", base, cand, base_tags, cand_tags)
    result = compare_records(base_records, cand_records)
    if plot:
        from .present.plot import PlotUnavailable, compare_bars
        labels = (_side_label(base, base_tags, "base"), _side_label(cand if cand is not None else base, cand_tags,
                                                                     "candidate"))
        try:
            compare_bars(base_records, cand_records, plot, labels)
        except (PlotUnavailable, ValueError) as exc:
            log.warning("--plot: %s", exc)
    return result


def diagnose(records: PathOrRecords) -> list:
    """The findings (``diagnose.Finding``: bottleneck, evidence, next step) for a set of runs, as
    ``phasewrap diagnose`` prints them. ``records``: records or records files."""
    from .method.diagnose import diagnose as _diagnose

    return _diagnose(_records_of(records))


def plot(inputs: Union[str, os.PathLike, Sequence], output: Union[str, os.PathLike], *,
         compare: bool = False) -> str:
    """Draw a timeline of the runs in ``inputs`` (captures, capture directories, records files) into
    ``output`` (.png, .svg or .html); with ``compare=True``, ``inputs`` are BASE and CAND records and the
    picture is per-phase bars. Returns the output path. Needs the plot extra (matplotlib)."""
    from .present.plot import compare_bars, load_runs, timeline

    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    inputs = [os.fspath(i) for i in inputs]
    output = os.fspath(output)
    if compare:
        if len(inputs) != 2:
            raise UsageError("phasewrap plot --compare: give exactly two record files, BASE and CAND")
        return compare_bars(read_records(inputs[0]), read_records(inputs[1]), output,
                            (_side_label(inputs[0], None, "base"), _side_label(inputs[1], None, "candidate")))
    return timeline(load_runs(inputs), output)


def report(inputs: Union[str, os.PathLike, Sequence], output: Union[str, os.PathLike], *,
           by: Optional[str] = None, trace: Optional[str] = None) -> str:
    """One self-contained HTML page for the runs in ``inputs`` (captures, capture directories, records files):
    tables, diagnosis, environment and the timeline. ``by="host"`` adds the by-host table on top; ``trace``: also
    write the runs as a Chrome trace-event / Perfetto file. Returns the output path."""
    from .present.html_report import write_report

    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    inputs = [os.fspath(i) for i in inputs]
    from .present.plot import load_runs
    from .present.sweep_html import render_html as sweep_html

    views = load_runs(inputs)
    records = [v.record for v in views if v.record]
    sections = tuple(s for s in (sweep_html(records),) if s)  # a sweep: its diagnosis per variant, up top
    if by == "host":
        from .method.byhost import table
        from .present.byhost import render_html

        sections = (render_html(table(records)),) + sections
    if trace:
        from .core.writer import write_file
        from .present.export.trace import serialize

        write_file(os.fspath(trace), serialize(views), "--trace")
    return write_report(inputs, os.fspath(output), sections=sections)


def plan(command: Sequence[str], *, sweep=None, runs: int = 1, shards: int = 1) -> list:
    """The recorded runs of ``run(command, sweep=sweep, runs=runs)``, numbered, with the shard of ``shards``
    that runs each: ``[{"index", "shard", "shards", "repeat", "tags", "command"}]``. Nothing runs."""
    from .method.fleet import plan as plan_items
    from .method.fleet import shard_of
    from .method.session import variants

    command = list(command[1:] if list(command[:1]) == ["--"] else command)
    if not command or not command[0]:
        raise UsageError("phasewrap plan: no command given; usage: phasewrap plan [options] -- CMD [ARGS...]")
    try:
        combos = variants(command, _sweeps(sweep))
    except ValueError as exc:
        raise UsageError(f"phasewrap plan: {exc}") from None
    items = plan_items(len(combos), runs)
    if shards > len(items):
        raise UsageError(f"phasewrap plan: --shards {shards}: the plan has only {len(items)} run(s); use at most "
                         f"{len(items)} shards")
    return [{"index": it.index, "shard": shard_of(it.index, len(items), shards), "shards": shards,
             "repeat": it.repeat, "tags": combos[it.variant][0], "command": combos[it.variant][1]} for it in items]


def merge(inputs: Sequence, output: Optional[str] = None):
    """Merge record files and directories (see ``wrapper.merge``); writes ``output`` (``-`` stdout) atomically
    when given. Returns (``Merged``, number of files read). Raises ``UsageError`` when no record was found."""
    from .core.writer import write_file
    from .method.merge import collect, merge as merge_records
    from .present.export.jsonl import lines as serialize_lines

    read, problems = collect([os.fspath(p) for p in inputs])
    for line in problems:
        log.warning("%s", line)
    merged = merge_records(read, problems)
    if not merged.records:
        raise UsageError("phasewrap merge: no run records found in " + ", ".join(map(os.fspath, inputs)) +
                         "; point to the files written by `phasewrap run --jsonl`")
    if output is not None:
        write_file(os.fspath(output), serialize_lines(merged.records), "-o")
    return merged, len(read)


def by_host(records: PathOrRecords, *, plot: Optional[str] = None) -> dict:
    """The runs side by side per host (``byhost.table``: per-phase medians, the difference to the other hosts,
    outliers), as ``compare --by host`` shows it. ``records``: records, records files, or a merged file.
    ``plot``: also draw per-phase bars per host (.png, .svg or .html)."""
    from .method.byhost import table

    records = _records_of(records)
    if plot:
        from .present.byhost import bars_bytes
        from .core.writer import write_file
        from .present.plot import format_of

        write_file(os.fspath(plot), bars_bytes(records, format_of(os.fspath(plot))), "--plot")
    return table(records)


def diagnose_by_host(records: PathOrRecords) -> dict:
    """``{host: findings}``: ``diagnose`` on each host's runs on its own, hosts in first-seen order."""
    from .method.byhost import group
    from .method.diagnose import diagnose as _diagnose

    return {host: _diagnose(runs) for host, runs in group(_records_of(records)).items()}


def _baseline_target(name: Optional[str], directory: Optional[str]) -> Optional[str]:
    """The file ``run(save_baseline=name)`` will write, its store made and checked before anything runs."""
    if name is None:
        return None
    from .sources import baselines as store

    store.check_name(name, "--save-baseline")
    directory = store.store_dir(directory)
    store.prepare_dir(directory, "--save-baseline")
    return store.path_of(directory, name)


def _save_baseline(records: list, path: str, name: str) -> bool:
    """Write the baseline file whole; False (and an error line) when it can't be written."""
    from .core.writer import OutputError, show_path, write_file
    from .present.export.jsonl import lines

    try:
        write_file(path, lines(records), "--save-baseline")
    except OutputError as exc:
        log.error("%s", exc)
        return False
    log.info("baseline %s saved: %s (%d record(s))", name, show_path(path), len(records))
    return True


def _label(given, tags: Optional[Mapping[str, str]], baseline: Optional[str] = None) -> str:
    """Where a side came from, for the reports: a file name, ``baseline NAME``, or ``records``; tags after."""
    from .core.writer import show_path

    if baseline is not None:
        text = f"baseline {baseline}"
    elif isinstance(given, (str, os.PathLike)):
        text = show_path(os.fspath(given))
    else:
        text = "records"
    return text + "".join(f" [{k}={v}]" for k, v in (tags or {}).items())


def _append_step_summary(markdown_text: str, step_summary: Optional[str]) -> None:
    """Append the Markdown report to GitHub's step summary (``"auto"``: ``$GITHUB_STEP_SUMMARY`` when set)."""
    path = os.environ.get("GITHUB_STEP_SUMMARY") if step_summary == "auto" else step_summary
    if not path:
        return
    from .core.writer import OutputError, append_locked

    try:
        append_locked(path, lambda _first: markdown_text, "$GITHUB_STEP_SUMMARY")
    except OutputError as exc:
        log.warning("%s", exc)


def check(base: Optional[PathOrRecords] = None, cand: Optional[PathOrRecords] = None, *,
          fail_if: Sequence[str] = (), baseline: Optional[str] = None, baseline_dir: Optional[str] = None,
          base_tags: Optional[Mapping[str, str]] = None, cand_tags: Optional[Mapping[str, str]] = None,
          junit: Optional[str] = None, step_summary: Optional[str] = "auto") -> dict:
    """The regression gate, as ``phasewrap check`` runs it: base vs candidate runs against the ``fail_if``
    thresholds (``["ttft>+5%", "load>2s"]``; default ``check.DEFAULT_FAIL_IF``), a metric failing only when
    beyond its threshold and beyond noise (``method.check.check`` documents the result; ``result["outcome"]``
    is ``pass``, ``fail`` or ``cant_tell``).

    The sides are chosen as in ``compare`` (two sides, or one with ``base_tags`` / ``cand_tags``); with
    ``baseline`` the base is that stored baseline (``run(save_baseline=NAME)``) and ``base`` must be None.
    ``junit``: also write a JUnit XML file; ``step_summary``: a file the Markdown report is appended to,
    ``"auto"`` (the default) ``$GITHUB_STEP_SUMMARY`` when set, None not at all. Raises ``UsageError`` for a
    bad threshold, a missing baseline, an empty side or an unwritable ``junit``."""
    from .core.writer import check_writable, write_file
    from .method import check as gate
    from .present.export import check_report

    try:
        thresholds = [gate.parse_threshold(t) for t in (fail_if or gate.DEFAULT_FAIL_IF)]
    except ValueError as exc:
        raise UsageError(f"--fail-if: {exc}") from None
    if junit:
        check_writable("--junit", os.fspath(junit))
    if baseline is not None:
        if base is not None:
            raise UsageError("phasewrap check: give --baseline NAME or BASE, not both (CAND is the only file)")
        from .sources import baselines as store

        if cand is None:
            raise UsageError("phasewrap check: with --baseline NAME give the candidate's records file, CAND")
        base = store.load(store.store_dir(baseline_dir), baseline)
    base_records, cand_records = _select_sides("check", base, cand, base_tags, cand_tags)
    labels = {"base": _label(base, base_tags, baseline),
              "cand": _label(cand if cand is not None else base, cand_tags)}
    result = gate.check(base_records, cand_records, thresholds, labels)
    if junit:
        write_file(os.fspath(junit), check_report.junit(result), "--junit")
    _append_step_summary(check_report.markdown(result) + "\n", step_summary)  # a blank line between reports
    return result


def baselines(baseline_dir: Optional[str] = None) -> list:
    """The baselines in the store (``baseline_dir``, else ``$PHASEWRAP_BASELINE_DIR``, else
    ``./.phasewrap/baselines``), as ``phasewrap baselines`` lists them (``baselines.listing`` documents a row)."""
    from .sources import baselines as store

    return store.listing(store.store_dir(baseline_dir))
