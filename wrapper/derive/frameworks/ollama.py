"""ollama: ``ollama run --verbose`` statistics, the server log, and the API's final response object.

* ``--verbose`` block (Go durations): ``total duration`` -> ``total_ms``, ``load duration`` -> ``load_ms``,
  ``prompt eval count``/``duration``/``rate`` -> ``prompt_tokens``/``prompt_eval_ms``/``prompt_tps``, ``eval …``
  likewise; ``GPU loaded layers: 1/27`` -> ``gpu_layers``; ``llm library: metal`` -> ``extra["llm_library"]``.
* API response (``/api/generate``, ``/api/chat`` with ``"done": true``): ``total_duration``, ``load_duration``,
  ``prompt_eval_duration``, ``eval_duration`` (nanoseconds) -> the same ``*_ms`` keys; the counts likewise.
* Server log: ``llama runner started in 9.16 seconds`` -> ``load_ms``; ``msg="offload to cuda" layers.model=29
  layers.offload=29 memory.…`` (2024) or ``msg=offload library=cuda layers.requested=-1 layers.model=81
  layers.offload=44 layers.split=11,11,11,11 …`` (2025) -> ``gpu_layers``, ``extra["offload_to"]``,
  ``extra["layers_requested"]``, ``extra["layers_split"]`` (layers per GPU), ``extra["memory_estimate_mib"]``
  (``memory.`` fields in MiB, lists for per-GPU values); fields on indented continuation lines (a pasted line
  wrapped by hand) belong to the offload line above them; new-engine lines
  ``msg="model weights" buffer=CUDA0 size="11.5 GiB"``, ``msg="kv cache" device=…``, ``msg="compute graph" …``
  -> ``buffers``, ``msg="total memory"`` -> ``extra["total_memory_mib"]``; ``msg="model load progress 0.02"`` (debug
  level, while the weights load) -> ``extra["load_progress"]``, the last fraction printed (where a load that hung
  stopped); ``[GIN] … | 200 | 40.5837591s | … |
  POST "/api/generate"`` closes a request: ``total_ms`` (the HTTP latency, which includes any load), and
  ``extra["http_status"]``, ``extra["path"]``.
* The llama.cpp runner's own lines (older ollama): load/offload/buffer lines as in llama_cpp.py; its perf block
  fills the run figures except its ``load time``, kept as ``extra["llama_cpp_load_ms"]`` so that ``load_ms``
  stays ollama's own figure; the 2024 runner's JSON ``print_timings`` lines as in llama_server.py.
"""
from __future__ import annotations

import json
import re

from . import llama_cpp, llama_server, routes
from .base import FamilyParser
from .units import go_duration_ms, scaled, seconds_to_ms
from .rules import named
from .units import integer, number, size_mib

NAME = "ollama"

# The name as ollama's own output shows it (its journal tag "ollama[569358]:", its commands, paths and variables),
# not as any word: a comparison table's row "ollama  1450  480 …" or a prose mention is no ollama log, nor another
# tool's model store named after the registry it pulled from (RamaLama's "…/ramalama/models/ollama/smollm:135m").
_SELF = re.compile(r"ollama\[\d+\]|\bollama (?:run|serve|version|ps|pull|create|show)\b|(?<!models)[/\\.]ollama\b|(?<!models/)\bollama[/\\]"
                   r"|ollama\.(?:com|ai)|OLLAMA_|\bollama(?:-|_)?(?:runner|server|llama)|[Oo]llama (?:version|is running)"
                   r"|level=\w+ source=|\[GIN\]|^\S*ollama\S*\s+\|"  # docker compose's "ollama  | " service prefix
                   r"|\bollama[_-]v?\d")  # a version named ("ollama_v30_rc31")
_VERBOSE = re.compile(
    r"\s*(total duration|load duration|prompt eval count|prompt eval duration|prompt eval rate|eval count"
    r"|eval duration|eval rate):\s+(\S+)")
