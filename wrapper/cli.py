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
from .model.options import DEFAULTS, RunOptions
from .model.options import NAMES as OPTION_NAMES
from .errors import GpuBusy, StartError, UsageError
from .present import style
from .present.export import jsonl, summary
from .core.writer import show_path
from .core.safe import terminal
from .derive.markers import ANY

EXIT_USAGE = 2
EXIT_NOT_FOUND = 127
EXIT_BUSY = 3
EXIT_CANT_TELL = 4  # check: too few runs, or a metric not measured, to tell a regression from noise


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, like every other usage error here
        # "argument --timeout: --timeout must be …": the validators name the option already
        message = re.sub(r"^argument ([^:]+): (?=\1)", "", message)
        raise UsageError(f"{self.prog}: {message}{_did_you_mean(self, message)} (see --help)")


def _option_strings(parser: argparse.ArgumentParser) -> list:
    """Every option of ``parser`` and of the subcommand parsers under it."""
    found = []
    for action in parser._actions:
        found += action.option_strings
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found += _option_strings(child)
    return found


def _did_you_mean(parser: argparse.ArgumentParser, message: str) -> str:
    """``; did you mean --jsonl?`` for a misspelled subcommand, option or choice; "" when nothing is close."""
    import difflib

    choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if choice:
        word, pool = choice.group(1), re.findall(r"'([^']*)'", choice.group(2))
    else:
        unknown = re.search(r"unrecognized arguments: (-\S+)", message)
        if not unknown:
            return ""
        word, pool = unknown.group(1).partition("=")[0], _option_strings(parser)
    close = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


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
            value = validate.parse_number(convert, text)
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
    for add in (_add_output_options, _add_child_options, _add_method_options, _add_sampling_options,
                _add_server_options, _add_fleet_options, _add_run_baseline_options, _add_limits_options):
        add(run)
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD [ARGS...]")


# The flags below are the fields of model.options.RunOptions (dest = the field, default = its default).
D = DEFAULTS


def _add_output_options(run) -> None:
    out = run.add_argument_group("outputs")
    out.add_argument("--format", choices=("table", "json", "jsonl", "none"), default="table",
                     help="table: summary on stderr (default); json: one JSON array of the records on stdout after "
                     "the runs (the child's stdout goes to stderr unless -q); jsonl: one record a line, as each run ends; none")
    out.add_argument("-v", "--verbose", action="store_true", help="also list the diagnosis checks that could not "
                     "run for lack of data (and the data each needed)")
    out.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="before each of several runs: run i/N, elapsed time and ETA on stderr (default: on when "
                     "stderr is a terminal)")
    out.add_argument("--jsonl", metavar="FILE", help="append the record as one JSON line (locked)")
    out.add_argument("--csv", metavar="FILE", help="append one measurement-log row (header written once)")
    out.add_argument("--capture", dest="capture_dir", metavar="DIR", help="write the timestamped raw output of "
                     "each run to DIR/<run_id>.capture.jsonl as it arrives (for phasewrap analyze)")
    out.add_argument("--tag", dest="tags", action="append", type=_key_value("--tag"), default=[],
                     metavar="KEY=VALUE", help="label the run (quant=Q4_K_M, ctx=4096); repeatable; each tag is "
                     "a CSV column")
    out.add_argument("--note", metavar="TEXT", help="free text stored with the record")
    out.add_argument("-q", "--quiet", action="store_true", help="don't pass the child's output through")


def _add_child_options(run) -> None:
    ch = run.add_argument_group("child")
    ch.add_argument("--pty", action="store_true", help="give the child a pseudo-terminal on stdout (for "
                    "programs that block-buffer when piped)")
    ch.add_argument("--timeout", dest="timeout_s", type=validate.seconds("--timeout", validate.MAX_TIMEOUT_S),
                    metavar="S", help="SIGTERM the child's process group after S seconds (SIGKILL after "
                    "--kill-grace); status becomes timeout")
    ch.add_argument("--kill-grace", dest="kill_grace_s", default=D["kill_grace_s"], metavar="S",
                    type=validate.seconds("--kill-grace", validate.MAX_GRACE_S),
                    help=f"seconds between SIGTERM and SIGKILL (default {D['kill_grace_s']:g})")


