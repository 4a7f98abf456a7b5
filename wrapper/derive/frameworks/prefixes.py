"""Line prefixes that loggers, supervisors and capture tools put before a framework's own text.

``strip_prefix`` removes any stack of them (``tgi-1  | 2025-04-16T17:58:47.006993Z  INFO …``,
``[42027] 1.37.495.377 I slot …``, ``Dec 03 14:58:42 host ollama[937]: 2023/12/03 14:58:42 llama.go:492: …``) and
returns the rest with the time of the outermost prefix that carries a usable time.

Recognised, outermost first as they usually stack:
  * ANSI colour codes (vLLM colours its process prefix on a terminal)
  * docker compose ``name-1  | ``
  * journald/syslog short ``Dec 03 14:58:42 host ident[pid]: `` and moreutils ``ts`` default ``Dec 03 14:58:42 ``
    (no year printed, so no time is returned; a locale's lower-case month, ``oct 11`` or ``oct. 11``, too)
  * ISO 8601 ``2025-04-16T17:58:47.006993Z ``, Docker's ``--timestamps`` RFC 3339 with nanoseconds
    ``2026-05-12T07:54:39.312201059Z ``, ``time=2024-12-09T00:58:02.941+08:00 `` (ollama's slog),
    Docker Desktop's ``2025-05-30 09:55:22.281 | `` (the bar belongs to the time),
    ``2026-05-26 21:34:15,233 `` (Python logging), ``[2025-09-03 18:33:18 TP0] `` (SGLang), journald short-iso
  * Go's log ``2023/12/03 14:58:42 ``
  * moreutils ``ts '%.s'`` epoch ``1795999052.885986 `` and ``ts -s`` elapsed ``00:00:05 ``
  * llama.cpp ``--log-timestamps`` ``0.00.052.757 I `` (minutes.seconds.milliseconds.microseconds, level letter)
  * ``[pid] `` (llama-server under some launchers)
  * vLLM process tags ``(EngineCore_0 pid=3933741) ``, ``(EngineCore_DP0 pid=…) ``, ``(VllmWorker TP0 pid=…) ``,
    ``(VllmWorker rank=4 pid=…) ``, ``(Worker_TP0 pid=…) ``, ``(APIServer pid=…) ``, Ray Serve's
    ``(ServeReplica:app:LLMServer:model pid=…) `` stacked before them
  * innermost, a comment's ``# `` before a table's row (``# | model | size | …``: a script's or a page's
    commented output)

Framework log formats that carry meaning (vLLM's ``INFO 07-17 23:41:16 [file.py:N]``, glog ``I0410 …``,
``[TensorRT-LLM][INFO]``) are left in place for the parsers.
"""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

EPOCH = "epoch"
NAIVE = "naive"
RELATIVE = "relative"


@dataclass(frozen=True, slots=True)
class PrefixTime:
    """The time a prefix printed.

    ``kind`` says how to read ``t_s``:
      * ``"epoch"``: seconds since 1970-01-01 UTC; the prefix printed a zone (``Z``, ``+08:00``) or an epoch number.
      * ``"naive"``: a wall-clock time printed without a zone, converted as if it were UTC; align it with a
        known local offset before comparing it with epoch times.
      * ``"relative"``: seconds since the program (or the capture tool) started: llama.cpp ``--log-timestamps``
        and ``ts -s``.
    """

    kind: str
    t_s: float


_ANSI = r"(?P<ansi>\x1b\[[0-9;]*m)"
_COMPOSE = r"(?P<compose>(?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]*\s+\|\ )"  # a name has a letter: "4096 | 199.1 |" is a table's row
_SYSLOG = r"(?P<syslog>[A-Za-z][a-z]{2}(?:[^\W\d_]{0,2}\.)?\ [\ \d]\d\ \d\d:\d\d:\d\d(?:\.\d+)?(?:\ \S+\ [\w.@/-]+\[\d+\]:)?\ )"
_ISO = (r"(?P<iso>(?:time=)?(?P<ib>\[)?(?P<Y>\d{4})-(?P<M>\d\d)-(?P<D>\d\d)[T\ ](?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)"
        r"(?:[.,](?P<f>\d+))?(?P<tz>Z|[+-]\d\d(?::?\d\d)?)?(?(ib)[^\]]*\])(?:\ \S+\ [\w.@/-]+\[\d+\]:)?\ +(?:\|\ +(?!.*\|\s*$))?"
        # Python logging's "%(asctime)s - %(name)s - %(levelname)s - %(message)s" (the name optional)
        r"(?:-\ (?:[\w.]+\ -\ )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\ -(?:\ +|$))?)")
