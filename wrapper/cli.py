"""Command line: parse arguments, call the library, map outcomes to exit statuses. No measuring logic here."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from . import __version__, profiles
from .export import csvlog, jsonl, summary
from .export.writer import OutputError, OutputPathError, append_locked, check_writable, show_path, write_file
from .launch import StartError
from .markers import ANY
from .pagecache import PageCacheError
from .records_io import RecordsError, parse_tag_filters, read_records, select
from .runner import RunConfig
from .session import SessionConfig, check, parse_sweep, run_session
from .sampling import busy_gpu_processes, make_samplers

EXIT_USAGE = 2
EXIT_NOT_FOUND = 127
EXIT_BUSY = 3
EXIT_OUTPUT = 74  # sysexits' EX_IOERR: the child succeeded but its record could not be written


class UsageError(Exception):
    """Bad input: one line naming the option and the fix; exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, like every other usage error here
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _key_value(option: str):
    def parse(text: str) -> tuple[str, str]:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise argparse.ArgumentTypeError(f"{option} expects KEY=VALUE, got {text!r}")
        return key, value
    return parse


def _mark(text: str) -> tuple[str, str, str]:
    name, sep, regex = text.partition("=")
    stream = ANY
    if "@" in name:
        name, _, stream = name.partition("@")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"--mark expects NAME=REGEX or NAME@out|err=REGEX, got {text!r}")
    return name, regex, stream


def _number(option: str, convert=int, minimum=1, above=False):
    """An argparse type: ``convert`` the text and require ``>= minimum`` (``> minimum`` when ``above``)."""
    what = "a whole number" if convert is int else "seconds"

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} expects {what}, got {text!r}") from None
        if value < minimum or (above and value == minimum):
            raise argparse.ArgumentTypeError(f"{option} must be {'>' if above else '>='} {minimum}, got {text!r}")
        return value
    return parse


def _positive_int(option: str):
    return _number(option, int, 1)


def _non_negative_int(option: str):
    return _number(option, int, 0)


def _positive(option: str):
    return _number(option, float, 0, above=True)


RUN_EPILOG = """\
examples:
  phasewrap run -- llama-completion -m model.gguf -p "Hello" -n 64 -no-cnv
  phasewrap run --jsonl runs.jsonl --csv runs.csv --tag quant=Q4_K_M --tag ctx=4096 -- llama-completion ...
  phasewrap run --ready 'model loaded' --first-token-stream out -- python my_script.py
  phasewrap run --mark weights='Loading weights: 100%' --capture caps/ -- python my_script.py

phases: load_s = launch -> ready marker; ttft_s = ready -> first token; decode_s = first -> last token;
total_s = launch -> exit. A phase whose marker never appeared is null, with the reason under "missing".
The child's stdout/stderr pass through unchanged; the summary goes to stderr after the run.
Exit status: the child's, 128+N if signal N ended it, 127 if it could not start, 2 for bad options.
"""


def _add_marker_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("markers and profiles")
    g.add_argument("--profile", default="auto", choices=profiles.names(), metavar="NAME",
                   help="framework profile: " + ", ".join(profiles.names()) + " (default: auto, from the "
                   "executable's name and output; falls back to generic)")
    g.add_argument("--ready", metavar="REGEX", help="the model is loaded and accepts input (overrides the profile)")
    g.add_argument("--ready-stream", choices=("out", "err", "any"), default=ANY, help="stream --ready watches (default any)")
    g.add_argument("--first-token", metavar="REGEX", help="marks the first token (default: the first bytes on the "
                   "token stream after ready that are not the echoed prompt)")
    g.add_argument("--first-token-stream", choices=("out", "err", "any"), default=ANY,
                   help="stream --first-token watches (default any)")
    g.add_argument("--mark", action="append", type=_mark, default=[], metavar="NAME[@STREAM]=REGEX",
                   help="an extra named marker, repeatable (e.g. imports='imports done' or weights@err='100%%')")