def _add_method_options(run) -> None:
    me = run.add_argument_group("method: repeats, cold/warm, sweeps")
    me.add_argument("-n", "--runs", type=_positive_int("--runs"), default=D["runs"], metavar="N",
                    help="recorded runs per variant (3-5 recommended; statistics need >= 4 per side to "
                    "tell a difference from noise)")
    me.add_argument("--warmup", type=_non_negative_int("--warmup"), default=D["warmup"], metavar="N",
                    help="runs before the recorded ones, kept with warmup: true and left out of statistics")
    me.add_argument("--cold", action="store_true", help="evict the model files from the page cache before each "
                    "run (posix_fadvise DONTNEED; no root needed)")
    me.add_argument("--drop-caches", action="store_true", help="with --cold: drop the whole page cache via "
                    "/proc/sys/vm/drop_caches instead (root only)")
    me.add_argument("--model-file", dest="model_files", action="append", default=[], metavar="PATH",
                    help="a model file to label cold/warm and evict (default: found from -m/--model, file "
                    "arguments >= 1 MB, directories of *.gguf/*.safetensors); repeatable")
    me.add_argument("-L", "--sweep", action="append", default=[], metavar="NAME=v1,v2",
                    help="substitute each value for {NAME} in the command and tag the run NAME=value; repeatable "
                    "(every combination runs N times)")
    me.add_argument("--no-env", action="store_true", help="don't record the environment fingerprint")
    me.add_argument("--plot", metavar="FILE", type=validate.picture("--plot"), help="also draw the timeline of "
                    "the run(s) (.png, .svg or .html; needs the plot extra): phases, tokens and the samples taken")
    me.add_argument("--trace", metavar="FILE.json", help="also write the run(s) as a Chrome trace-event / Perfetto "
                    "file (open it in ui.perfetto.dev or chrome://tracing)")


def _add_sampling_options(run) -> None:
    rs = run.add_argument_group("resource sampling (split by phase under \"resources\")")
    rs.add_argument("--gpu", choices=("auto", "nvml", "dmon", "off"), default=D["gpu"],
                    help="GPU sampler: NVML (pynvml), `nvidia-smi dmon` (1 s resolution), auto = nvml, then dmon; "
                    "without a GPU the record says why (default auto)")
    rs.add_argument("--cpu", choices=("auto", "psutil", "pidstat", "off"), default=D["cpu"],
                    help="process-tree CPU/RSS/disk sampler: psutil, or `pidstat` (1 s resolution); default auto "
                    "= psutil. Use --cpu off to turn it off")
    rs.add_argument("--interval", type=validate.seconds("--interval", validate.MAX_INTERVAL_S),
                    default=D["interval"], metavar="S",
                    help=f"seconds between samples of the in-process samplers (default {D['interval']:g})")
    rs.add_argument("--require-idle-gpu", action="store_true",
                    help="refuse to run when other processes use the GPU (default: warn)")


def _add_server_options(run) -> None:
    sv = run.add_argument_group("servers (llama-server, vLLM, SGLang, ollama serve, any OpenAI-compatible server)")
    sv.add_argument("--request", metavar="PROMPT", help="once the server is ready, send one streaming completion "
                    "with this prompt, measure TTFT and decode from its events, then stop the server")
    sv.add_argument("--max-tokens", type=_positive_int("--max-tokens"), metavar="N",
                    help="tokens to generate for --request (default 128)")
    sv.add_argument("--api", choices=("openai", "llama"), default=D["api"],
                    help="openai: POST /v1/completions (default); llama: llama.cpp's POST /completion")
    sv.add_argument("--url", metavar="URL", type=validate.url("--url"), help="server base URL (default: from "
                    "--host/--port in the command, else the profile's default port on 127.0.0.1)")
    sv.add_argument("--model", metavar="NAME", help="model name to send (vLLM/SGLang: default asked from "
                    "/v1/models)")


def _add_run_baseline_options(run) -> None:
    bl = run.add_argument_group("baselines (for phasewrap check)")
    bl.add_argument("--save-baseline", metavar="NAME", help="keep this call's records as baseline NAME in the "
                    "baseline store (replaced whole if it exists); `phasewrap check --baseline NAME CAND` gates on it")
    _add_baseline_dir(bl)


