"""Command line: parse arguments, call the library, map outcomes to exit statuses. No measuring logic here."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from . import __version__, profiles
from .export import csvlog, jsonl, summary
from .export.appender import OutputPathError, append_locked, check_writable
from .launch import StartError
from .markers import ANY
from .runner import RunConfig, execute, prepare
from .sampling import busy_gpu_processes, make_samplers

EXIT_USAGE = 2
EXIT_NOT_FOUND = 127
EXIT_BUSY = 3


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


def _positive_int(option: str):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} expects a whole number, got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{option} must be >= 1, got {text!r}")
        return value
    return parse


def _positive(option: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} expects seconds, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{option} must be > 0, got {text!r}")
        return value
    return parse


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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="phasewrap", description="Split an LLM run into load, time to first token and decode "
                     "by wrapping the unmodified inference command.")
    parser.add_argument("--version", action="version", version=f"phasewrap {__version__}")
    sub = parser.add_subparsers(dest="subcommand", metavar="SUBCOMMAND", parser_class=_Parser)
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


def _emit(record: dict, args: argparse.Namespace) -> None:
    if args.jsonl:
        append_locked(args.jsonl, lambda _first: jsonl.line(record))
    if args.csv:
        dropped: list = []

        def make(first: Optional[str]) -> str:
            text, lost = csvlog.render([record], first)
            dropped.extend(lost)
            return text

        append_locked(args.csv, make)
        if dropped:
            _err(f"phasewrap: --csv: {args.csv}'s header has no column for tag(s) {', '.join(dropped)}; "
                 "they are in the JSONL record only (start a new CSV file to get columns for them)")
    if args.format == "table":
        _err(summary.render(record))
    elif args.format == "json":
        try:
            sys.stdout.write(jsonl.pretty(record))
            sys.stdout.flush()
        except BrokenPipeError:
            _err("phasewrap: stdout closed; the JSON record was not printed")


def _err(text: str) -> None:
    try:
        sys.stderr.write(text if text.endswith("\n") else text + "\n")
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass


def cmd_run(args: argparse.Namespace) -> int:
    config = _run_config(args)
    try:
        prep = prepare(config)
    except ValueError as exc:
        raise UsageError(f"phasewrap run: {exc}") from None
    _check_outputs(args)
    for warning in prep.warnings:
        _err(f"phasewrap: warning: {warning}")
    samplers = make_samplers(args.gpu, args.cpu, args.interval)
    busy = busy_gpu_processes() if args.gpu != "off" else None
    if busy:
        listing = ", ".join(f"pid {p.get('pid')} ({p.get('name') or '?'}, {p.get('vram_mib') or '?'} MiB)" for p in busy)
        if args.require_idle_gpu:
            _err(f"phasewrap: --require-idle-gpu: the GPU is in use by {listing}; stop them or drop the option")
            return EXIT_BUSY
        _err(f"phasewrap: warning: other processes use the GPU ({listing}); timings are only comparable on an "
             "idle GPU")
    try:
        record, result = execute(prep, samplers=samplers)
    except StartError as exc:
        _err(f"phasewrap: {exc}")
        return EXIT_NOT_FOUND
    _emit(record, args)
    return result.exit_status


COMMANDS = {"run": cmd_run}


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.subcommand is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        return COMMANDS[args.subcommand](args)
    except (UsageError, OutputPathError) as exc:
        _err(str(exc))
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