def _add_run(sub) -> None:
    run = sub.add_parser("run", help="wrap a command and measure its phases", epilog=RUN_EPILOG,
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Launch CMD, pass its output through, timestamp it, and report "
                         "load / time to first token / decode.")
    _add_marker_options(run)
    out = run.add_argument_group("outputs")
    out.add_argument("--format", choices=("table", "json", "none"), default="table",
                     help="table: summary on stderr (default); json: the record on stdout after the run; none")
    out.add_argument("--jsonl", metavar="FILE", help="append the record as one JSON line (locked)")
    out.add_argument("--csv", metavar="FILE", help="append one measurement-log row (header written once)")
    out.add_argument("--capture", metavar="DIR", help="write the timestamped raw output of each run to "
                     "DIR/<run_id>.capture.jsonl as it arrives (for phasewrap analyze)")
    out.add_argument("--tag", action="append", type=_key_value("--tag"), default=[], metavar="KEY=VALUE",
                     help="label the run (quant=Q4_K_M, ctx=4096); repeatable; each tag is a CSV column")
    out.add_argument("--note", metavar="TEXT", help="free text stored with the record")
    out.add_argument("-q", "--quiet", action="store_true", help="don't pass the child's output through")
    ch = run.add_argument_group("child")
    ch.add_argument("--pty", action="store_true", help="give the child a pseudo-terminal on stdout (for "
                    "programs that block-buffer when piped)")
    ch.add_argument("--timeout", type=_positive("--timeout"), metavar="S", help="SIGTERM the child's process "
                    "group after S seconds (SIGKILL after --kill-grace); status becomes timeout")
    ch.add_argument("--kill-grace", type=_positive("--kill-grace"), default=5.0, metavar="S",
                    help="seconds between SIGTERM and SIGKILL (default 5)")
    me = run.add_argument_group("method: repeats, cold/warm, sweeps")
    me.add_argument("-n", "--runs", type=_positive_int("--runs"), default=1, metavar="N",
                    help="recorded runs per variant (3-5 recommended; statistics need >= 4 per side to "
                    "tell a difference from noise)")
    me.add_argument("--warmup", type=_non_negative_int("--warmup"), default=0, metavar="N",
                    help="runs before the recorded ones, kept with warmup: true and left out of statistics")
    me.add_argument("--cold", action="store_true", help="evict the model files from the page cache before each "
                    "run (posix_fadvise DONTNEED; no root needed)")
    me.add_argument("--drop-caches", action="store_true", help="with --cold: drop the whole page cache via "
                    "/proc/sys/vm/drop_caches instead (root only)")
    me.add_argument("--model-file", action="append", default=[], metavar="PATH",
                    help="a model file to label cold/warm and evict (default: found from -m/--model, file "
                    "arguments >= 1 MB, directories of *.gguf/*.safetensors); repeatable")
    me.add_argument("-L", "--sweep", action="append", default=[], metavar="NAME=v1,v2",
                    help="substitute each value for {NAME} in the command and tag the run NAME=value; repeatable "
                    "(every combination runs N times)")
    me.add_argument("--no-env", action="store_true", help="don't record the environment fingerprint")
    me.add_argument("--plot", metavar="FILE", help="also draw the timeline of the run(s) (.png, .svg or .html; "
                    "needs the plot extra and --capture for token ticks and samples)")
    rs = run.add_argument_group("resource sampling (split by phase under \"resources\")")
    rs.add_argument("--gpu", choices=("auto", "nvml", "dmon", "off"), default="auto",
                    help="GPU sampler: NVML (pynvml), `nvidia-smi dmon` (1 s resolution), auto = nvml, then dmon; "
                    "without a GPU the record says why (default auto)")
    rs.add_argument("--cpu", choices=("auto", "psutil", "pidstat", "off"), default="auto",
                    help="process-tree CPU/RSS/disk sampler: psutil, or `pidstat` (1 s resolution); default auto "
                    "= psutil. Use --cpu off to turn it off")
    rs.add_argument("--interval", type=_positive("--interval"), default=0.1, metavar="S",
                    help="seconds between samples of the in-process samplers (default 0.1)")
    rs.add_argument("--require-idle-gpu", action="store_true",
                    help="refuse to run when other processes use the GPU (default: warn)")
    sv = run.add_argument_group("servers (llama-server, vLLM, SGLang, ollama serve, any OpenAI-compatible server)")
    sv.add_argument("--request", metavar="PROMPT", help="once the server is ready, send one streaming completion "
                    "with this prompt, measure TTFT and decode from its events, then stop the server")
    sv.add_argument("--max-tokens", type=_positive_int("--max-tokens"), metavar="N",
                    help="tokens to generate for --request (default 128)")
    sv.add_argument("--api", choices=("openai", "llama"), default="openai",
                    help="openai: POST /v1/completions (default); llama: llama.cpp's POST /completion")
    sv.add_argument("--url", metavar="URL", help="server base URL (default: from --host/--port in the command, "
                    "else the profile's default port on 127.0.0.1)")
    sv.add_argument("--model", metavar="NAME", help="model name to send (vLLM/SGLang: default asked from /v1/models)")
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD [ARGS...]")


