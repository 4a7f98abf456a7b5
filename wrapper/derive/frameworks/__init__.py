"""Reported figures: what an inference framework printed about its own run, as JSON-ready dicts.

    parse_lines(lines, framework=None) -> list[dict]     # a whole log at once
    new_parser(framework=None) -> StreamParser           # .feed_line(line) as lines arrive, .results() at the end
    strip_prefix(line) -> (rest, PrefixTime | None)      # see prefixes.py
    from_server_timings(obj) -> dict                     # llama-server's ``timings`` object

The dict's keys are documented in figures.py; each family module documents what it fills. Families are tried in
the order of ``FAMILIES``; with ``framework=None`` the log is attributed to the first family that recognised
any of its lines (wrappers such as ollama come before the llama.cpp they embed), or ``unknown``. A family that
has shown nothing within DETECTION_WINDOW_LINES routed lines after a later one was recognised is given up, so a
wrapper's marker appearing only deep into a long log is not seen: pass ``framework=`` when it is known.

Speed: a line is looked at only if it contains one of the active families' key substrings (one trie-shaped
regex search per line); prefixes are stripped only for those lines. Parsing costs nothing per line beyond that
search until a key shows up, so long stretches of generated text or progress output are cheap. A family's module is
imported on the first line routed to it (the keys are in routes.py), so a run whose output names no family
imports none of them.
"""
from __future__ import annotations

import collections
import functools
import importlib
import re
from typing import Callable, Iterable, NamedTuple, Optional, Protocol, runtime_checkable

from ...core.safe import ANSI
from . import generic, warn_rules
from .base import FamilyParser
from .figures import REPORT_KEYS
from .routes import LIBRARIES, ROUTES
from .taken import Taken

__all__ = ["DETECTION_WINDOW_LINES", "FAMILIES", "FRAMEWORKS", "REPORT_KEYS", "PrefixTime", "ReportedParser",
           "StreamParser", "from_server_timings", "new_parser", "parse_lines", "strip_prefix"]

UNKNOWN = "unknown"


class Family(NamedTuple):
    """One log family: its label and other names users may pass as ``framework``; its routing keys and the module
    of its parser are in ``routes.ROUTES[name]``."""

    name: str
    aliases: tuple[str, ...] = ()

    @property
    def parser(self) -> type[FamilyParser]:
        """The family's parser class (imports its module)."""
        return importlib.import_module(f"{__name__}.{ROUTES[self.name].module}").Parser


# Detection order: wrappers and specific tools before the generic llama.cpp lines they also print.
FAMILIES = (
    # KTransformers prints ollama's `eval count:` block; it is claimed only on its own lines (ktransformers.py).
    Family("ktransformers", ("kt",)),
    Family("ollama"),
    Family("koboldcpp", ("kobold", "kcpp")),
    Family("text-generation-webui", ("textgen", "oobabooga", "text_generation_webui", "tgwui")),
    Family("localai", ("local-ai",)),  # wraps llama-server's lines; claims only on its own
    Family("llama-server", ("llama_server", "server")),
    Family("mnn-llm", ("mnn",)),  # its llm_bench table looks like llama-bench's but for its modelSize column
    Family("llama-bench", ("llama_bench",)),
    Family("llama.cpp", ("llama_cpp", "llama-cpp", "llamacpp", "llama-cli", "llama-completion", "ik_llama.cpp")),
    # SGLang before vLLM: SGLang's own logs can carry vLLM's import-time lines, and the serving-benchmark report
    # both print is SGLang's only when it names the sglang backend.
    Family("sglang", ("SGLang",)),
    Family("vllm", ("vLLM",)),
    Family("text-embeddings-inference", ("tei", "text_embeddings_inference")),  # TGI's span shape
    Family("tgi", ("text-generation-inference",)),
    Family("tensorrt-llm", ("tensorrt_llm", "trtllm", "trt-llm", "TensorRT-LLM")),
    Family("mlx_lm", ("mlx-lm", "mlx")),
    Family("transformers", ("hf", "accelerate")),
    Family("lmdeploy"),
    Family("mistral.rs", ("mistralrs", "mistral-rs")),
    Family("openvino-genai", ("openvino", "ov-genai", "llm_bench")),
    Family("exllamav2", ("exllama",)),
    Family("mllm"),
    Family("mlc-llm", ("mlc", "mlc_llm")),
    Family("onnxruntime-genai", ("ort-genai", "onnxruntime_genai")),
    Family("executorch"),
    Family("perf_analyzer", ("triton", "perf-analyzer")),
    Family("torchchat"),
    Family("rkllm", ("rknn-llm",)),
    Family("llama2.c", ("llama2c",)),
    Family("maxtext", ("MaxText",)),
    Family("lemonade", ("turnkeyml", "oga-bench")),
    Family("genai-perf", ("genai_perf",)),
    Family("trtexec"),
    Family("candle"),
    Family("ipex-llm", ("bigdl-llm", "ipex_llm")),
)
FRAMEWORKS = tuple(f.name for f in FAMILIES) + (UNKNOWN,)
_BY_NAME = {name.lower(): f for f in FAMILIES for name in (f.name,) + f.aliases}


