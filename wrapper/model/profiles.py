"""Per-framework knowledge as data: markers, the token stream, prompt flags, version flag, warnings.

A profile is one row of ``PROFILES``; nothing else in the package branches on framework names.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

from .events import ANY, ERR, OUT


LLAMA_CLI_NO_TOKENS = ("llama-cli without --simple-io writes generated text to the terminal device (/dev/tty), "
                       "not stdout: phasewrap sees no tokens; add --simple-io (or use llama-completion)")
# The kind of a command-line warning that says tokens will be invisible: dropped from a record that did read
# tokens. Other command-line warnings are of kind "command".
NO_TOKENS_KIND = "command_no_tokens"

@dataclass(frozen=True)
class Profile:
    """What phasewrap knows about one framework's console behaviour.

    ready: regex marking "weights loaded, accepting input" (None: the framework prints no such line).
    ready_also: more (stream, regex) ways to see ready; whichever is read first wins.
    first_token: regex for the first token; None means the default rule: the first bytes on the token
        stream after ready that are not the echoed prompt.
    token_end: regex on the token stream after which output is no longer tokens (a closing separator).
    prompt_flags / prompt_file_flags: where the prompt is given, to recognise its echo.
    missing_flags: (executable regex, flag alternatives, warning kind, warning): warn when that executable
        runs without any of the flags.
    reported_output_offset: output tokens = the framework's eval count + this (llama.cpp counts eval
        "runs": the first token comes out of prompt eval, so output = runs + 1).
    definitions: (phase, why the framework's own figure differs from phasewrap's) for flagged differences.
    server / default_port / host_env / discover_model: for --request: where the server listens unless the
        command line says (--port/--host), and whether the model name must be asked from /v1/models.
    log_line: regex a whole line of the framework's own log matches; with stdout and stderr merged (an
        asciinema recording, a timed log) text made only of such lines is neither the prompt's echo nor a token.
    model_flags: the framework's own model option(s) (llama.cpp ``-m``/``--model``); a live run whose model
        path there does not exist is refused before the start. ``model_is_path``: the value is always a path
        (llama.cpp); otherwise only a path-like value is checked (``./m``, ``/m``, ``~/m``, ``*.gguf``), not a
        hub id (``org/name``).
    load_steps: the load window's steps in the framework's order, as (step name, regex of the log line that
        ENDS that step); regex None = the step ended by ready. Written from real logs (tests/fixtures/logs,
        the H200 recordings); an entry fires at its first matching line after the entries before it.
    """

    name: str
    framework: str
    summary: str
    executables: tuple[str, ...] = ()
    arg_patterns: tuple[str, ...] = ()
    output_detect: Optional[str] = None
    ready: Optional[str] = None
    ready_stream: str = ANY
    first_token: Optional[str] = None
    token_stream: str = OUT
    token_end: Optional[str] = None
    prompt_flags: tuple[str, ...] = ()
    prompt_file_flags: tuple[str, ...] = ()
    version_args: tuple[str, ...] = ()
    server: bool = False
    missing_flags: tuple[tuple[str, tuple[str, ...], str, str], ...] = field(default_factory=tuple)
    ready_also: tuple[tuple[str, str], ...] = ()
    reported_output_offset: int = 0
    definitions: tuple[tuple[str, str], ...] = ()
    default_port: Optional[int] = None
    host_env: Optional[str] = None
    discover_model: bool = False
    log_line: Optional[str] = None
    load_steps: tuple[tuple[str, Optional[str]], ...] = ()
    model_flags: tuple[str, ...] = ()
    model_is_path: bool = False


# Load steps, from the frameworks' real logs and llama.cpp's source (common/common.cpp, tools/completion). At its
# default verbosity llama.cpp prints "backend init", "load the model …", then "threadpool init" once the model
# and its context (KV cache) exist; the warm-up run follows (its own line is trace-level) and "system_info" comes
# after it. With -v, or in older builds, the tensor and context lines split "model load" further.
LLAMA_STEPS = (
    ("start-up", r"llama backend init|main: build = |\bbuild: \d+"),
    ("backend init", r"load the model and apply lora|llama_model_loader: loaded meta data"),
    ("model metadata", r"load_tensors: loading model tensors|llm_load_tensors:"),
    ("model load", r"llama_context: constructing|llama_new_context_with_model:|llama_init_from_model:|threadpool init"),
    ("context + KV cache", r"warming up the model|threadpool init"),
    ("warm-up", r"threadpool init|system_info:"),
    ("sampler setup", None),
)
LLAMA_SERVER_STEPS = (
    ("start-up", r"llama_server: initializing|\bbuild: \d+|system info:"),
    ("backend init", r"load_model: loading model|llama_model_loader: loaded meta data"),
    ("model load", r"llama_context: constructing|llama_init_from_model:|threadpool init"),
    ("context + warm-up", r"load_model: initializing|initializing slots|model loaded"),
    ("server start", None),
)
VLLM_STEPS = (
    ("imports + config", r"Starting to load model|Loading model from scratch|Loading model weights"),
    ("weights", r"Loading weights took|Model loading took|Loading model weights took"),
    ("model init", r"Model loading took"),
    ("torch.compile", r"torch\.compile (?:takes|took) .*in total|torch\.compile and"),
    ("profiling / warm-up", r"Initial profiling/warmup run took|[Mm]emory profiling takes"),
    ("KV cache", r"GPU KV cache size|# GPU blocks|Available KV cache memory"),
    ("CUDA graphs", r"Graph capturing finished"),
    ("engine init", r"init engine .*took"),
    ("API server start", None),
)
SGLANG_STEPS = (
    ("start-up", r"Init torch distributed begin|server_args="),
    ("torch distributed", r"Init torch distributed ends"),
    ("pre-load", r"Load weight begin"),
    ("weights", r"Load weight end"),
    ("KV cache", r"KV Cache is allocated|Memory pool end"),
    ("CUDA graphs", r"Capture cuda graph end"),
    ("server start", None),
)
OLLAMA_STEPS = (
    ("server start", r"Listening on "),
    ("runner start", r"starting llama server|starting runner|loaded runners"),
    ("model load", r"llama runner started in|runner started"),
    ("until ready", None),
)
TRANSFORMERS_STEPS = (
    ("imports", r"\S"),  # the first output line of any kind
    ("setup", r"(?:Loading checkpoint shards|Loading weights)\s*:\s*0%"),  # the weight bar's first update
    ("weights", None),  # the bar from its first update to its last (ready)
)
MLX_STEPS = (
    ("download check", r"Fetching \d+ files"),
    ("model load", None),
)

LLAMA_MODEL = {"model_flags": ("-m", "--model"), "model_is_path": True}
LLAMA_PROMPT_FLAGS = ("-p", "--prompt")
LLAMA_FILE_FLAGS = ("-f", "--file")
# llama.cpp's log lines: a `--log-timestamps` prefix, a `function: ` (or `two words: `) head, a tab-indented
# continuation (sampler params), or nothing.
LLAMA_LOG_LINE = (r"(?:\d+\.\d\d\.\d{3}\.\d{3} [IWEDT] .*|[ \t]*[A-Za-z_][\w.-]*(?: [\w.-]+)?:(?: .*)?|\t.*|\s*)")

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            name="llama.cpp",
            log_line=LLAMA_LOG_LINE,
            load_steps=LLAMA_STEPS,
            framework="llama.cpp",
            summary="llama-completion / main: ready when the prompt echo starts on stdout (printed just before "
            "prompt processing), or at the `generate: n_ctx = …` log line (stderr) if that is read first; first "
            "token = the first stdout bytes that are not the echoed -p prompt",
            executables=(r"llama-completion", r"main", r"llama-simple", r"llama-run"),
            ready=r"generate: n_ctx\s*=|main: prompt: '",
            ready_stream=ERR,
            # llama.cpp logs from a background thread, so the `generate:` line can arrive milliseconds after
            # the echo that follows it; the echo (written directly) is the better clock when there is one.
            ready_also=((OUT, r"(?=\S)"),),
            token_end=r" ?\[end of text\]",
            reported_output_offset=1,
            definitions=(
                ("load_s", "llama.cpp's load time starts after process start-up and includes the warm-up run"),
                ("ttft_s", "llama.cpp's prompt eval time excludes sampling and the time to print the first token"),
                ("decode_s", "llama.cpp's eval time counts the runs after the first token and excludes printing"),
            ),
            prompt_flags=LLAMA_PROMPT_FLAGS,
            prompt_file_flags=LLAMA_FILE_FLAGS,
            version_args=("--version",),
            **LLAMA_MODEL,
        ),
        Profile(
            name="llama-cli",
            log_line=LLAMA_LOG_LINE,
            framework="llama.cpp",
            summary="llama-cli --simple-io: ready at the `> ` input prompt on stdout (after the banner), first "
            "token = the first bytes after the echoed -p prompt, tokens end at the `[ Prompt: … ]` stats line",
            executables=(r"llama-cli",),
            ready=r"^> ",
            ready_stream=OUT,
            token_end=r"\n*\[ Prompt: ",
            prompt_flags=LLAMA_PROMPT_FLAGS,
            prompt_file_flags=LLAMA_FILE_FLAGS,
            version_args=("--version",),
            **LLAMA_MODEL,
            missing_flags=(
                (
                    r"llama-cli",
                    ("--simple-io",),
                    NO_TOKENS_KIND,
                    LLAMA_CLI_NO_TOKENS,
                ),
            ),
        ),
        Profile(
            name="llama-server",
            log_line=LLAMA_LOG_LINE,
            load_steps=LLAMA_SERVER_STEPS,
            framework="llama-server",
            summary="llama-server: ready when it logs `listening on` / `server is listening`; tokens come from "
            "the HTTP stream of --request",
            executables=(r"llama-server", r"server"),
            ready=r"(?:server is listening on|listening on) https?://\S+|HTTP server listening",
            ready_stream=ANY,
            version_args=("--version",),
            **LLAMA_MODEL,
            server=True,
            default_port=8080,
            definitions=(
                ("ttft_s", "llama-server's prompt eval time excludes HTTP, queueing and sampling of the first token"),
                ("decode_s", "llama-server's eval time excludes HTTP framing and event delivery"),
            ),
        ),
        Profile(
            name="ollama",
            load_steps=OLLAMA_STEPS,
            framework="ollama",
            summary="ollama: `serve` is ready at `Listening on`; `ollama run` prints no load marker (its "
            "--verbose load duration lands in reported.load_ms); first token = first stdout bytes",
            executables=(r"ollama",),
            ready=r"Listening on ",
            ready_stream=ERR,
            version_args=("--version",),
            server=True,
            default_port=11434,
            host_env="OLLAMA_HOST",
            definitions=(
                ("load_s", "ollama's load duration excludes the client's start-up and the request round trip"),
                ("ttft_s", "ollama's prompt eval duration excludes loading and the client"),
            ),
        ),
        Profile(
            name="vllm",
            load_steps=VLLM_STEPS,
            framework="vllm",
            summary="vLLM server: ready at `Application startup complete` / `Uvicorn running on`; tokens from --request",
            executables=(r"vllm",),
            arg_patterns=(r"^vllm(\.entrypoints.*)?$",),
            ready=r"Application startup complete|Uvicorn running on",
            ready_stream=ANY,
            version_args=("--version",),
            server=True,
            default_port=8000,
            discover_model=True,
            model_flags=("--model",),
        ),
        Profile(
            name="sglang",
            load_steps=SGLANG_STEPS,
            framework="sglang",
            summary="SGLang server: ready at `The server is fired up and ready to roll!`; tokens from --request",
            arg_patterns=(r"^sglang\.launch_server$",),
            ready=r"The server is fired up and ready to roll|Uvicorn running on",
            ready_stream=ANY,
            server=True,
            default_port=30000,
            discover_model=True,
            model_flags=("--model-path", "--model"),
        ),
        Profile(
            name="mlx_lm",
            load_steps=MLX_STEPS,
            framework="mlx_lm",
            summary="mlx_lm.generate: ready at the first `==========` separator (stdout), tokens until the second",
            executables=(r"mlx_lm\.generate", r"mlx_lm"),
            arg_patterns=(r"^mlx_lm(\.generate)?$",),
            ready=r"^==========\s*$",
            ready_stream=OUT,
            token_end=r"\n?==========",
            prompt_flags=("-p", "--prompt"),
            model_flags=("--model",),
        ),
        Profile(
            name="transformers",
            load_steps=TRANSFORMERS_STEPS,
            framework="transformers",
            summary="a transformers script using generate() with a streamer: ready when the weight-loading "
            "progress bar reaches 100% (stderr), first token = first stdout bytes after it",
            output_detect=r"(?:Loading checkpoint shards|Loading weights)\s*:\s*100%",
            ready=r"(?:Loading checkpoint shards|Loading weights)\s*:\s*100%",
            ready_stream=ERR,
        ),
        Profile(
            name="generic",
            framework="unknown",
            summary="any program: no ready marker (load and TTFT are missing unless --ready is given), first "
            "token = first stdout bytes that do not echo an argument, decode = first to last stdout chunk",
        ),
    )
}

AUTO = "auto"
PYTHON_EXE = re.compile(r"^python(\d+(\.\d+)?)?$")


def names() -> list[str]:
    return [AUTO, *PROFILES]


def resolve(name: str, argv: Sequence[str]) -> tuple[Profile, list[Profile]]:
    """Pick a profile: by name, or for ``auto`` by the executable, then by ``-m module`` arguments.

    Returns (profile, output_candidates): when auto can't tell from the command line it returns
    ``generic`` and the profiles recognisable from output, to be switched to when one of them matches.
    """
    if name != AUTO:
        try:
            return PROFILES[name], []
        except KeyError:
            raise ValueError(f"--profile: unknown profile {name!r}; choose one of: {', '.join(names())}") from None
    exe = os.path.basename(argv[0]) if argv else ""
    for profile in PROFILES.values():
        if any(re.fullmatch(pat, exe) for pat in profile.executables):
            return profile, []
    for profile in PROFILES.values():
        if any(re.fullmatch(pat, arg) for pat in profile.arg_patterns for arg in argv[1:3]):
            return profile, []
    candidates = [p for p in PROFILES.values() if p.output_detect]
    return PROFILES["generic"], candidates


def prompts(profile: Profile, argv: Sequence[str], read_file=None) -> tuple[str, ...]:
    """Prompt texts the output may echo: the prompt flag's value, a prompt file, else long plain arguments."""
    found: list[str] = []
    args = list(argv[1:])
    for i, arg in enumerate(args):
        for flag in profile.prompt_flags:
            if arg == flag and i + 1 < len(args):
                found.append(args[i + 1])
            elif arg.startswith(flag + "=") and flag.startswith("--"):
                found.append(arg[len(flag) + 1:])
        for flag in profile.prompt_file_flags:
            if arg == flag and i + 1 < len(args):
                text = (read_file or _read_small)(args[i + 1])
                if text:
                    found.append(text)
    if found or profile.prompt_flags:
        return tuple(found)
    return tuple(a for a in args if len(a.strip()) >= 8 and not a.startswith("-") and not os.path.exists(a))