def _add_analyze(sub) -> None:
    ana = sub.add_parser("analyze", help="the same run records from captured output: captures, timestamped logs, "
                         "asciinema recordings, plain logs", formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Re-derive run records from recorded output. A phasewrap capture is replayed "
                         "exactly (re-apply other markers with the marker options); a log whose lines carry times "
                         "(ts, ISO 8601, llama.cpp --log-timestamps, journald) and an asciinema .cast are "
                         "timed per line/event with stdout and stderr merged; a log without times gives the "
                         "framework's own figures only (phases_source: reported).",
                         epilog="examples:\n  phasewrap analyze caps/\n"
                         "  phasewrap analyze --ready 'Loading weights: 100%' run.cast --dmon dmon.txt "
                         "--query-gpu q.csv\n  phasewrap analyze --format csv server.log")
    _add_marker_options(ana)
    ana.add_argument("files", nargs="+", metavar="FILE", help="capture files or directories, logs, .cast files")
    ana.add_argument("--format", choices=("table", "json", "csv"), default="table",
                     help="table (default), json (an array of records) or csv (the measurement-log columns)")
    ana.add_argument("--framework", metavar="NAME", help="parse framework figures as this family (default: detect)")
    side = ana.add_argument_group("side files, aligned by wall-clock time")
    side.add_argument("--dmon", metavar="FILE", help="`nvidia-smi dmon -o DT` output recorded beside the run")
    side.add_argument("--query-gpu", metavar="FILE", help="`nvidia-smi --query-gpu=timestamp,... --format=csv -lms N`")
    side.add_argument("--pidstat", metavar="FILE", help="`pidstat -h -H -u -r -d -t -p PID 1` output")
    side.add_argument("--utc-offset", type=int, metavar="SECONDS", help="UTC offset of the machine that wrote "
                      "dmon/query-gpu times (default: this machine's zone)")


def _add_env(sub) -> None:
    env = sub.add_parser("env", help="print the environment fingerprint recorded with each run",
                         description="Print host, CPU, memory, GPUs, driver/CUDA, and for a command its executable "
                         "(path, size, sha256, version) and model files (size, disk, filesystem) as JSON.",
                         epilog="example: phasewrap env -- llama-completion -m model.gguf")
    env.add_argument("--model-file", action="append", default=[], metavar="PATH")
    env.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD [ARGS...]")


def _add_compare(sub) -> None:
    cmp = sub.add_parser("compare", help="compare two sets of runs phase by phase, and list what else differs",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Per phase: each side's median, the difference, the ratio and whether it is "
                         "beyond noise (Mann-Whitney U at 0.05 with >= 3 runs a side, else non-overlapping "
                         "ranges). Lists every condition that differs (hardware, driver, binary, arguments, "
                         "prompt, max tokens, cache state, tags) and warns when more than one changed.",
                         epilog="examples:\n  phasewrap compare base.jsonl cand.jsonl\n"
                         "  phasewrap compare runs.jsonl --base-tag quant=Q8_0 --cand-tag quant=Q4_K_M")
    cmp.add_argument("base", metavar="BASE", help="records file (JSONL) of the baseline")
    cmp.add_argument("cand", metavar="CAND", nargs="?", help="records file of the candidate")
    cmp.add_argument("--base-tag", action="append", default=[], metavar="K=V", help="select the baseline from BASE")
    cmp.add_argument("--cand-tag", action="append", default=[], metavar="K=V", help="select the candidate from BASE")
    cmp.add_argument("--format", choices=("table", "json"), default="table")
    cmp.add_argument("--plot", metavar="FILE", help="also draw per-phase bars with min-max whiskers")