_GOLOG = (r"(?P<golog>(?P<gY>\d{4})/(?P<gM>\d\d)/(?P<gD>\d\d)\ (?P<gh>\d\d):(?P<gmi>\d\d):(?P<gs>\d\d)"
          r"(?:\.(?P<gf>\d+))?\ )")
_LLAMA = r"(?P<llama>(?P<lm>\d+)\.(?P<ls>\d\d)\.(?P<lms>\d{3})\.(?P<lus>\d{3})(?:\ [IWEDN](?=\ |$))?\ ?)"
# seconds since 1970 from 2014 to 2033: any other 10 digits are a count ("1073741824 bytes … copied", dd's)
_EPOCH = r"(?P<epoch>(?P<es>1[4-9]\d{8})(?:\.(?P<ef>\d+))?\ )"
_ELAPSED = r"(?P<elapsed>(?P<rh>\d\d):(?P<rm>\d\d):(?P<rs>\d\d)(?:\.(?P<rf>\d+))?\ )"
_PID = r"(?P<pid>\[\d+\]\ )"
# A log quoted in a post or an e-mail ("> {"function":"print_timings",…", "> Nov 19 11:57:03 host ollama[5]: …", "> |
# Metric |"); not a chat's prompt ("> hello"): what follows must open a log line or a table
_QUOTE = r"(?P<quote>(?:>\ ?){0,2}>\ (?=[\[{|0-9]|[A-Z][a-z]{2}\ [\ \d]\d\ \d\d:))"
_VLLM = r"(?P<vllm>\s*\([A-Za-z_][\w:.-]*(?:\ \w+(?:=\w+)?)*\ pid=\d+\)\ ?)"

# Which prefixes can start with which character: one small regex per class of first character instead of one
# big alternation tried on every line (most lines start with a letter and can only be compose/syslog/time=).
_DIGIT_RX = re.compile("|".join((_ISO, _GOLOG, _LLAMA, _EPOCH, _ELAPSED, _COMPOSE)))
_LETTER_RX = re.compile("|".join((_SYSLOG, _ISO, _COMPOSE)))
_BRACKET_RX = re.compile("|".join((_PID, _ISO)))
_SPACE_RX = re.compile(_VLLM)
_LLAMA_RX = re.compile(_LLAMA)
_ANSI_RX = re.compile(_ANSI)
_BY_FIRST: dict[str, re.Pattern] = {}
for _c in "0123456789":
    _BY_FIRST[_c] = _DIGIT_RX
for _c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ":
    _BY_FIRST[_c] = _LETTER_RX
_BY_FIRST["["] = _BRACKET_RX
for _c in " \t(":
    _BY_FIRST[_c] = _SPACE_RX
_BY_FIRST["\x1b"] = _ANSI_RX
_BY_FIRST[">"] = re.compile(_QUOTE)
del _c

_MAX_LAYERS = 8
_day_cache: dict[tuple[str, str, str], int] = {}


def _days_epoch_s(y: str, mo: str, d: str) -> int:
    key = (y, mo, d)
    v = _day_cache.get(key)
    if v is None:
        v = calendar.timegm((int(y), int(mo), int(d), 0, 0, 0, 0, 0, 0))
        if len(_day_cache) < 4096:
            _day_cache[key] = v
    return v


def _frac(digits: str | None) -> float:
    return int(digits) / 10 ** len(digits) if digits else 0.0


