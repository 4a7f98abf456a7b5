"""The library: what each subcommand does, as functions (``import wrapper as phasewrap; phasewrap.run([...])``).

The CLI is one caller of these: it parses arguments, calls one function and maps its exceptions to exit
statuses (``UsageError`` 2, ``StartError`` 127, ``GpuBusy`` 3). Defaults are the CLI's. Warnings go to the
``phasewrap`` logger (the CLI prints them on stderr as ``phasewrap: warning: …``); nothing here prints.

Heavy modules (the launcher, samplers, plotting, statistics) are imported inside the functions that use them,
so ``import wrapper`` stays cheap.
"""
from __future__ import annotations

import logging
import os
from typing import Callable, Iterable, Iterator, Mapping, Optional, Sequence, Union

from .errors import GpuBusy, StartError, UsageError

log = logging.getLogger("phasewrap")

PathOrRecords = Union[str, os.PathLike, Sequence]
EXIT_OUTPUT = 74  # sysexits' EX_IOERR: the child succeeded but its record could not be written

__all__ = ["run", "plan", "merge", "by_host", "diagnose_by_host", "analyze", "compare", "diagnose", "plot", "report", "read_records", "RunRecords",
           "UsageError", "StartError", "GpuBusy"]


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


def _check_seconds(name: str, value, allow_none: bool = True) -> None:
    from . import validate

    if value is None and allow_none:
        return
    maximum = {"interval": validate.MAX_INTERVAL_S, "timeout_s": validate.MAX_TIMEOUT_S}.get(name, validate.MAX_GRACE_S)
    try:
        validate.check_seconds(name, value, maximum)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _check_outputs(jsonl, csv, capture_dir, plot) -> None:
    from .present.export import csvlog
    from .core.writer import OutputPathError, check_writable, show_path

    for option, path in (("--jsonl", jsonl), ("--csv", csv), ("--plot", plot)):
        if path:
            check_writable(option, path)
    if csv and csv != "-" and os.path.isfile(csv):
        with open(csv, "rb") as fh:
            problem = csvlog.header_problem(fh.read(1 << 16))
        if problem:
            raise OutputPathError(f"--csv: {show_path(csv)} {problem}; give a new file name (nothing was appended)")
    if capture_dir:
        if os.path.exists(capture_dir) and not os.path.isdir(capture_dir):
            raise OutputPathError(f"--capture: {capture_dir} is not a directory; give a directory")
        try:
            os.makedirs(capture_dir, exist_ok=True)
        except OSError as exc:
            raise OutputPathError(f"--capture: cannot create {capture_dir} ({exc.strerror}); choose another "
                                  "directory") from None
        if not os.access(capture_dir, os.W_OK):
            raise OutputPathError(f"--capture: cannot write in {capture_dir} (permission denied)")


def _append_outputs(record: dict, jsonl: Optional[str], csv: Optional[str]) -> bool:
    """Append the record to the JSONL and CSV files, each on its own; a failure is logged as an error.
    Returns False when an output could not be written."""
    from .present.export import csvlog
    from .present.export import jsonl as jsonl_format
    from .core.writer import OutputError, append_locked, show_path

    ok = True
    if jsonl:
        try:
            append_locked(jsonl, lambda _first: jsonl_format.line(record), "--jsonl")
        except OutputError as exc:
            log.error("%s", exc)
            ok = False
    if csv:
        dropped: list = []

        def make(first: Optional[str]) -> str:
            text, lost = csvlog.render([record], first)
            dropped.extend(lost)
            return text

        try:
            append_locked(csv, make, "--csv")
        except OutputError as exc:
            log.error("%s", exc)
            return False
        if dropped:
            log.warning("--csv: %s's header has no column for tag(s) %s; they are in the JSONL record only "
                        "(start a new CSV file to get columns for them)", show_path(csv), ", ".join(dropped))
    return ok