def _read_small(path: str, limit_bytes: int = 1 << 20) -> Optional[str]:
    try:
        with open(path, "rb") as fh:
            return fh.read(limit_bytes).decode("utf-8", errors="replace")
    except OSError:
        return None


def command_warnings(profile: Profile, argv: Sequence[str]) -> list[tuple[str, str]]:
    """(kind, text) of the warnings the command line alone justifies (e.g. llama-cli without --simple-io)."""
    exe = os.path.basename(argv[0]) if argv else ""
    return [
        (kind, text)
        for exe_pattern, flags, kind, text in profile.missing_flags
        if re.fullmatch(exe_pattern, exe) and not any(f in argv for f in flags)
    ]


MODEL_FILE_SUFFIXES = (".gguf", ".safetensors", ".bin", ".pt", ".pth", ".ggml")


def _flag_values(argv: Sequence[str], flags: Sequence[str]):
    """(flag, value) for each ``FLAG VALUE`` / ``--flag=VALUE`` in ``argv``."""
    args = list(argv[1:])
    for i, arg in enumerate(args):
        for flag in flags:
            if arg == flag and i + 1 < len(args):
                yield flag, args[i + 1]
            elif flag.startswith("--") and arg.startswith(flag + "="):
                yield flag, arg[len(flag) + 1:]


def _program_args(argv: Sequence[str]) -> list:
    """``argv`` without a Python interpreter's own options: in ``python3 -u -m module ARGS`` the ``-m`` is
    Python's, so the program is ``module ARGS``."""
    args = list(argv)
    if not args or not PYTHON_EXE.match(os.path.basename(args[0])):
        return args
    i = 1
    while i < len(args) and args[i].startswith("-") and args[i] != "-m":
        i += 1
    return args[i + 1:] if i < len(args) and args[i] == "-m" else args[i:]


def missing_model(profile: Profile, argv: Sequence[str]) -> Optional[tuple[str, str]]:
    """(flag, path) of a model path given to the profile's own model flag that does not exist; None if all do.

    Only the framework's declared flags are read (never a generic command's ``-m``, which may be ``python3 -m
    module``); a hub id (``org/name``) is no path unless the profile's flag always takes one.
    """
    for flag, value in _flag_values(_program_args(argv), profile.model_flags):
        path_like = (profile.model_is_path or value.startswith(("/", "./", "../", "~"))
                     or value.lower().endswith(MODEL_FILE_SUFFIXES))
        if path_like and value and not os.path.exists(os.path.expanduser(value)):
            return flag, value
    return None