def _add_fleet_options(run) -> None:
    fl = run.add_argument_group("beyond one machine (Slurm job arrays, Kubernetes Indexed Jobs; see phasewrap plan)")
    fl.add_argument("--shard", metavar="I/N|auto", help="run only shard I of N of the plan (numbered from 0); "
                    "auto: from SLURM_ARRAY_TASK_ID/_MIN/_MAX (or _COUNT), or JOB_COMPLETION_INDEX with --shards N")
    fl.add_argument("--shards", type=_positive_int("--shards"), metavar="N",
                    help="number of shards (the Kubernetes Job's completions) for --shard auto; for plan: split "
                    "into N")
    fl.add_argument("--sweep-id", metavar="ID", help="name of the sweep in fleet.sweep_id (default: "
                    "SLURM_ARRAY_JOB_ID, the Job's JOB_NAME, else generated)")
    fl.add_argument("--prom-textfile", metavar="DIR", help="write DIR/phasewrap.prom (atomically) for "
                    "node_exporter's textfile collector: the last run per label set (needs phasewrap[prometheus])")
    fl.add_argument("--mlflow", nargs="?", const="", metavar="TRACKING_URI", help="log a parent MLflow run per "
                    "sweep and a child run per record (default store: sqlite:///mlflow.db in the working "
                    "directory; needs phasewrap[mlflow])")


def _add_limits_options(parser) -> None:
    """The model and hardware figures the floors need, where the command line, the log or the probe lack them."""
    g = parser.add_argument_group("hardware limits (the floor of each phase; see README 'Floors')")
    g.add_argument("--model-path", metavar="PATH", help="the model file or directory (default: from -m/--model "
                   "or a model file argument)")
    g.add_argument("--model-bytes", type=validate.n_bytes("--model-bytes"), metavar="N", help="the model's size "
                   "in bytes, over what the file or the log says")
    g.add_argument("--active-bytes", type=validate.n_bytes("--active-bytes"), metavar="N",
                   help="weight bytes read per token (a mixture of experts: dense + routed experts)")
    g.add_argument("--peak", action="append", default=[], type=validate.peak("--peak"), metavar="RESOURCE=GBPS",
                   help="a peak rate over the probed one: gpu-memory, cpu-memory, disk, pcie, page-cache; repeatable")


def _limits_kwargs(args: argparse.Namespace) -> dict:
    return {"model_path": args.model_path, "model_bytes": args.model_bytes, "active_bytes": args.active_bytes,
            "peaks": dict(args.peak)}


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
    mer.add_argument("-o", "--output", required=True, metavar="OUT.jsonl", type=validate.suffix("-o", ".jsonl"),
                     help="merged records (- for stdout)")


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
    ana.add_argument("--format", choices=("table", "json", "jsonl", "csv"), default="table",
                     help="table (default), json (an array of records), jsonl (one record a line, as each is made: "
                     "the fastest for a long log) or csv (the measurement-log columns)")
    ana.add_argument("--framework", metavar="NAME", help="parse framework figures as this family (default: detect)")
    side = ana.add_argument_group("side files, aligned by wall-clock time")
    side.add_argument("--dmon", metavar="FILE", type=validate.input_file("--dmon"), help="`nvidia-smi dmon -o DT` output recorded beside the run")
    side.add_argument("--query-gpu", metavar="FILE", type=validate.input_file("--query-gpu"), help="`nvidia-smi --query-gpu=timestamp,... --format=csv -lms N`")
    side.add_argument("--pidstat", metavar="FILE", type=validate.input_file("--pidstat"), help="`pidstat -h -H -u -r -d -t -p PID 1` output")
    side.add_argument("--utc-offset", type=int, metavar="SECONDS", help="UTC offset of the machine that wrote "
                      "dmon/query-gpu times (default: this machine's zone)")
    _add_limits_options(ana)


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
    dia.add_argument("-v", "--verbose", action="store_true", help="also list the checks not run for lack of data")