def _fleet_outputs(session, jsonl: Optional[str], csv: Optional[str], capture_dir: Optional[str]):
    """(jsonl path for a run_id, csv path for a run_id, capture directory to check, the one capture directory
    or None when it differs per run) with the ``{host}``,
    ``{shard}``, ``{sweep_id}``, ``{run_id}`` placeholders filled in; a ``{run_id}`` capture directory is
    made per run through ``session.capture_dir_for``."""
    from .method.fleet import capture_check_dir, expand, placeholders_in

    info = session.fleet

    def per_run(template: Optional[str]):
        return lambda run_id: expand(template, info, run_id) if template else template

    if capture_dir and placeholders_in(capture_dir):
        template = expand(capture_dir, info, "{run_id}")

        def capture_dir_for(run_id: str) -> str:
            path = template.replace("{run_id}", run_id)
            os.makedirs(path, exist_ok=True)
            return path

        session.capture_dir_for = capture_dir_for
        fixed = None if "{run_id}" in template else template
        return per_run(jsonl), per_run(csv), fixed or capture_check_dir(template), fixed
    return per_run(jsonl), per_run(csv), capture_dir, capture_dir


def _exporters(prom_textfile: Optional[str], mlflow: Optional[str], session) -> list:
    """One callable per exporter asked for, each taking a finished record; checked before anything runs."""
    out = []
    if prom_textfile is not None:
        from .present.export import prometheus

        out.append(prometheus.Exporter(prom_textfile, session.fleet))
    if mlflow is not None:
        from .present.export import mlflow as mlflow_export

        def capture_for(run_id: str) -> Optional[str]:
            directory = session.capture_dir_for(run_id) if session.capture_dir_for else session.base.capture_dir
            return os.path.join(directory, run_id + ".capture.jsonl") if directory else None

        out.append(mlflow_export.Exporter(mlflow or None, capture_for=capture_for))
    return out


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


def _plot_after_run(records: list, capture_dir: Optional[str], path: str) -> None:
    from .core.writer import show_path
    from .present.plot import PlotUnavailable, load_runs, timeline, views_from_records

    inputs = [os.path.join(capture_dir, r["run_id"] + ".capture.jsonl") for r in records] if capture_dir else []
    try:
        timeline(load_runs(inputs) if inputs else views_from_records(records), path)
        log.info("timeline written to %s", show_path(path))
    except (PlotUnavailable, ValueError, OSError) as exc:
        log.warning("--plot: %s", exc)