def _add_diagnose(sub) -> None:
    dia = sub.add_parser("diagnose", help="name the bottleneck and the smallest next step from recorded runs",
                         epilog="example: phasewrap diagnose runs.jsonl")
    dia.add_argument("files", nargs="+", metavar="FILE", help="records files (JSONL)")
    dia.add_argument("--format", choices=("table", "json"), default="table")


def _add_plot(sub) -> None:
    plo = sub.add_parser("plot", help="draw a timeline (phases, tokens, GPU/CPU/disk panels) or compare bars",
                         epilog="examples:\n  phasewrap plot caps/ -o timeline.png\n"
                         "  phasewrap plot --compare base.jsonl cand.jsonl -o bars.svg",
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    plo.add_argument("inputs", nargs="+", metavar="INPUT", help="capture files/directories or records files")
    plo.add_argument("-o", "--output", required=True, metavar="FILE", help=".png, .svg or .html")
    plo.add_argument("--compare", action="store_true", help="INPUTs are BASE and CAND records: per-phase bars")


def _add_report(sub) -> None:
    rep = sub.add_parser("report", help="one self-contained HTML file: tables, diagnosis, environment, timeline",
                         epilog="example: phasewrap report caps/ runs.jsonl -o report.html")
    rep.add_argument("inputs", nargs="+", metavar="INPUT", help="capture files/directories or records files")
    rep.add_argument("-o", "--output", required=True, metavar="FILE.html")


# One function per subcommand adds its parser; a new subcommand is one more function here and in COMMANDS.
SUBCOMMANDS = (_add_run, _add_analyze, _add_env, _add_compare, _add_diagnose, _add_plot, _add_report)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="phasewrap", description="Split an LLM run into load, time to first token and decode "
                     "by wrapping the unmodified inference command.")
    parser.add_argument("--version", action="version", version=f"phasewrap {__version__}")
    sub = parser.add_subparsers(dest="subcommand", metavar="SUBCOMMAND", parser_class=_Parser)
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def _run_config(args: argparse.Namespace) -> RunConfig:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    return RunConfig(
        command=command, profile=args.profile, ready=args.ready, ready_stream=args.ready_stream,
        first_token=args.first_token, first_token_stream=args.first_token_stream, marks=list(args.mark),
        tags=dict(args.tag), note=args.note, quiet=args.quiet, pty=args.pty, timeout_s=args.timeout,
        kill_grace_s=args.kill_grace, capture_dir=args.capture, request=args.request, max_tokens=args.max_tokens,
        api=args.api, url=args.url, model=args.model,
    )


def _check_outputs(args: argparse.Namespace) -> None:
    for option, path in (("--jsonl", args.jsonl), ("--csv", args.csv)):
        if path:
            check_writable(option, path)
    if args.csv and os.path.isfile(args.csv):
        with open(args.csv, "rb") as fh:
            problem = csvlog.header_problem(fh.read(1 << 16))
        if problem:
            raise OutputPathError(f"--csv: {show_path(args.csv)} {problem}; give a new file name (nothing was "
                                  "appended)")
    if args.capture:
        if os.path.exists(args.capture) and not os.path.isdir(args.capture):
            raise OutputPathError(f"--capture: {args.capture} is not a directory; give a directory")
        try:
            os.makedirs(args.capture, exist_ok=True)
        except OSError as exc:
            raise OutputPathError(f"--capture: cannot create {args.capture} ({exc.strerror}); choose another "
                                  "directory") from None
        if not os.access(args.capture, os.W_OK):
            raise OutputPathError(f"--capture: cannot write in {args.capture} (permission denied)")


def _append_outputs(record: dict, args: argparse.Namespace) -> bool:
    """Append the record to --jsonl and --csv; each output on its own, a failure is one line on stderr.
    Returns False when an output could not be written."""
    ok = True
    if args.jsonl:
        try:
            append_locked(args.jsonl, lambda _first: jsonl.line(record), "--jsonl")
        except OutputError as exc:
            _err(f"phasewrap: {exc}")
            ok = False
    if args.csv:
        dropped: list = []

        def make(first: Optional[str]) -> str:
            text, lost = csvlog.render([record], first)
            dropped.extend(lost)
            return text

        try:
            append_locked(args.csv, make, "--csv")
        except OutputError as exc:
            _err(f"phasewrap: {exc}")
            return False
        if dropped:
            _err(f"phasewrap: --csv: {show_path(args.csv)}'s header has no column for tag(s) {', '.join(dropped)}; "
                 "they are in the JSONL record only (start a new CSV file to get columns for them)")
    return ok