def _tz_offset_s(tz: str) -> int:
    if tz == "Z":
        return 0
    sign = -1 if tz[0] == "-" else 1
    digits = tz[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    return sign * (hours * 3600 + minutes * 60)


def _time_of(m: re.Match) -> PrefixTime | None:
    kind = m.lastgroup
    if kind == "llama":
        t = int(m["lm"]) * 60 + int(m["ls"]) + int(m["lms"]) / 1e3 + int(m["lus"]) / 1e6
        return PrefixTime(RELATIVE, round(t, 6))
    if kind == "iso":
        t = (_days_epoch_s(m["Y"], m["M"], m["D"]) + int(m["h"]) * 3600 + int(m["mi"]) * 60 + int(m["s"])
             + _frac(m["f"]))
        tz = m["tz"]
        if tz is None:
            return PrefixTime(NAIVE, round(t, 9))
        return PrefixTime(EPOCH, round(t - _tz_offset_s(tz), 9))
    if kind == "golog":
        t = (_days_epoch_s(m["gY"], m["gM"], m["gD"]) + int(m["gh"]) * 3600 + int(m["gmi"]) * 60 + int(m["gs"])
             + _frac(m["gf"]))
        return PrefixTime(NAIVE, round(t, 9))
    if kind == "epoch":
        return PrefixTime(EPOCH, int(m["es"]) + _frac(m["ef"]))
    if kind == "elapsed":
        t = int(m["rh"]) * 3600 + int(m["rm"]) * 60 + int(m["rs"]) + _frac(m["rf"])
        return PrefixTime(RELATIVE, round(t, 9))
    return None


def _layers(line: str) -> tuple[int, re.Match | None]:
    """End of the prefix stack, and the outermost match that carries a time (or None)."""
    pos = 0
    timed = None
    composed = False
    by_first = _BY_FIRST
    for _ in range(_MAX_LAYERS):
        if pos >= len(line):
            break
        rx = by_first.get(line[pos])
        if rx is None:
            break
        if rx is _LETTER_RX:
            # most lines' text starts with a letter: skip the search where none of its prefixes can start (syslog
            # has a space fourth, or a month's dot and a space after it, compose a bar, ollama's slog time=)
            if "|" not in line and not line.startswith(" ", pos + 3) and ". " not in line[pos + 3:pos + 7] \
                    and not line.startswith("time=", pos):
                break
            m = rx.match(line, pos)
        elif rx is _DIGIT_RX:
            # the stamp of llama.cpp --log-timestamps: where it matches, the alternatives before it can't (they
            # need four digits and a - or /), so the alternation would give this very match
            m = _LLAMA_RX.match(line, pos) or rx.match(line, pos)
        else:
            m = rx.match(line, pos)
        if m is None or m.end() == pos or (m.lastgroup == "compose" and composed):
            break  # one compose prefix at most: "Dtype | Prompt | Generation | …" is a table's row, not three services
        composed = composed or m.lastgroup == "compose"
        if timed is None and m.lastgroup in _TIMED:
            timed = m
        pos = m.end()
    return pos, timed


_TIMED = frozenset(("llama", "iso", "golog", "epoch", "elapsed"))


def strip_prefix(line: str) -> tuple[str, PrefixTime | None]:
    """Remove the stacked prefixes of one log line; return ``(rest, time)``.

    A trailing newline is dropped. ``time`` is the first prefix (outermost) that printed a usable time, or
    ``None`` when there was none (journald's short format prints no year, ``[pid]`` and process tags no time).
    A line without any prefix comes back unchanged with ``None``.
    """
    line = line.rstrip("\r\n")
    pos, timed = _layers(line)
    return _uncommented(line[pos:] if pos else line), (None if timed is None else _time_of(timed))


def _uncommented(text: str) -> str:
    """A table's row a script printed as a comment ("# | qwen2 1.5B Q4_0 | 885.97 MiB | …"): the row itself."""
    return text[2:] if text.startswith("# |") else text


def _rest(line: str) -> str:
    """``strip_prefix(line)[0]`` without working out the time."""
    line = line.rstrip("\r\n")
    pos, _ = _layers(line)
    return _uncommented(line[pos:] if pos else line)


def text_bytes(line: str) -> int:
    """How many bytes ``strip_prefix(line)[0]`` is in UTF-8 (as a chunk of a timed log holds it)."""
    text = _rest(line)
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))


def strip_text(line: str) -> str:
    """``strip_prefix(line)[0]`` without working out the time (the parsers' hot path)."""
    text = _rest(line)
    # markdown bold a post put around figures ("Dynamo bytecode transform time: **7.51 s**"): no part of the log
    # ("*** Measurement Settings ***", perf_analyzer's own heading, is left alone)
    return text.replace("**", "") if "**" in text and "***" not in text else text