def _add_completion(sub) -> None:
    com = sub.add_parser("completion", help="print a shell completion script (bash, zsh, fish)",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         epilog="examples:\n  eval \"$(phasewrap completion bash)\"    # in ~/.bashrc\n"
                         "  phasewrap completion fish > ~/.config/fish/completions/phasewrap.fish")
    com.add_argument("shell", choices=("bash", "zsh", "fish"))


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
    rep.add_argument("-o", "--output", required=True, metavar="FILE.html", type=validate.suffix("-o", ".html"))
    rep.add_argument("--by", choices=("host",), help="host: add the by-host table (medians, outliers) on top")
    rep.add_argument("--trace", metavar="FILE.json", help="also write the runs as a Chrome trace-event / Perfetto file")


def _add_baseline_dir(group) -> None:
    group.add_argument("--baseline-dir", metavar="DIR", help="the baseline store (default: $PHASEWRAP_BASELINE_DIR, "
                       "else ./.phasewrap/baselines)")


CHECK_EPILOG = """\
examples:
  phasewrap check base.jsonl cand.jsonl --fail-if 'ttft>+10%' --fail-if 'decode_gap_p99>+20%'
  phasewrap run -n 5 --warmup 1 --save-baseline main -- llama-completion ...      (once, on the reference build)
  phasewrap check --baseline main cand.jsonl --fail-if 'load>2s' --junit check.xml --format markdown

thresholds (--fail-if, repeatable; default: load>+10% ttft>+10% ms_per_token>+10%):
  METRIC>VALUE fails above, METRIC<VALUE below. VALUE:
    +N% / -N%        relative change of the candidate's median from the base's    ttft>+5%  tokens_per_s<-10%
    +N / -N [UNIT]   change of the median, in the metric's unit or s/ms (mJ/J)    load>+0.5s  gap_p99_ms>+5
    N [UNIT]         bound on the candidate's median                              load>2s  decode.efficiency<0.6
  METRIC: load ttft decode total (or load_s ...), ms_per_token, tokens_per_s, gap_p99_ms (decode_gap_p99),
  stalls_total (stalls), energy_per_output_token_mj (energy_per_token), step:<load step name>,
  <phase>.efficiency (from the record's limits).
A metric fails only when beyond its threshold AND beyond noise (a change: Mann-Whitney U at 0.05, needs >= 4
runs a side; a bound: sign test on the candidate's runs at 0.05, needs >= 5). Fewer runs, or a metric not
measured: "can't tell". Sides are pooled as in compare (no warm-ups, status ok, one cache state).
Exit status: 0 pass, 1 regression, 2 bad input, 4 can't tell. With $GITHUB_STEP_SUMMARY set the Markdown
report is appended there too.
"""