@runtime_checkable
class ReportedParser(Protocol):
    """Anything fed a log line by line that can say, at any time, what the log reported so far."""

    def feed_line(self, line: str) -> None: ...

    def results(self) -> list[dict]: ...


class _Unknown(FamilyParser):
    """Holds the warnings of a log no family recognised."""

    NAME = UNKNOWN


class _Deferred:
    """A family's parser before its first line: the routing keys alone. The first line routed to it, or a warning,
    imports the family's module and builds the real parser (warnings are kept for it until then, so a family
    detected later still reports them)."""

    def __init__(self, family: Family):
        route = ROUTES[family.name]
        self.family = family
        self.NAME = family.name
        self.KEYS, self.EVIDENCE_KEYS = route.keys, route.evidence
        self._real: FamilyParser | None = None
        self._warnings: list[tuple[str, str]] = []

    def _parser(self) -> FamilyParser:
        if self._real is None:
            self._real = self.family.parser()
            for kind, line in self._warnings:
                self._real.warn(kind, line)
            self._warnings = []
        return self._real

    @property
    def evidence(self) -> int:
        return 0 if self._real is None else self._real.evidence

    @property
    def greedy(self) -> bool:
        return self._real is not None and self._real.greedy

    def feed(self, text: str, line: str) -> None:
        self._parser().feed(text, line)

    def warn(self, kind: str, line: str) -> None:
        if self._real is None:
            self._warnings.append((kind, line))
        else:
            self._real.warn(kind, line)

    def results(self) -> list[dict]:
        return self._parser().results()


def _family(framework: str) -> Family | None:
    if framework.lower() == UNKNOWN:
        return None
    family = _BY_NAME.get(framework.lower())
    if family is None:
        raise ValueError(f"framework {framework!r} is not known; use one of {', '.join(FRAMEWORKS)} "
                         f"or None to detect it from the log")
    return family


@functools.lru_cache(maxsize=512)  # key sets recur per family and detection state
def _trie_search(words: frozenset) -> Callable[..., re.Match | None]:
    """The compiled trie regex's ``search`` for a set of keys (the same sets recur in every run of a session)."""
    return re.compile(_trie_pattern(words)).search