def run(command: Sequence[str], *, ready: Optional[str] = None, first_token: Optional[str] = None, marks=None,
        profile: str = "auto", runs: int = 1, warmup: int = 0, cold: bool = False, sweep=None, gpu: str = "auto",
        cpu: str = "auto", interval: float = 0.1, capture_dir: Optional[str] = None, jsonl: Optional[str] = None,
        csv: Optional[str] = None, require_idle_gpu: bool = False, timeout_s: Optional[float] = None,
        quiet: bool = True, ready_stream: str = "any", first_token_stream: str = "any",
        tags: Optional[Mapping[str, str]] = None, note: Optional[str] = None, pty: bool = False,
        kill_grace_s: float = 5.0, drop_caches: bool = False, model_files: Sequence[str] = (),
        fingerprint: bool = True, request: Optional[str] = None, max_tokens: Optional[int] = None,
        api: str = "openai", url: Optional[str] = None, model: Optional[str] = None, plot: Optional[str] = None,
        on_record: Optional[Callable[[dict], None]] = None,
        on_progress: Optional[Callable[[str], None]] = None, shard: Optional[str] = None,
        shards: Optional[int] = None, sweep_id: Optional[str] = None, prom_textfile: Optional[str] = None,
        mlflow: Optional[str] = None) -> RunRecords:
    """Run ``command`` ``warmup + runs`` times per sweep variant, measured as ``phasewrap run`` measures it.

    The same defaults as the CLI (GPU and CPU samplers on, 0.1 s interval), except ``quiet=True``: the child's
    output is not passed through to this process's stdout/stderr. ``marks``: ``{name: regex}`` or
    ``[(name, regex[, stream])]``; ``sweep``: ``{name: [values]}`` or ``["name=v1,v2"]`` (``{name}`` in the
    command is replaced); ``tags``: ``{key: value}``. ``jsonl`` / ``csv`` append each record as it is made (an
    interrupt never loses a finished run); ``plot`` draws the timeline afterwards. ``on_record(record)`` is
    called after each run, ``on_progress(text)`` before each of several runs.

    SIGINT/SIGTERM/SIGHUP during the call go to the running child (its record says ``interrupted``); one that
    comes between two runs stops the session there (``stopped_by``, exit status 128+N).

    Beyond one machine: ``shard`` ``"I/N"`` or ``"auto"`` (Slurm array / Kubernetes Indexed Job variables,
    ``shards`` for Kubernetes) runs only that slice of the plan; every record carries ``fleet`` (host, shard,
    sweep_id, scheduler, job_id, plan index); ``jsonl``, ``csv`` and ``capture_dir`` may hold ``{host}``,
    ``{shard}``, ``{sweep_id}`` and ``{run_id}``. ``prom_textfile`` (a directory) and ``mlflow`` (a tracking
    URI, ``""`` for the local default) export each record (extras ``prometheus`` / ``mlflow``).

    Returns the records (``RunRecords``, a list with ``exit_status``). Raises ``UsageError`` for bad options
    or output paths (before anything runs), ``GpuBusy`` with ``require_idle_gpu`` when the GPU is in use,
    ``StartError`` when the command can't be started.
    """
    from .derive.pipeline import RunConfig
    from .method.session import SessionConfig, check, run_session

    command = list(command[1:] if list(command[:1]) == ["--"] else command)
    for name, value in (("runs", runs), ("warmup", warmup)):
        if not isinstance(value, int) or isinstance(value, bool) or value < (1 if name == "runs" else 0):
            raise UsageError(f"phasewrap run: {name} must be a whole number >= {1 if name == 'runs' else 0}, "
                             f"got {value!r}")
    _check_seconds("interval", interval, allow_none=False)
    _check_seconds("timeout_s", timeout_s)
    _check_seconds("kill_grace_s", kill_grace_s, allow_none=False)
    base = RunConfig(command=command, profile=profile, ready=ready, ready_stream=ready_stream,
                     first_token=first_token, first_token_stream=first_token_stream, marks=_marks(marks),
                     tags={str(k): str(v) for k, v in (tags or {}).items()}, note=note, quiet=quiet, pty=pty,
                     timeout_s=timeout_s, kill_grace_s=kill_grace_s, capture_dir=capture_dir, request=request,
                     max_tokens=max_tokens, api=api, url=url, model=model)
    session = SessionConfig(base=base, runs=runs, warmup=warmup, cold=cold, drop_caches=drop_caches,
                            model_files=list(model_files), sweeps=_sweeps(sweep), fingerprint=fingerprint)
    try:
        prepared = check(session)
    except ValueError as exc:
        raise UsageError(f"phasewrap run: {exc}") from None
    from .method import fleet as _fleet

    session.items, session.fleet = _fleet.setup(shard, shards, sweep_id, len(prepared), runs)
    jsonl_for, csv_for, capture_check, capture_dir = _fleet_outputs(session, jsonl, csv, capture_dir)
    _check_outputs(jsonl_for("RUN_ID"), csv_for("RUN_ID"), capture_check, plot)
    exporters = _exporters(prom_textfile, mlflow, session)
    for warning in prepared[0].warnings:
        log.warning("%s", warning.text)
    _refuse_or_warn_busy_gpu(gpu, require_idle_gpu)

    unwritten: list = []

    def finished(record: dict) -> None:
        if not _append_outputs(record, jsonl_for(record["run_id"]), csv_for(record["run_id"])):
            unwritten.append(record["run_id"])
        for export in exporters:
            export(record)
        if on_record is not None:
            on_record(record)

    from .measure.sampling import make_samplers

    from .measure.signals import SignalGuard

    with SignalGuard() as signals:
        records, status = run_session(session, prepared, on_record=finished,
                                      on_progress=on_progress or (lambda text: log.info("%s", text)),
                                      make_samplers=lambda: make_samplers(gpu, cpu, interval), signals=signals)
    out = RunRecords(records)
    out.exit_status = status
    if signals.received is not None and (not records or records[-1]["status"] != "interrupted"):
        out.stopped_by = signals.received
    out.unwritten = unwritten
    if plot and records:
        _plot_after_run(records, capture_dir, plot)
    if unwritten:
        log.error("%d record(s) not written to every output (%s); see the errors above", len(unwritten),
                  ", ".join(unwritten))
        out.exit_status = status or EXIT_OUTPUT
    return out