def _add_check(sub) -> None:
    chk = sub.add_parser("check", help="the regression gate: fail (exit 1) when a metric got worse beyond a "
                         "threshold and beyond noise", epilog=CHECK_EPILOG,
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Judge the candidate's runs against the base's (two record files, one file "
                         "with --base-tag/--cand-tag, or --baseline NAME CAND) metric by metric.")
    chk.add_argument("first", metavar="BASE", nargs="?", help="records file of the baseline (CAND with --baseline)")
    chk.add_argument("second", metavar="CAND", nargs="?", help="records file of the candidate")
    chk.add_argument("--fail-if", action="append", default=[], metavar="THRESHOLD",
                     help="METRIC>VALUE or METRIC<VALUE, e.g. 'ttft>+5%%', 'load>2s' (repeatable; see below)")
    chk.add_argument("--baseline", metavar="NAME", help="the base is this stored baseline (run --save-baseline)")
    _add_baseline_dir(chk)
    chk.add_argument("--base-tag", action="append", default=[], metavar="K=V", help="select the base runs")
    chk.add_argument("--cand-tag", action="append", default=[], metavar="K=V", help="select the candidate runs")
    chk.add_argument("--format", choices=("table", "markdown", "json"), default="table",
                     help="stdout: table (default), markdown (a PR comment / step summary) or json")
    chk.add_argument("--junit", metavar="FILE", help="also write JUnit XML: one test case per threshold")
    chk.add_argument("--no-step-summary", action="store_true", help="don't append to $GITHUB_STEP_SUMMARY")


def _add_baselines(sub) -> None:
    bas = sub.add_parser("baselines", help="list the stored baselines (run --save-baseline NAME)",
                         epilog="example: phasewrap baselines --baseline-dir /srv/phasewrap/baselines")
    _add_baseline_dir(bas)
    bas.add_argument("--format", choices=("table", "json"), default="table")


# One function per subcommand adds its parser; a new subcommand is one more function here and in COMMANDS.
SUBCOMMANDS = (_add_run, _add_plan, _add_merge, _add_analyze, _add_env, _add_compare, _add_diagnose, _add_plot,
               _add_report, _add_check, _add_baselines, _add_completion)
TOP_EPILOG = """\
examples:
  phasewrap run -- llama-completion -m model.gguf -p "Hello" -n 64 -no-cnv
  phasewrap run -n 5 --warmup 1 --jsonl runs.jsonl --csv runs.csv -- llama-completion ...
  phasewrap run -n 3 -L ctx=512,4096 --jsonl sweep.jsonl -- llama-completion -c {ctx} ...
  phasewrap diagnose runs.jsonl
  phasewrap compare base.jsonl cand.jsonl
  phasewrap analyze --format csv server.log
  phasewrap report caps/ runs.jsonl -o report.html
  phasewrap check --baseline main cand.jsonl --fail-if 'ttft>+10%'

`phasewrap SUBCOMMAND --help` for each one's options; `phasewrap completion bash` for tab completion.
"""


def build_parser(subcommand: Optional[str] = None) -> argparse.ArgumentParser:
    """The whole command line; with ``subcommand``, only that subcommand's parser (and run's, which plan extends):
    building all nine costs ~4 ms of a run's start-up, mostly argparse looking up translations of its texts."""
    adds = SUBCOMMANDS
    if subcommand in COMMANDS:
        wanted = {subcommand, "run"} if subcommand == "plan" else {subcommand}
        adds = tuple(add for add in SUBCOMMANDS if add.__name__[len("_add_"):] in wanted)
    parser = _Parser(prog="phasewrap", description="Split an LLM run into load, time to first token and decode "
                     "by wrapping the unmodified inference command.", epilog=TOP_EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"phasewrap {__version__}")
    sub = parser.add_subparsers(dest="subcommand", metavar="SUBCOMMAND", parser_class=_Parser)
    for add in adds:
        add(sub)
    return parser


def _command(args: argparse.Namespace) -> list:
    return list(args.command[1:] if args.command[:1] == ["--"] else args.command)


def _out(text: str) -> None:
    """``text`` on stdout, and ``_err`` on stderr: the one door to the terminal, so text from the child, a log
    or the environment is made safe there (``safe.terminal``)."""
    try:
        sys.stdout.write(terminal(text))
        sys.stdout.flush()
    except BrokenPipeError:
        _err("phasewrap: stdout closed; output not printed")


def _err(text: str) -> None:
    try:
        sys.stderr.write(terminal(text if text.endswith("\n") else text + "\n"))
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass


class _StderrHandler(logging.Handler):
    """The library's log lines as the CLI shows them: ``phasewrap: warning: …`` / ``phasewrap: …``."""

    def emit(self, record: logging.LogRecord) -> None:
        label = "warning: " if record.levelno == logging.WARNING else ""
        _err(f"phasewrap: {style.paint(label, style.colour_on(sys.stderr))}{record.getMessage()}")


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
    if args.format in ("json", "jsonl") and "-" in (args.jsonl, args.csv):
        raise UsageError(f"phasewrap run: --format {args.format} and --{'jsonl' if args.jsonl == '-' else 'csv'} - "
                         "both write to stdout, which would not parse; give the file a name")
    single = args.runs + args.warmup == 1 and _variants(args.sweep) == 1
    sweep_names = tuple(text.partition("=")[0] for text in args.sweep)

    def on_record(record: dict) -> None:
        if args.format == "jsonl":  # each record as soon as it is made: a long sweep's lines can be followed
            _out(jsonl.line(record))
        elif args.format == "table" and not single:
            _err(style.paint(style.wrap(summary.one_line(record), style.width(2)), style.colour_on(sys.stderr)))

    from .measure.signals import SignalGuard

    with SignalGuard() as guard:  # to the end of the summary: a signal stops the session, never kills us
        status = _run_and_summarize(args, single, sweep_names, on_record)
    return status if guard.received is None else 128 + guard.received


def _run_options(args: argparse.Namespace) -> RunOptions:
    """The parsed flags as the library's ``RunOptions`` (the CLI passes the child's output through unless -q)."""
    values = {name: getattr(args, name) for name in OPTION_NAMES if hasattr(args, name)}
    values.update(marks=list(args.mark), tags=dict(args.tags), sweep=list(args.sweep),
                  model_files=tuple(args.model_files), fingerprint=not args.no_env,
                  stdout_to_stderr=args.format in ("json", "jsonl"), **_limits_kwargs(args))
    return RunOptions(**values)


def _run_and_summarize(args: argparse.Namespace, single: bool, sweep_names: tuple, on_record) -> int:
    try:
        records = api.run(_command(args), _run_options(args), on_record=on_record,
                          on_progress=_err if _progress_on(args) else (lambda _m: None))
    except GpuBusy as exc:
        _err(f"phasewrap: {exc}")
        return EXIT_BUSY
    except StartError as exc:
        _err(f"phasewrap: {exc}")
        return EXIT_NOT_FOUND
    if records.stopped_by is not None:
        _err(f"phasewrap: stopped by signal {records.stopped_by} between runs; {len(records)} run(s) recorded")
    if args.format == "table" and records:
        columns, colour = style.width(2), style.colour_on(sys.stderr)
        text = (summary.render(records[0], columns) if single else
                summary.render_runs(records, sweep_names, columns))
        # the summary just said what each swept tag moved: the diagnosis goes on with each variant
        findings = [f for f in api.diagnose(records) if f.rule != "sweep_effect"]
        text += "diagnosis:\n" + render_findings(findings, args.verbose, columns)
        _err(style.paint(text, colour))
    elif args.format == "json":  # one shape for 1 or N runs: an array
        _out(jsonl.pretty(list(records)))
    return records.exit_status


def _progress_on(args: argparse.Namespace) -> bool:
    """--progress / --no-progress; by default on when stderr is a terminal (and never with --format none)."""
    if args.progress is not None:
        return args.progress
    return args.format != "none" and sys.stderr.isatty()


def cmd_plan(args: argparse.Namespace) -> int:
    from .method.fleet import render_plan

    rows = api.plan(_command(args), sweep=list(args.sweep), runs=args.runs, shards=args.shards or 1)
    formats = {"json": jsonl.pretty, "jsonl": jsonl.lines}
    _out(formats[args.format](rows) if args.format in formats else render_plan(rows, args.warmup))
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
                               on_progress=_err, **_limits_kwargs(args))
    if args.format == "csv":  # its columns are the first record's: the rest stream as the others do
        from .present.export import csvlog  # and the csv module: only this format's

        pieces = csvlog.stream(records, source=True, date_of=api.file_date())
    elif args.format == "json":
        pieces = jsonl.pretty_stream(records)
    elif args.format == "jsonl":
        pieces = (jsonl.line(r) for r in records)
    else:
        columns, colour = style.width(1), style.colour_on(sys.stdout)
        pieces = (style.paint(summary.render(r, columns), colour) for r in records)
    for piece in pieces:  # written as records come: a long log's records are never all in memory
        _out(piece)
    return 0