def _trie_pattern(words: Iterable[str]) -> str:
    """A regex matching any of ``words``, shaped as a trie (shared prefixes factored out): several times faster
    to search than a flat alternation of the same words."""
    root: dict = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    escaped: dict = {}  # re.escape per character, once each (a key set has ~4000 characters, ~60 distinct)

    def emit(node: dict) -> str:
        branches = [(escaped.get(ch) or escaped.setdefault(ch, re.escape(ch))) + emit(child)
                    for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" in node:
            return "(?:" + body + ")?" if len(branches) == 1 else body + "?"
        return body

    return emit(root)


_WARN = object()  # routing target of the warn_rules keys
# Once a family is detected, families before it in the table that have shown nothing yet get this many more routed
# lines to show their evidence before they stop being fed (a wrapper's markers show up early in its logs).
DETECTION_WINDOW_LINES = 2_000
# A log's finished runs are held (for the general reader's figures and the version) until there are more than this
# many; then ``pop_finished`` hands them out as they end, so a server log of millions of requests stays bounded.
HOLD_REPORTS = 1_000
# A family's line is read by the general reader too, for the figures the family leaves (``StreamParser._hold``),
# until lines of its shape gave nothing this many times; at most MAX_SHAPES shapes are tracked.
VET_TRIES = 4
MAX_SHAPES = 4096
# Once a family has claimed the log, the general reader reads a line of one shape (its text without digits) at most
# this many times: a server's request lines repeat by the million and past their first few give only the same
# labels again (the family's own records carry every request). A progress bar's redraws are not counted (its last
# one holds the bar's totals), nor a table's rows (an open table is read whole).
SHAPE_READS = 64
_BAR_MARKS = ("%|", "/s]", "s/it]", "\u2588")
_NO_DIGITS = str.maketrans("", "", "0123456789")
_NONE_SHOWN: frozenset = frozenset()


class StreamParser:
    """Incremental parser: ``feed_line`` each line as it arrives (any stream, prefixes included), ``results``
    whenever needed (it does not consume state). Satisfies ``ReportedParser``.

    Routing: one trie-shaped regex search rejects lines that contain no key of any active family (most lines of
    a long log); the others go to each family whose own trie search finds one of its keys (from the position of
    the first key, since no key starts earlier). Evidence-only keys are routed while their family is undetected,
    and families after the first detected one are dropped (they cannot be chosen any more). Undetected families
    before it are dropped too once DETECTION_WINDOW_LINES more lines were routed without their showing evidence.
    """

    def __init__(self, framework: str | None = None):
        if framework is None:
            families = FAMILIES
        else:
            family = _family(framework)
            families = () if family is None else (family,)
        self._fixed = framework is not None
        self._parsers: list = [_Deferred(f) for f in families]
        self._unknown = _Unknown()
        self._all = self._parsers + [self._unknown]
        self._greedy: list[FamilyParser] = []
        self._window_left: int | None = None  # routed lines left before undetected families are dropped
        self._figures = generic.FigureReader()
        self._figures.line_before = self._line_before
        self.line_before = None  # the block reader's: the stream's line before the one being fed (see _line_before)
        self._raw: Optional[str] = None  # the line being fed, as given
        # those given before it, the nearest first (as far up as a table's header may stand)
        self._raw_before: collections.deque = collections.deque((None,), maxlen=generic.HEADER_LINES_BACK)
        self._self_name = generic.SelfName()
        self._figures_done = False
        self._draining = False
        self._claimed = self._fixed and bool(self._parsers)  # some family showed evidence (never undone)
        self._claimer = self._parsers[0].NAME if self._claimed else None  # the family that claimed it first
        self._figure_gate = generic.GATE.search
        self._vet_left: dict = {}  # a held line's shape -> tries left before such lines are not held any more
        self._shape_reads: dict = {}  # a line's shape -> times the general reader read it in a claimed log
        self._build_routes()

    def _build_routes(self) -> None:
        """(Re)build the gate and the key -> parsers map; evidence keys only for families still undetected."""
        owners: list[tuple[str, object]] = []
        self._detecting: list[FamilyParser] = []
        for p in self._parsers:
            keys = p.KEYS
            if not self._fixed and p.evidence == 0 and p.EVIDENCE_KEYS:
                keys = keys + p.EVIDENCE_KEYS
                self._detecting.append(p)
            owners += [(k, p) for k in keys]
        self.family_keys = frozenset(k for k, _ in owners)  # the families' own (a block prefilter's literals)
        owners += [(k, _WARN) for k in warn_rules.KEYS]
        self.routing_keys = frozenset(k for k, _ in owners)
        self._gate_search = _trie_search(self.routing_keys)
        self._owners = owners
        self._targets: list | None = None  # built when the gate first lets a line through
        self._own_search: dict = {}  # parser -> the search of its KEYS alone (``_evidence_only``)
        self._one: tuple | None | bool = False  # the settled family's route (``_single``); False: not known yet

    def _build_targets(self) -> list:
        """(target, its own keys' search) for each parser and the warning rules."""
        # one pass over the owners (they come grouped by target, in table order): with thirty-odd families a scan
        # per target made building the routes cost more than parsing a short log
        own: dict = {}
        for k, t in self._owners:
            own.setdefault(id(t), (t, set()))[1].add(k)
        return [(t, _trie_search(frozenset(keys))) for t, keys in own.values()]

    def _evidence_only(self, parser, line: str, m: re.Match | None) -> bool:
        """Whether ``line`` reached a family still being detected through its evidence keys alone."""
        if m is None:
            return False
        search = self._own_search.get(parser)  # keyed by the parser itself: a dropped one's id may be reused
        if search is None:
            search = self._own_search[parser] = _trie_search(frozenset(parser.KEYS)) if parser.KEYS else None
        return search is None or search(line, m.start()) is None

    def _detected(self) -> None:
        """A family recognised its first line: families after the first detected one in table order can no
        longer be chosen, so they stop being fed; its evidence keys stop being routed."""
        self._claimed = True
        for i, p in enumerate(self._parsers):
            if p.evidence:
                self._claimer = p.NAME
                del self._parsers[i + 1:]
                self._window_left = DETECTION_WINDOW_LINES if i else None
                break
        self._regroup()

    def _close_window(self) -> None:
        """The detection window is over: only families that showed evidence stay."""
        self._parsers[:] = [p for p in self._parsers if p.evidence]
        self._window_left = None
        self._regroup()

    def _regroup(self) -> None:
        self._all = self._parsers + [self._unknown]
        self._greedy[:] = [p for p in self._greedy if p in self._parsers]
        self._build_routes()

    def feed_line(self, line: str) -> None:
        """One line of log text, with or without its newline; ``\\r``-separated progress redraws are split and
        ANSI escape sequences (colours, cursor moves of a progress bar) removed wherever they are in the line."""
        self._raw_before.appendleft(self._raw)
        self._raw = line
        if "\x1b" in line:
            line = ANSI.sub("", line)  # colours, erase-line, cursor moves, window titles (core.safe)
        if self._self_name.name is None and (not self._claimed or self._claimer in LIBRARIES):
            self._self_name.feed(line)  # a family's name wins (a library's does not): no need to look further
        m = self._gate_search(line)
        if m is None and not self._greedy:
            if self._reading_figures() and (self._figures.open or self._fresh_shape(line)
                                            and self._figure_gate(line, 0, generic.GATE_CHARS)):
                self._figures.feed(_strip_text(line))
            return  # the common case, kept to one or two regex searches
        body = line.rstrip("\r\n")
        if "\r" in body:
            for part in body.split("\r"):
                if part:
                    self._feed(part, self._gate_search(part))
        else:
            self._feed(line, m)

    def _single(self) -> tuple | None:
        """(family, its keys' search, the warning keys' search, its name as a set) once one real family is settled and nothing but it
        and the warning rules takes lines (the common state of a long log): ``_feed`` then routes in two searches.
        Kept until the routes change (``_build_routes``, ``_swap``)."""
        if self._one is False:
            chosen = self._settled()
            if chosen is None or self._detecting:
                self._one = None
            else:
                if self._targets is None:
                    self._targets = self._build_targets()
                searches = dict((id(t), search) for t, search in self._targets)
                self._one = (chosen, searches[id(chosen)], searches[id(_WARN)], frozenset((chosen.NAME,)))
        return self._one

    def _feed(self, line: str, m: re.Match | None) -> None:
        greedy = self._greedy
        if m is not None and not greedy and (one := self._single()) is not None:
            self._feed_one(line, m.start(), *one)
            return
        if m is None and not greedy:
            return
        targets: list = list(greedy)
        if m is not None:
            start = m.start()
            if self._targets is None:
                self._targets = self._build_targets()
            for target, has_key in self._targets:
                if target not in targets and has_key(line, start):
                    targets.append(target)
        text = _strip_text(line)
        raw = line.rstrip("\r\n")
        # the families shown this line to read it: not those shown it only as evidence of whose log it is (their
        # detection keys), which take no figure from it (the same line later in the log, once detection is over,
        # is shown to none)
        shown = frozenset(t.NAME for t in targets if t is not _WARN
                          and not (t in self._detecting and self._evidence_only(t, line, m)))
        family_line = self._claimed and self._claimer in shown
        held = self._read_figures(line, text, targets, shown, family_line)
        warn = detected = False
        fed: list = []
        for target in targets:
            if target is _WARN:
                warn = True
                continue
            target.feed(text, raw)
            if type(target) is _Deferred:  # its parser exists now: it takes the stand-in's place everywhere
                target = self._swap(target)
            fed.append(target)
            if target.greedy:
                if target not in greedy:
                    greedy.append(target)
            elif target in greedy:
                greedy.remove(target)
            if target.evidence and target in self._detecting:
                detected = True
        if held is not None:
            self._settle(held, text, fed, family_line)
        if detected:
            self._detected()
        elif self._window_left is not None:
            self._window_left -= 1
            if self._window_left <= 0:
                self._close_window()
        if warn:
            kind = warn_rules.classify(text)
            if kind is not None:
                for p in self._all:
                    p.warn(kind, raw)

    def _read_figures(self, line: str, text: str, targets, shown: frozenset, family_line: bool) -> str | None:
        """The general reader's part of ``_feed``, before the families read the line: the line's shape when the
        reader holds its figures for ``_settle`` (a line some family is shown), else None."""
        if not (self._reading_figures() and (self._figures.open or self._fresh_shape(line)
                                             and self._figure_gate(line, 0, generic.GATE_CHARS))):
            return None
        # A line the claiming family reads: only the values it leaves are kept (``settle``).
        held = self._hold(text, targets) if shown and (family_line or not self._claimed) else None
        if held is not None or not family_line:
            self._figures.feed(text, routed=shown)
        else:
            self._figures.interrupt()
        return held

    def _feed_one(self, line: str, start: int, family: FamilyParser, has_key, has_warning, own: frozenset) -> None:
        """``_feed`` of a line with a routing key at ``start`` in the ``_single`` state: the same steps for the
        one family and the warning rules, without the general bookkeeping (no detection, no window). ``own``:
        the family's name, as the families shown a line it is routed."""
        routed = has_key(line, start) is not None
        text = _strip_text(line)
        raw = line.rstrip("\r\n")
        held = self._read_figures(line, text, (family,), own if routed else _NONE_SHOWN, routed)
        if routed:
            family.feed(text, raw)
            if family.greedy:
                self._greedy.append(family)
            if held is not None:
                self._settle(held, text, (family,), True)
        if has_warning(line, start) is not None and (kind := warn_rules.classify(text)) is not None:
            for p in self._all:
                p.warn(kind, raw)

    def _fresh_shape(self, line: str) -> bool:
        """Whether the general reader is to read this line (SHAPE_READS; its shape is the line's as given, prefixes
        and all, without digits): always in a log no family claimed (its figures are the log's records) and on a
        progress bar's redraws. (An open table's rows are read whatever this says.)"""
        if not self._claimed or any(mark in line for mark in _BAR_MARKS):
            return True
        shape = line.translate(_NO_DIGITS)
        reads = self._shape_reads.get(shape)
        if reads is None:
            if len(self._shape_reads) < MAX_SHAPES:
                self._shape_reads[shape] = 1
            return True
        if reads >= SHAPE_READS:
            return False
        self._shape_reads[shape] = reads + 1
        return True

    def _hold(self, text: str, targets) -> str | None:
        """Before a line some family is shown goes to the general reader: have the reader hold its figures for
        ``_settle`` (which keeps the values the families leave) and return the line's shape (its text without
        digits), or None when it is not to be read: the families' periodic lines (their own through and
        through, and folded unread by a block reader) and shapes that gave nothing VET_TRIES times (a server's
        request lines, which the family reads whole)."""
        if _periodic(text, targets):
            return None
        shape = text.translate(_NO_DIGITS)
        left = self._vet_left.get(shape)
        if left is None:
            if len(self._vet_left) >= MAX_SHAPES:
                return None
            self._vet_left[shape] = VET_TRIES
        elif left <= 0:
            return None
        self._figures.hold()
        return shape

    def _settle(self, shape: str, text: str, fed, family_line: bool) -> None:
        """After the families shown a held line read it: the reader keeps what they left (``generic.settle``)."""
        families = [t for t in fed if t is not _WARN]
        if _periodic(text, families):  # a family met first on this line: its module is loaded only now
            self._figures.settle(None, family_line)
        elif not self._figures.settle(Taken.of(families), family_line):
            self._vet_left[shape] -= 1

    @property
    def reads_figures(self) -> bool:
        """Whether a line with a figure but no routing key can still matter (the general reader, a self-name)."""
        return not self._figures_done or (self._self_name.name is None and not self._claimed)

    @property
    def wants_every_line(self) -> bool:
        """A parser is inside a block (a table, a JSON object) and needs every line, keys or not; or the general
        reader is inside a fixed-width table, whose rows of bare numbers its gate may not find."""
        return bool(self._greedy) or (self._figures.open and not self._figures_done)

    def periodic(self) -> tuple:
        """The settled family's periodic lines (``base.Periodic``) that a block reader may fold now: nothing but
        that family reads them (no table open, no detection: the general reader skips a routed line in a claimed
        log) and each fold is exact."""
        if self._greedy:
            return ()
        one = self._single()
        if one is None or not one[0].PERIODIC:
            return ()
        chosen = one[0]
        return tuple(kind for kind in chosen.PERIODIC if getattr(chosen, kind.ready)())

    def _line_before(self, back: int = 1, raw: bool = False) -> Optional[str]:
        """The stream's line ``back`` lines before the one being fed, without its prefixes (the general reader's
        header of a table whose header line nothing led it to read): the block reader's, which knows the lines it
        skipped (any ``back`` within its block), else the one given before (every line is given when no block
        reader feeds this parser; ``generic.HEADER_LINES_BACK`` are kept).
        ``raw``: with its prefixes (a table's first column name may look like a compose service's)."""
        hook = self.line_before
        if hook is not None:
            before = hook(self._raw, back)
        else:
            before = self._raw_before[back - 1] if back <= len(self._raw_before) else None
        if before is None:
            return None  # past what is known; a blank line is "" (a double-spaced table's header is above it)
        before = ANSI.sub("", before) if "\x1b" in before else before
        return before.rstrip("\r\n") if raw else _strip_text(before)

    def interrupt_figures(self) -> None:
        """A line the general reader would not be shown was skipped (a periodic line folded): as feeding it."""
        self._figures.interrupt()

    def fold(self, kind, items: list) -> None:
        """Periodic lines of ``kind`` (one ``findall`` item each), as feeding them would take them."""
        getattr(self._one[0], kind.fold)(items)

    def _settled(self) -> FamilyParser | None:
        """The family whose log this is, once nothing can change that; else None."""
        if self._fixed:
            chosen = self._parsers[0] if self._parsers else None
        elif self._window_left is None and len(self._parsers) == 1 and self._parsers[0].evidence:
            chosen = self._parsers[0]
        else:
            return None
        return chosen if isinstance(chosen, FamilyParser) else None

    def pop_finished(self) -> list[dict]:
        """Reports of finished runs, in order, once the family is settled and more than HOLD_REPORTS are held
        (then from there on as they end); ``results`` gives the rest. When they start to flow, the general
        reader's figures so far go to the first of them and the reader stops."""
        chosen = self._settled()
        if chosen is None or not (self._draining or chosen.runs.held() > HOLD_REPORTS):
            return []
        out = chosen.runs.pop_done()
        if out and not self._draining:
            self._draining = True
            out[:1] = generic.merge(out[:1], [generic.joined(self._figures.runs(True))], True, UNKNOWN)
            self._figures_done = True
        return out

    def _reading_figures(self) -> bool:
        """The general reader still has a use: room for figures, or no family has claimed the log yet (its core
        keys then still count). A family's evidence never goes away, so once stopped it stays stopped."""
        if self._figures_done:
            return False
        if self._figures.full and self._claimed:
            self._figures_done = True
            return False
        return True

    def _swap(self, deferred: _Deferred) -> FamilyParser:
        real = deferred._parser()
        for group in (self._parsers, self._detecting, self._greedy, self._all):
            group[:] = [real if p is deferred else p for p in group]
        self._owners = [(k, real if t is deferred else t) for k, t in self._owners]
        self._one = False
        if self._targets is not None:
            self._targets = [(real if t is deferred else t, search) for t, search in self._targets]
        return real

    def results(self) -> list[dict]:
        """One dict per run/request found, in order; never empty (see figures.py for the keys). The general
        reader's figures are folded in (generic.merge): the family's own figures always win."""
        if self._fixed:
            chosen = self._parsers[0] if self._parsers else self._unknown
        else:
            chosen = next((p for p in self._parsers if p.evidence), self._unknown)
        claimed = chosen is not self._unknown
        if chosen.NAME in LIBRARIES and self._self_name.name is not None:
            claimed = False  # the program names itself; the library's bar is a step of its load (routes.LIBRARIES)
        if self._draining:  # the figures went with the first report handed out
            return chosen.results()
        reports = chosen.results()
        took = Taken.of_reports(reports) if claimed and self._figures.has_pending else None
        return generic.merge(reports, self._figures.runs(claimed, chosen.NAME, took), claimed,
                             self._self_name.name or UNKNOWN)


def _periodic(text: str, parsers) -> bool:
    """Whether ``text`` is one of the periodic lines (``base.Periodic``) of one of ``parsers``, as its family's
    own regex reads it: not when a progress bar is glued before it (a paste that lost the bar's carriage return:
    "Processed prompts:   0%|  | 47/10000 [00:35<42:17, 3.92it/s, …]INFO … Avg prompt throughput: …") nor when
    the regex does not read it (a terminal's wrap broke a word: "Avg generation thr      oughput"): its figures are
    then the general reader's."""
    if "%|" in text:
        return False
    kinds = [p for t in parsers for p in getattr(t, "PERIODIC", ()) if p.key in text]
    return bool(kinds) and any(p.figures.search(text.encode("utf-8", "surrogateescape")) for p in kinds)


def _prefixes():
    """The prefix table (imported with the first routed line: it compiles a dozen regexes)."""
    from . import prefixes
    return prefixes


def _strip_text(line: str) -> str:
    """``prefixes.strip_text``; the first call imports the table and puts the real function in this name's place."""
    global _strip_text
    _strip_text = _prefixes().strip_text
    return _strip_text(line)


def __getattr__(name: str):
    """``PrefixTime``, ``strip_prefix`` and ``strip_text`` are the prefix module's, imported when first asked for."""
    if name in ("PrefixTime", "strip_prefix", "strip_text"):
        return getattr(_prefixes(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def from_server_timings(timings: dict) -> dict:
    """llama-server's ``timings`` object as reported figures (see llama_server.from_server_timings)."""
    from .llama_server import from_server_timings as convert
    return convert(timings)


def new_parser(framework: str | None = None) -> StreamParser:
    """An incremental parser; ``framework=None`` detects the family from the content (see FAMILIES)."""
    return StreamParser(framework)


def parse_lines(lines: Iterable[str], framework: str | None = None) -> list[dict]:
    """Reported figures, one dict per run/request found, in order, from log lines as printed (prefixes are
    stripped here). ``framework=None``: detect from the content; a log nothing recognises gives one dict with
    framework ``unknown``, no figures, and whatever warnings its lines state."""
    if isinstance(lines, str):  # a whole text rather than its lines
        lines = lines.splitlines(keepends=True)
    parser = StreamParser(framework)
    for line in lines:
        parser.feed_line(line)
    return parser.results()