_VERBOSE_KEYS = {
    "total duration": "total_ms", "load duration": "load_ms", "prompt eval count": "prompt_tokens",
    "prompt eval duration": "prompt_eval_ms", "prompt eval rate": "prompt_tps", "eval count": "eval_tokens",
    "eval duration": "eval_ms", "eval rate": "eval_tps",
}
_GPU_LAYERS = re.compile(r"GPU loaded layers:\s+(\d+)/(\d+)")
_LIBRARY = re.compile(r"llm library:\s+(\S+)")
_RUNNER_STARTED = re.compile(r"llama runner started in ([\d.]+) seconds")
_SLOG_SOURCE = re.compile(r"source=\w+\.go:\d+")
_MSG = re.compile(r'msg=(?:"((?:[^"\\]|\\.)*)"|(\S+))')
_KV = re.compile(r'([\w.]+)=("(?:[^"\\]|\\.)*"|\S+)')
_GIN = re.compile(r'\[GIN\][^|]*\|\s*(\d{3})\s*\|\s*(\S+)\s*\|[^|]*\|\s*(\w+)\s+"([^"]+)"')
# its start-up line "Listening on 127.0.0.1:11434 (version 0.5.7)" (another program's "(version 1.0)" is no ollama's)
_VERSION = re.compile(r"Listening on \S+ \(version ([^)\s]+)\)|ollama version is (\S+)")
_INFERENCE_PATHS = ("/api/generate", "/api/chat", "/api/embed", "/api/embeddings", "/v1/chat/completions",
                    "/v1/completions", "/v1/embeddings")
# API response field -> (report key, nanoseconds?)
_API_FIELDS = (
    ("total_duration", "total_ms", True), ("load_duration", "load_ms", True),
    ("prompt_eval_count", "prompt_tokens", False), ("prompt_eval_duration", "prompt_eval_ms", True),
    ("eval_count", "eval_tokens", False), ("eval_duration", "eval_ms", True),
)
_SIZE_IN_LIST = re.compile(r"[\d.]+\s*[KMGT]?i?B")
_BUFFER_MSGS = {"model weights": "model_mib", "kv cache": "kv_mib", "compute graph": "compute_mib"}


def _kv_pairs(text: str) -> dict[str, str]:
    return {k: v[1:-1] if v.startswith('"') else v for k, v in _KV.findall(text)}


def _mib_or_list(value: str):
    """``"2.3 GiB"`` -> MiB; ``"[23.5 GiB 7.8 GiB]"`` (one value per GPU) -> list of MiB."""
    if value.startswith("[") and value.endswith("]"):
        return [size_mib(v) for v in _SIZE_IN_LIST.findall(value)]
    return size_mib(value)