def cmd_env(args: argparse.Namespace) -> int:
    _out(jsonl.pretty(api.env(_command(args), model_files=args.model_file)))
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
    _out(jsonl.pretty(result) if args.format == "json" else
         style.paint(style.wrap_prose(render_table(result), style.width(1)), style.colour_on(sys.stdout)))
    return 0


def cmd_diagnose(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    if args.by == "host":
        from .present.byhost import render

        per_host = api.diagnose_by_host(args.files)
        if args.format == "json":
            _out(jsonl.pretty({host: [asdict(f) for f in fs] for host, fs in per_host.items()}))
        else:
            columns = style.width(1)
            _out(render(api.by_host(args.files)) + "".join(
                f"\nhost {host}:\n{render_findings(fs, args.verbose, columns)}" for host, fs in per_host.items()))
        return 0
    findings = api.diagnose(args.files)
    if args.format == "json":
        _out(jsonl.pretty([asdict(f) for f in findings]))
    else:
        _out(style.paint(render_findings(findings, args.verbose, style.width(1)), style.colour_on(sys.stdout)))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    if args.by == "host":
        api.by_host(args.inputs, plot=args.output)
    else:
        api.plot(args.inputs, args.output, compare=args.compare)
    _err(f"phasewrap: wrote {show_path(args.output)}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    api.report(args.inputs, args.output, by=args.by, trace=args.trace)
    for path in filter(None, (args.output, args.trace)):
        _err(f"phasewrap: wrote {show_path(path)}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from .core.safe import one_line
    from .present.export import check_report
    from .sources.records_io import parse_tag_filters

    base, cand = (None, args.first) if args.baseline else (args.first, args.second)
    if args.first is None or (args.baseline and args.second is not None):
        raise UsageError("phasewrap check: give BASE CAND, one file with --base-tag/--cand-tag, or --baseline NAME "
                         "CAND (see --help)")
    result = api.check(base, cand, fail_if=list(args.fail_if), baseline=args.baseline,
                       baseline_dir=args.baseline_dir, base_tags=parse_tag_filters(args.base_tag),
                       cand_tags=parse_tag_filters(args.cand_tag), junit=args.junit,
                       step_summary=None if args.no_step_summary else "auto")
    render = {"json": jsonl.pretty, "markdown": check_report.markdown}.get(args.format, check_report.table)
    _out(render(result))
    if args.format != "table":  # the table lists them itself; a CI log should show them whatever goes to stdout
        for warning in result["warnings"]:
            _err(f"phasewrap: warning: {one_line(warning)}")
    return {"pass": 0, "fail": 1}.get(result["outcome"], EXIT_CANT_TELL)


def cmd_baselines(args: argparse.Namespace) -> int:
    from .present.export import check_report

    rows = api.baselines(args.baseline_dir)
    _out(jsonl.pretty(rows) if args.format == "json" else check_report.baselines_table(rows))
    return 0


def render_findings(findings: list, verbose: bool = True, columns: Optional[int] = None) -> str:
    """Findings as numbered text folded to ``columns``; without ``verbose`` the "not checked" finding (the
    checks that lacked data) becomes one short hint: on a machine without a GPU it is the same every run."""
    from .method.diagnose import render

    shown = [f for f in findings if verbose or f.rule != "not_checked"]
    hint = ""
    if len(shown) < len(findings):
        hint = "(some checks could not run for lack of data; -v lists them)\n"
    return style.wrap(render(shown) if shown else "", columns) + hint


def cmd_completion(args: argparse.Namespace) -> int:
    from .present.completion import script

    _out(script(build_parser(), args.shell))
    return 0


COMMANDS = {"run": cmd_run, "plan": cmd_plan, "merge": cmd_merge, "analyze": cmd_analyze, "env": cmd_env,
            "compare": cmd_compare, "diagnose": cmd_diagnose, "plot": cmd_plot, "report": cmd_report,
            "check": cmd_check, "baselines": cmd_baselines, "completion": cmd_completion}


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


REQUIRED_PACKAGES = {"psutil": "psutil", "tabulate": "tabulate"}  # module → pip package (pyproject dependencies)


def _missing_packages() -> list:
    """The required packages this Python can't import (looked up, not imported: start-up stays cheap). Run from a
    clone without ``pip install .``, a missing one would otherwise surface after the child ran, at the summary."""
    from importlib.util import find_spec

    return [package for module, package in REQUIRED_PACKAGES.items() if find_spec(module) is None]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """argparse → one library call → exit status: UsageError 2, StartError 127, GpuBusy 3, else the call's."""
    _ensure_standard_fds()
    missing = _missing_packages()
    if missing:
        _err(f"phasewrap: missing Python package(s) {', '.join(missing)}: pip install {' '.join(missing)} "
             "(or `pip install .` in the clone)")
        return EXIT_USAGE
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