def _out(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _err("phasewrap: stdout closed; output not printed")


def _err(text: str) -> None:
    try:
        sys.stderr.write(text if text.endswith("\n") else text + "\n")
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass


def _diagnosis_block(records: list) -> str:
    from .diagnose import diagnose, render

    return "diagnosis:\n" + render(diagnose(records))


def _session_config(args: argparse.Namespace) -> SessionConfig:
    try:
        sweeps = [parse_sweep(text) for text in args.sweep]
    except ValueError as exc:
        raise UsageError(f"phasewrap run: {exc}") from None
    return SessionConfig(base=_run_config(args), runs=args.runs, warmup=args.warmup, cold=args.cold,
                         drop_caches=args.drop_caches, model_files=list(args.model_file), sweeps=sweeps,
                         fingerprint=not args.no_env)


def cmd_run(args: argparse.Namespace) -> int:
    session = _session_config(args)
    try:
        prepared = check(session)
    except ValueError as exc:
        raise UsageError(f"phasewrap run: {exc}") from None
    _check_outputs(args)
    if args.plot:
        check_writable("--plot", args.plot)
    for warning in prepared[0].warnings:
        _err(f"phasewrap: warning: {warning.text}")
    busy = busy_gpu_processes() if args.gpu != "off" else None
    if busy:
        listing = ", ".join(f"pid {p.get('pid')} ({p.get('name') or '?'}, {p.get('vram_mib') or '?'} MiB)" for p in busy)
        if args.require_idle_gpu:
            _err(f"phasewrap: --require-idle-gpu: the GPU is in use by {listing}; stop them or drop the option")
            return EXIT_BUSY
        _err(f"phasewrap: warning: other processes use the GPU ({listing}); timings are only comparable on an "
             "idle GPU")
    single = len(prepared) == 1 and args.runs + args.warmup == 1
    progress = (lambda _m: None) if args.format == "none" else _err

    lost: list = []

    def on_record(record: dict) -> None:
        if not _append_outputs(record, args):
            lost.append(record["run_id"])
        if args.format == "table" and not single:
            _err(summary.one_line(record))

    try:
        records, status = run_session(session, prepared, on_record=on_record, on_progress=progress,
                                      make_samplers=lambda: make_samplers(args.gpu, args.cpu, args.interval))
    except StartError as exc:
        _err(f"phasewrap: {exc}")
        return EXIT_NOT_FOUND
    except PageCacheError as exc:
        _err(f"phasewrap: {exc}")
        return EXIT_USAGE
    if args.format == "table" and records:
        if single:
            _err(summary.render(records[0]))
        else:
            _err(summary.render_runs(records, tuple(name for name, _ in session.sweeps)))
        _err(_diagnosis_block(records))
    elif args.format == "json":
        _out(jsonl.pretty(records[0] if single else records))
    if args.plot and records:
        _plot_after_run(records, args)
    if lost:
        _err(f"phasewrap: {len(lost)} record(s) not written to every output ({', '.join(lost)}); see the errors above")
        return status or EXIT_OUTPUT
    return status


def _plot_after_run(records: list, args: argparse.Namespace) -> None:
    from . import plot

    inputs = ([os.path.join(args.capture, r["run_id"] + ".capture.jsonl") for r in records] if args.capture else [])
    try:
        views = plot.load_runs(inputs) if inputs else plot.views_from_records(records)
        plot.timeline(views, args.plot)
        _err(f"phasewrap: timeline written to {show_path(args.plot)}")
    except (plot.PlotUnavailable, ValueError, OSError) as exc:
        _err(f"phasewrap: --plot: {exc}")


def _read_records_arg(path: str) -> list:
    records, skipped = read_records(path)
    if skipped:
        first = ", ".join(f"line {n} ({why})" for n, why in skipped[:3])
        _err(f"phasewrap: {path}: skipped {len(skipped)} unreadable line(s): {first}")
    return records


def cmd_analyze(args: argparse.Namespace) -> int:
    from .analyze import AnalyzeError, SideFiles, analyze

    config = RunConfig(command=[], profile=args.profile, ready=args.ready, ready_stream=args.ready_stream,
                       first_token=args.first_token, first_token_stream=args.first_token_stream,
                       marks=list(args.mark))
    side = SideFiles(dmon=args.dmon, query_gpu=args.query_gpu, pidstat=args.pidstat, utc_offset_s=args.utc_offset)
    try:
        records = analyze(args.files, config, side, framework=args.framework, on_progress=_err)
    except AnalyzeError as exc:
        raise UsageError(f"phasewrap analyze: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"phasewrap analyze: {exc}") from None
    if args.format == "json":
        _out(jsonl.pretty(records))
    elif args.format == "csv":
        text, _ = csvlog.render(records, None)
        _out(text)
    else:
        _out("".join(summary.render(r) for r in records))
    return 0


def cmd_env(args: argparse.Namespace) -> int:
    from .env import fingerprint
    from .pagecache import model_files

    command = list(args.command[1:] if args.command[:1] == ["--"] else args.command)
    profile = profiles.resolve("auto", command)[0] if command else None
    files = model_files(command, args.model_file) if command else list(args.model_file)
    _out(jsonl.pretty(fingerprint(command, files, profile.version_args if profile else ())))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from .compare import compare, render_table

    if args.cand is None:
        if not (args.base_tag and args.cand_tag):
            raise UsageError("phasewrap compare: give two files (BASE CAND), or one file with --base-tag K=V and "
                             "--cand-tag K=V to select the two groups")
        records = _read_records_arg(args.base)
        base = select(records, parse_tag_filters(args.base_tag))
        cand = select(records, parse_tag_filters(args.cand_tag))
    else:
        base, cand = _read_records_arg(args.base), _read_records_arg(args.cand)
    for side, chosen in (("base", base), ("candidate", cand)):
        if not chosen:
            raise UsageError(f"phasewrap compare: no {side} records selected; check the file or the tag filter")
    result = compare(base, cand)
    if args.format == "json":
        _out(jsonl.pretty(result))
    else:
        _out(render_table(result))
    if args.plot:
        from . import plot
        try:
            plot.compare_bars(base, cand, args.plot)
        except (plot.PlotUnavailable, ValueError) as exc:
            _err(f"phasewrap: --plot: {exc}")
    return 0


def cmd_diagnose(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from .diagnose import diagnose, render

    records = [r for path in args.files for r in _read_records_arg(path)]
    findings = diagnose(records)
    _out(jsonl.pretty([asdict(f) for f in findings]) if args.format == "json" else render(findings))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from . import plot

    try:
        if args.compare:
            if len(args.inputs) != 2:
                raise UsageError("phasewrap plot --compare: give exactly two record files, BASE and CAND")
            plot.compare_bars(_read_records_arg(args.inputs[0]), _read_records_arg(args.inputs[1]), args.output)
        else:
            plot.timeline(plot.load_runs(args.inputs), args.output)
    except plot.PlotUnavailable as exc:
        _err(f"phasewrap plot: {exc}")
        return EXIT_USAGE
    _err(f"phasewrap: wrote {show_path(args.output)}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import write_report

    write_report(args.inputs, args.output)
    _err(f"phasewrap: wrote {show_path(args.output)}")
    return 0


COMMANDS = {"run": cmd_run, "analyze": cmd_analyze, "env": cmd_env, "compare": cmd_compare, "diagnose": cmd_diagnose,
            "plot": cmd_plot, "report": cmd_report}


def _ensure_standard_fds() -> None:
    """Cron and CI may start us with stdin/stdout/stderr closed: give them /dev/null, or the first pipe we
    open would land on fd 0-2 and the child would inherit its own output pipe as stdin."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.set_inheritable(os.open(os.devnull, os.O_RDWR), True)  # lands on the lowest free fd: this one
    # Python started without them has sys.stdout / sys.stderr set to None: give it the /dev/null ones.
    if sys.stdout is None:
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)


def main(argv: Optional[Sequence[str]] = None) -> int:
    _ensure_standard_fds()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.subcommand is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        return COMMANDS[args.subcommand](args)
    except (UsageError, OutputPathError, RecordsError) as exc:
        _err(str(exc))
        return EXIT_USAGE
    except ValueError as exc:  # bad input files (plots, reports): one line naming the file
        _err(f"phasewrap {args.subcommand}: {exc}")
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