def iter_analyze(paths: Union[str, os.PathLike, Iterable], *, ready: Optional[str] = None,
                 ready_stream: str = "any", first_token: Optional[str] = None, first_token_stream: str = "any",
                 marks=None, profile: str = "auto", framework: Optional[str] = None, dmon: Optional[str] = None,
                 query_gpu: Optional[str] = None, pidstat: Optional[str] = None, utc_offset_s: Optional[int] = None,
                 on_progress: Optional[Callable[[str], None]] = None) -> Iterator[dict]:
    """``analyze``'s records one by one as they are made (a log of millions of requests in flat memory).
    Every input is checked before the first record comes; ``UsageError`` names a bad one."""
    from .sources.analyze import SideFiles
    from .sources.analyze import iter_analyze as iter_files
    from .derive.pipeline import RunConfig

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    config = RunConfig(command=[], profile=profile, ready=ready, ready_stream=ready_stream, first_token=first_token,
                       first_token_stream=first_token_stream, marks=_marks(marks))
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
            on_progress: Optional[Callable[[str], None]] = None) -> list:
    """Run records from recorded output, as ``phasewrap analyze`` makes them: captures (files or directories),
    timestamped logs, asciinema recordings, plain logs; ``dmon`` / ``query_gpu`` / ``pidstat``: side files.

    The marker options re-apply other markers to a capture. Raises ``UsageError`` naming a bad input.
    """
    return list(iter_analyze(paths, ready=ready, ready_stream=ready_stream, first_token=first_token,
                             first_token_stream=first_token_stream, marks=marks, profile=profile, framework=framework,
                             dmon=dmon, query_gpu=query_gpu, pidstat=pidstat, utc_offset_s=utc_offset_s,
                             on_progress=on_progress))


def read_records(path: Union[str, os.PathLike]) -> list:
    """The run records of a records file (JSONL, a JSON array, pretty-printed objects). Each line that is
    not a record is skipped with one warning naming the file, the line and why; a file with no record at all
    raises ``UsageError``."""
    from .sources.records_io import load_records

    return load_records(os.fspath(path))


def _records_of(given: PathOrRecords) -> list:
    """Records given as a records file path, a list of records, or a list of paths and records."""
    if isinstance(given, (str, os.PathLike)):
        return read_records(given)
    if isinstance(given, dict):
        return [given]
    out = []
    for item in given:
        out += read_records(item) if isinstance(item, (str, os.PathLike)) else [item]
    return out


def compare(base: PathOrRecords, cand: Optional[PathOrRecords] = None, *,
            base_tags: Optional[Mapping[str, str]] = None, cand_tags: Optional[Mapping[str, str]] = None,
            plot: Optional[str] = None) -> dict:
    """Compare two sets of runs phase by phase, as ``phasewrap compare`` does (``compare.compare`` documents
    the result). ``base`` / ``cand``: records or records files; with ``cand=None``, both sides come from
    ``base``, chosen by ``base_tags`` / ``cand_tags`` (``{key: value}``). ``plot``: also draw per-phase bars."""
    from .method.compare import compare as compare_records
    from .sources.records_io import select

    if cand is None:
        if not (base_tags and cand_tags):
            raise UsageError("phasewrap compare: give two files (BASE CAND), or one file with --base-tag K=V and "
                             "--cand-tag K=V to select the two groups")
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
            raise UsageError(f"phasewrap compare: no {side} records selected; check the file or the tag filter")
    result = compare_records(base_records, cand_records)
    if plot:
        from .present.plot import PlotUnavailable, compare_bars
        try:
            compare_bars(base_records, cand_records, plot)
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
        return compare_bars(read_records(inputs[0]), read_records(inputs[1]), output)
    return timeline(load_runs(inputs), output)


def report(inputs: Union[str, os.PathLike, Sequence], output: Union[str, os.PathLike], *,
           by: Optional[str] = None) -> str:
    """One self-contained HTML page for the runs in ``inputs`` (captures, capture directories, records files):
    tables, diagnosis, environment and the timeline. ``by="host"`` adds the by-host table on top. Returns the
    output path."""
    from .present.html_report import write_report

    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    inputs = [os.fspath(i) for i in inputs]
    sections = ()
    if by == "host":
        from .method.byhost import table
        from .present.byhost import render_html
        from .present.plot import load_runs

        sections = (render_html(table([v.record for v in load_runs(inputs) if v.record])),)
    return write_report(inputs, os.fspath(output), sections=sections)


def plan(command: Sequence[str], *, sweep=None, runs: int = 1, shards: int = 1) -> list:
    """The recorded runs of ``run(command, sweep=sweep, runs=runs)``, numbered, with the shard of ``shards``
    that runs each: ``[{"index", "shard", "shards", "repeat", "tags", "command"}]``. Nothing runs."""
    from .method.fleet import plan as plan_items
    from .method.fleet import shard_of
    from .method.session import variants

    command = list(command[1:] if list(command[:1]) == ["--"] else command)
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