class Parser(FamilyParser):
    NAME = NAME

    def __init__(self) -> None:
        super().__init__()
        self.server = llama_server.RequestTimings(self.runs)
        # The offload line being read: (its report, its fields so far, the line). A user who pasted it wrapped
        # leaves key=value fields on indented continuation lines, which are merged into it.
        self._offload: tuple[dict, dict, str] | None = None

    def feed(self, text: str, line: str) -> None:
        own = self._own(text, line)
        if not own:
            (llama_cpp.feed_perf(text, self.runs, load_key="x:llama_cpp_load_ms")
             or self.server.feed_json(text)
             or llama_cpp.feed_load(text, line, self.runs))
        # gin is any Go server's web framework (nexa's too): its access line is ollama's only on ollama's own API
        # or the root its CLI probes ("HEAD "/"), not on the OpenAI-style paths every server offers ("/v1/…")
        if own and not ("[GIN]" in text and '"/api/' not in text and not text.rstrip().endswith('"/"')) \
                or ("ollama" in line and (m := _SELF.search(line)) is not None and named(line, m[0])) \
                or ("source=" in text and _SLOG_SOURCE.search(text)) \
                or text.strip() == routes.OLLAMA_PULL:
            self.evidence += 1

    def finalize(self, report: dict, notes: dict) -> None:
        llama_cpp.finalize_load(report, notes)

    def _own(self, text: str, line: str) -> bool:
        runs = self.runs
        if self._offload is not None:
            if text[:1].isspace() and "=" in text and "msg=" not in text:
                report, fields, first = self._offload
                fields.update(_kv_pairs(text))
                self._apply_offload(report, fields, first)
                return True
            self._offload = None
        m = _VERBOSE.match(text) if ":" in text else None
        if m is not None:
            key, value = _VERBOSE_KEYS[m[1]], m[2]
            if key.endswith("_ms"):
                runs.put(key, go_duration_ms(value))
            elif key.endswith("_tps"):
                runs.put(key, number(value))
            else:
                runs.put(key, integer(value))
            return True
        if "GPU loaded layers" in text:
            m = _GPU_LAYERS.search(text)
            if m is not None:
                runs.set("gpu_layers", {"offloaded": int(m[1]), "total": int(m[2])})
                if int(m[1]) < int(m[2]):
                    runs.warn("offload_cpu", line)
                return True
        if "llm library" in text:
            m = _LIBRARY.search(text)
            if m is not None:
                runs.put_extra("llm_library", m[1])
                return True
        if "runner started" in text:
            m = _RUNNER_STARTED.search(text)
            if m is not None:
                runs.put("load_ms", seconds_to_ms(m[1]))
                return True
        if "[GIN]" in text:
            return self._gin(text)
        if "_duration" in text and text.lstrip().startswith("{"):
            return self._api_response(text)
        if "msg=" in text:
            if self._slog(text, line):
                return True
        if "version " in text:
            m = _VERSION.search(text)
            if m is not None:
                runs.version = m[1] or m[2]
                return True
        return False

    def _slog(self, text: str, line: str) -> bool:
        m = _MSG.search(text)
        if m is None:
            return False
        msg = m[1] if m[1] is not None else m[2]
        runs = self.runs
        if msg.startswith("offload to ") or msg == "offload":
            fields = _kv_pairs(text[m.end():])
            report = runs.startup()
            # 2024: msg="offload to cuda"; 2025: msg=offload library=cuda
            report["extra"]["offload_to"] = msg[len("offload to "):] if msg != "offload" else fields.get("library")
            self._offload = (report, fields, line)
            self._apply_offload(report, fields, line)
            return True
        if msg.startswith("model load progress "):
            progress = number(msg[len("model load progress "):])
            if progress is None:
                return False
            runs.startup()["extra"]["load_progress"] = progress
            return True
        kind = _BUFFER_MSGS.get(msg)
        if kind is not None:
            fields = _kv_pairs(text)
            device = fields.get("device") or fields.get("buffer_type") or fields.get("buffer") or fields.get("backend")
            mib = size_mib(fields.get("size", ""))
            if device is None or mib is None:
                return False
            runs.startup()
            runs.add_buffer(device, kind, mib)
            return True
        if msg == "total memory":
            mib = size_mib(_kv_pairs(text).get("size", ""))
            if mib is not None:
                runs.startup()["extra"]["total_memory_mib"] = mib
                return True
        return False

    def _apply_offload(self, report: dict, fields: dict[str, str], line: str) -> None:
        """The ``layers.*``/``memory.*`` fields of an offload line (again as continuation lines add fields)."""
        model, offload = integer(fields.get("layers.model")), integer(fields.get("layers.offload"))
        if model is not None and offload is not None:
            report["gpu_layers"] = {"offloaded": offload, "total": model}
            if offload < model:
                self.runs.warn("offload_cpu", line)
        requested = integer(fields.get("layers.requested"))
        if requested is not None:
            report["extra"]["layers_requested"] = requested
        split = fields.get("layers.split")
        if split:
            report["extra"]["layers_split"] = [integer(n) for n in split.split(",")]
        memory = {k[len("memory."):]: _mib_or_list(v) for k, v in fields.items() if k.startswith("memory.")}
        if memory:
            report["extra"]["memory_estimate_mib"] = memory

    def _gin(self, text: str) -> bool:
        m = _GIN.search(text)
        if m is None:
            return False
        status, latency, method, path = m[1], m[2], m[3], m[4]
        if method != "POST" or not path.startswith(_INFERENCE_PATHS):
            return True
        runs = self.runs
        runs.put("total_ms", go_duration_ms(latency))
        runs.put_extra("http_status", int(status))
        runs.put_extra("path", path)
        runs.close()
        return True

    def _api_response(self, text: str) -> bool:
        try:
            obj = json.loads(text)
        except ValueError:
            return False
        if not isinstance(obj, dict) or obj.get("done") is not True:
            return False
        runs = self.runs
        if runs.has_run_figures():
            runs.close()
        for field, key, is_ns in _API_FIELDS:
            value = obj.get(field)
            if isinstance(value, int) and not isinstance(value, bool):
                runs.set(key, scaled(str(value), "0.000001") if is_ns else value)
        runs.close()
        return True
