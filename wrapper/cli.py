"""Command line: parse arguments, call the library, map outcomes to exit statuses. No measuring logic here."""
from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import sys
from typing import Optional, Sequence

from . import __version__, api, validate
from .model import profiles
from .errors import GpuBusy, StartError, UsageError
from .present.export import csvlog, jsonl, summary
from .core.writer import show_path
from .derive.markers import ANY

EXIT_USAGE = 2
EXIT_NOT_FOUND = 127
EXIT_BUSY = 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, like every other usage error here
        # "argument --timeout: --timeout must be …": the validators name the option already
        message = re.sub(r"^argument ([^:]+): (?=\1)", "", message)
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
    validate.regex(f"--mark {name}")(regex)
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
    g.add_argument("--ready", metavar="REGEX", type=validate.regex("--ready"), help="the model is loaded and accepts input (overrides the profile)")
    g.add_argument("--ready-stream", choices=("out", "err", "any"), default=ANY, help="stream --ready watches (default any)")
    g.add_argument("--first-token", metavar="REGEX", type=validate.regex("--first-token"), help="marks the first token (default: the first bytes on the "
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
    ch.add_argument("--timeout", type=validate.seconds("--timeout", validate.MAX_TIMEOUT_S), metavar="S", help="SIGTERM the child's process "
                    "group after S seconds (SIGKILL after --kill-grace); status becomes timeout")
    ch.add_argument("--kill-grace", type=validate.seconds("--kill-grace", validate.MAX_GRACE_S), default=5.0, metavar="S",
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
    me.add_argument("--plot", metavar="FILE", type=validate.picture("--plot"), help="also draw the timeline of the run(s) (.png, .svg or .html; "
                    "needs the plot extra and --capture for token ticks and samples)")
    rs = run.add_argument_group("resource sampling (split by phase under \"resources\")")
    rs.add_argument("--gpu", choices=("auto", "nvml", "dmon", "off"), default="auto",
                    help="GPU sampler: NVML (pynvml), `nvidia-smi dmon` (1 s resolution), auto = nvml, then dmon; "
                    "without a GPU the record says why (default auto)")
    rs.add_argument("--cpu", choices=("auto", "psutil", "pidstat", "off"), default="auto",
                    help="process-tree CPU/RSS/disk sampler: psutil, or `pidstat` (1 s resolution); default auto "
                    "= psutil. Use --cpu off to turn it off")
    rs.add_argument("--interval", type=validate.seconds("--interval", validate.MAX_INTERVAL_S), default=0.1, metavar="S",
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
    sv.add_argument("--url", metavar="URL", type=validate.url("--url"), help="server base URL (default: from --host/--port in the command, "
                    "else the profile's default port on 127.0.0.1)")
    sv.add_argument("--model", metavar="NAME", help="model name to send (vLLM/SGLang: default asked from /v1/models)")
    fl = run.add_argument_group("beyond one machine (Slurm job arrays, Kubernetes Indexed Jobs; see phasewrap plan)")
    fl.add_argument("--shard", metavar="I/N|auto", help="run only shard I of N of the plan (numbered from 0); auto: "
                    "from SLURM_ARRAY_TASK_ID/_MIN/_MAX (or _COUNT), or JOB_COMPLETION_INDEX with --shards N")
    fl.add_argument("--shards", type=_positive_int("--shards"), metavar="N",
                    help="number of shards (the Kubernetes Job's completions) for --shard auto; for plan: split into N")
    fl.add_argument("--sweep-id", metavar="ID", help="name of the sweep in fleet.sweep_id (default: "
                    "SLURM_ARRAY_JOB_ID, the Job's JOB_NAME, else generated)")
    fl.add_argument("--prom-textfile", metavar="DIR", help="write DIR/phasewrap.prom (atomically) for node_exporter's "
                    "textfile collector: the last run per label set (needs phasewrap[prometheus])")
    fl.add_argument("--mlflow", nargs="?", const="", metavar="TRACKING_URI", help="log a parent MLflow run per "
                    "sweep and a child run per record (default store: sqlite:///mlflow.db in the working "
                    "directory; needs phasewrap[mlflow])")
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD [ARGS...]")


def _add_plan(sub) -> None:
    sub.add_parser("plan", parents=[sub.choices["run"]], add_help=False, conflict_handler="resolve",
                   formatter_class=argparse.RawDescriptionHelpFormatter,
                   help="print a sweep's runs, numbered, and how they split into --shards N",
                   description="Print every recorded run of `phasewrap run` with the same options (each -L "
                   "combination x -n runs), numbered, and the shard that runs it with --shards N. Nothing runs.",
                   epilog="example:\n  phasewrap plan -L ctx=512,1024,2048,4096 -n 2 --shards 4 -- "
                   "llama-completion -c {ctx} ...")


def _add_merge(sub) -> None:
    mer = sub.add_parser("merge", help="merge the record files of a sharded sweep: validated, duplicates dropped, "
                         "missing plan items and host differences reported",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Read every record file (*.jsonl, *.json; not captures) under FILES/DIRS, "
                         "keep the good lines of a cut-off file, drop repeated run_ids, and write one JSONL file. "
                         "On stderr: one line per problem, per plan item no record covers (a failed task) and "
                         "per environment condition (GPU, driver, binary, CPU) on which hosts differ. Exit "
                         "status 1 when plan items are missing.",
                         epilog="example:\n  phasewrap merge results/ -o sweep.jsonl")
    mer.add_argument("inputs", nargs="+", metavar="FILE|DIR")
    mer.add_argument("-o", "--output", required=True, metavar="OUT.jsonl", help="merged records (- for stdout)")


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
    side.add_argument("--dmon", metavar="FILE", type=validate.input_file("--dmon"), help="`nvidia-smi dmon -o DT` output recorded beside the run")
    side.add_argument("--query-gpu", metavar="FILE", type=validate.input_file("--query-gpu"), help="`nvidia-smi --query-gpu=timestamp,... --format=csv -lms N`")
    side.add_argument("--pidstat", metavar="FILE", type=validate.input_file("--pidstat"), help="`pidstat -h -H -u -r -d -t -p PID 1` output")
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
    cmp.add_argument("--plot", metavar="FILE", type=validate.picture("--plot"), help="also draw per-phase bars with min-max whiskers")
    cmp.add_argument("--by", choices=("host",), help="host: the runs of BASE (and CAND) side by side per host "
                     "(fleet.host): per-phase medians, the difference to the other hosts, outliers")


def _add_diagnose(sub) -> None:
    dia = sub.add_parser("diagnose", help="name the bottleneck and the smallest next step from recorded runs",
                         epilog="example: phasewrap diagnose runs.jsonl")
    dia.add_argument("files", nargs="+", metavar="FILE", help="records files (JSONL)")
    dia.add_argument("--format", choices=("table", "json"), default="table")
    dia.add_argument("--by", choices=("host",), help="host: the by-host table, then each host diagnosed on its own")


def _add_plot(sub) -> None:
    plo = sub.add_parser("plot", help="draw a timeline (phases, tokens, GPU/CPU/disk panels) or compare bars",
                         epilog="examples:\n  phasewrap plot caps/ -o timeline.png\n"
                         "  phasewrap plot --compare base.jsonl cand.jsonl -o bars.svg",
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    plo.add_argument("inputs", nargs="+", metavar="INPUT", help="capture files/directories or records files")
    plo.add_argument("-o", "--output", required=True, metavar="FILE", type=validate.picture("-o"), help=".png, .svg or .html")
    plo.add_argument("--compare", action="store_true", help="INPUTs are BASE and CAND records: per-phase bars")
    plo.add_argument("--by", choices=("host",), help="host: INPUTs are records; per-phase bars per host, outliers red")


def _add_report(sub) -> None:
    rep = sub.add_parser("report", help="one self-contained HTML file: tables, diagnosis, environment, timeline",
                         epilog="example: phasewrap report caps/ runs.jsonl -o report.html")
    rep.add_argument("inputs", nargs="+", metavar="INPUT", help="capture files/directories or records files")
    rep.add_argument("-o", "--output", required=True, metavar="FILE.html")
    rep.add_argument("--by", choices=("host",), help="host: add the by-host table (medians, outliers) on top")


# One function per subcommand adds its parser; a new subcommand is one more function here and in COMMANDS.
SUBCOMMANDS = (_add_run, _add_plan, _add_merge, _add_analyze, _add_env, _add_compare, _add_diagnose, _add_plot, _add_report)


def build_parser(subcommand: Optional[str] = None) -> argparse.ArgumentParser:
    """The whole command line; with ``subcommand``, only that subcommand's parser (and run's, which plan extends):
    building all nine costs ~4 ms of a run's start-up, mostly argparse looking up translations of its texts."""
    adds = SUBCOMMANDS
    if subcommand in COMMANDS:
        wanted = {subcommand, "run"} if subcommand == "plan" else {subcommand}
        adds = tuple(add for add in SUBCOMMANDS if add.__name__[len("_add_"):] in wanted)
    parser = _Parser(prog="phasewrap", description="Split an LLM run into load, time to first token and decode "
                     "by wrapping the unmodified inference command.")
    parser.add_argument("--version", action="version", version=f"phasewrap {__version__}")
    sub = parser.add_subparsers(dest="subcommand", metavar="SUBCOMMAND", parser_class=_Parser)
    for add in adds:
        add(sub)
    return parser


def _command(args: argparse.Namespace) -> list:
    return list(args.command[1:] if args.command[:1] == ["--"] else args.command)


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


class _StderrHandler(logging.Handler):
    """The library's log lines as the CLI shows them: ``phasewrap: warning: …`` / ``phasewrap: …``."""

    def emit(self, record: logging.LogRecord) -> None:
        label = "warning: " if record.levelno == logging.WARNING else ""
        _err(f"phasewrap: {label}{record.getMessage()}")


def _show_library_log() -> None:
    logger = logging.getLogger("phasewrap")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        logger.addHandler(_StderrHandler())
    logger.setLevel(logging.INFO)
    logger.propagate = False


def _variants(sweeps: Sequence[str]) -> int:
    count = 1
    for text in sweeps:
        count *= len(text.partition("=")[2].split(","))
    return count


def cmd_run(args: argparse.Namespace) -> int:
    single = args.runs + args.warmup == 1 and _variants(args.sweep) == 1
    sweep_names = tuple(text.partition("=")[0] for text in args.sweep)

    def on_record(record: dict) -> None:
        if args.format == "table" and not single:
            _err(summary.one_line(record))

    from .measure.signals import SignalGuard

    with SignalGuard() as guard:  # to the end of the summary: a signal stops the session, never kills us
        status = _run_and_summarize(args, single, sweep_names, on_record)
    return status if guard.received is None else 128 + guard.received


def _run_and_summarize(args: argparse.Namespace, single: bool, sweep_names: tuple, on_record) -> int:
    try:
        records = api.run(
            _command(args), ready=args.ready, first_token=args.first_token, marks=list(args.mark),
            profile=args.profile, runs=args.runs, warmup=args.warmup, cold=args.cold, sweep=list(args.sweep),
            gpu=args.gpu, cpu=args.cpu, interval=args.interval, capture_dir=args.capture, jsonl=args.jsonl,
            csv=args.csv, require_idle_gpu=args.require_idle_gpu, timeout_s=args.timeout, quiet=args.quiet,
            ready_stream=args.ready_stream, first_token_stream=args.first_token_stream, tags=dict(args.tag),
            note=args.note, pty=args.pty, kill_grace_s=args.kill_grace, drop_caches=args.drop_caches,
            model_files=list(args.model_file), fingerprint=not args.no_env, request=args.request,
            max_tokens=args.max_tokens, api=args.api, url=args.url, model=args.model, plot=args.plot,
            on_record=on_record, on_progress=(lambda _m: None) if args.format == "none" else _err,
            shard=args.shard, shards=args.shards, sweep_id=args.sweep_id, prom_textfile=args.prom_textfile,
            mlflow=args.mlflow)
    except GpuBusy as exc:
        _err(f"phasewrap: {exc}")
        return EXIT_BUSY
    except StartError as exc:
        _err(f"phasewrap: {exc}")
        return EXIT_NOT_FOUND
    if records.stopped_by is not None:
        _err(f"phasewrap: stopped by signal {records.stopped_by} between runs; {len(records)} run(s) recorded")
    if args.format == "table" and records:
        if single:
            _err(summary.render(records[0]))
        else:
            _err(summary.render_runs(records, sweep_names))
        _err("diagnosis:\n" + render_findings(api.diagnose(records)))
    elif args.format == "json" and records:
        _out(jsonl.pretty(records[0] if single else list(records)))
    return records.exit_status


def cmd_plan(args: argparse.Namespace) -> int:
    from .method.fleet import render_plan

    rows = api.plan(_command(args), sweep=list(args.sweep), runs=args.runs, shards=args.shards or 1)
    _out(jsonl.pretty(rows) if args.format == "json" else render_plan(rows, args.warmup))
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from .method.merge import summary

    merged, files = api.merge(args.inputs, args.output)
    _err(summary(merged, files))
    return 1 if merged.missing else 0


def cmd_analyze(args: argparse.Namespace) -> int:
    records = api.iter_analyze(args.files, ready=args.ready, ready_stream=args.ready_stream,
                               first_token=args.first_token, first_token_stream=args.first_token_stream,
                               marks=list(args.mark), profile=args.profile, framework=args.framework, dmon=args.dmon,
                               query_gpu=args.query_gpu, pidstat=args.pidstat, utc_offset_s=args.utc_offset,
                               on_progress=_err)
    if args.format == "csv":  # its columns depend on every record
        text, _ = csvlog.render(list(records), None)
        _out(text)
        return 0
    pieces = jsonl.pretty_stream(records) if args.format == "json" else (summary.render(r) for r in records)
    for piece in pieces:  # written as records come: a long log's records are never all in memory
        _out(piece)
    return 0


def cmd_env(args: argparse.Namespace) -> int:
    from .measure.env import fingerprint
    from .measure.pagecache import model_files

    command = _command(args)
    profile = profiles.resolve("auto", command)[0] if command else None
    files = model_files(command, args.model_file) if command else list(args.model_file)
    _out(jsonl.pretty(fingerprint(command, files, profile.version_args if profile else ())))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from .method.compare import render_table
    from .sources.records_io import parse_tag_filters

    if args.by == "host":
        from .present.byhost import render

        result = api.by_host([args.base] + ([args.cand] if args.cand else []), plot=args.plot)
        _out(jsonl.pretty(result) if args.format == "json" else render(result))
        return 0
    result = api.compare(args.base, args.cand, base_tags=parse_tag_filters(args.base_tag),
                         cand_tags=parse_tag_filters(args.cand_tag), plot=args.plot)
    _out(jsonl.pretty(result) if args.format == "json" else render_table(result))
    return 0


def cmd_diagnose(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    if args.by == "host":
        from .present.byhost import render

        per_host = api.diagnose_by_host(args.files)
        if args.format == "json":
            _out(jsonl.pretty({host: [asdict(f) for f in fs] for host, fs in per_host.items()}))
        else:
            _out(render(api.by_host(args.files)) + "".join(f"\nhost {host}:\n{render_findings(fs)}"
                                                         for host, fs in per_host.items()))
        return 0
    findings = api.diagnose(args.files)
    _out(jsonl.pretty([asdict(f) for f in findings]) if args.format == "json" else render_findings(findings))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    if args.by == "host":
        api.by_host(args.inputs, plot=args.output)
    else:
        api.plot(args.inputs, args.output, compare=args.compare)
    _err(f"phasewrap: wrote {show_path(args.output)}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    api.report(args.inputs, args.output, by=args.by)
    _err(f"phasewrap: wrote {show_path(args.output)}")
    return 0


def render_findings(findings: list) -> str:
    from .method.diagnose import render

    return render(findings)


COMMANDS = {"run": cmd_run, "plan": cmd_plan, "merge": cmd_merge, "analyze": cmd_analyze, "env": cmd_env,
            "compare": cmd_compare, "diagnose": cmd_diagnose, "plot": cmd_plot, "report": cmd_report}


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
    """argparse → one library call → exit status: UsageError 2, StartError 127, GpuBusy 3, else the call's."""
    _ensure_standard_fds()
    _show_library_log()
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = None
    try:
        args = parser.parse_args(argv)
        if args.subcommand is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        return COMMANDS[args.subcommand](args)
    except ValueError as exc:  # UsageError, and any other bad input a module names in one line
        message = str(exc)
        # a message naming a file gets the subcommand in front; one naming an option (--csv: …) stands as it is
        if args is not None and not message.startswith(("phasewrap", "-")):
            message = f"phasewrap {args.subcommand}: {message}"
        _err(message)
        return EXIT_USAGE
    except KeyboardInterrupt:  # Ctrl-C while options are checked, before any run: nothing to keep, no traceback
        return 128 + signal.SIGINT


if __name__ == "__main__":
    sys.exit(main())
