"""llama-bench results, one dict per result row, in markdown (default), CSV, JSON and JSONL (``-o``).

Columns are found by header name, so extra columns (``nkvo``, ``n_batch``, ``threads``, ``fa``) are harmless.
A ``pp N`` test fills ``prompt_tokens``/``prompt_tps``, a ``tg N`` test ``eval_tokens``/``eval_tps``; a combined
``ppN+tgM`` test fills both token counts and keeps its one rate as ``extra["pg_tps"]``. CSV/JSON print the mean
time per repetition (``avg_ns``): it becomes ``prompt_eval_ms``/``eval_ms`` (``total_ms`` for combined tests).
``extra``: ``test`` (``pp512``, ``tg128``, ``pp512+tg128``), ``tps_stddev``, ``depth_tokens`` (``@ d512``), the
other markdown cells by header name as printed, or for CSV/JSON ``model``, ``backend``, ``ngl``, ``gpu_info``,
``test_time``, ``tensor_buft_overrides``, ``stddev_ms``; a markdown row's ``size`` and ``params`` also as numbers,
``model_size_mib`` and ``model_params_billions``. ``n_cpu_moe`` > 0 goes to ``moe_experts_cpu``. Rows pasted
without their header are read when they show their columns themselves (model, size, params, backend first; test
and ``t/s ± sd`` last; the cells between unnamed and not kept).
The version comes from the ``build: <commit> (<number>)`` line (markdown) or ``build_commit``/``build_number``.
llama-batched-bench's table (``| PP | TG | B | N_KV | T_PP s | S_PP t/s | T_TG s | S_TG t/s | T s | S t/s |``)
gives one dict per row: token counts, ``prompt_eval_ms``/``eval_ms``/``total_ms`` from the seconds, the rates,
and ``extra`` ``test`` (``pp512+tg32x4``), ``batch``, ``n_kv``, ``total_tps``.
"""
from __future__ import annotations

import csv
import json
import re

from . import llama_cpp
from .base import FamilyParser
from .units import scaled
from .units import integer, number, size_mib

NAME = "llama-bench"
BATCHED, SWEEP = "llama-batched-bench", "llama-sweep-bench"  # the other bench tools whose tables it reads

_TEST = re.compile(r"(pp|tg) ?(\d+)(?:\+tg ?(\d+))?(?: @ d(\d+))?")
_TPS = re.compile(r"([\d.]+)(?:\s*\u00b1\s*|\s{2,}|\s\+\s)([\d.]+)")
# a rate whose "±" a paste lost: "|  2.60   0.02 |", the row's last cell two numbers apart
_LOST_SPREAD = re.compile(r"\|\s*[\d.]+(?:\s{2,}|\s\+\s)[\d.]+\s*\|?\s*$")  # (or a "+" for it: "903.49 + 3.16")


def _spread(text: str) -> bool:
    """Whether a row ends in a rate and its spread (``17.83 ± 0.03``, or with the ``±`` lost)."""
    return "\u00b1" in text or _LOST_SPREAD.search(text) is not None


_PARAMS = re.compile(r"([\d.]+) ?([KMBT])")
_PARAMS_BILLIONS = {"K": 1e-6, "M": 1e-3, "B": 1.0, "T": 1e3}


def _model_figures(row: dict) -> dict:
    """The model's size and parameters of a markdown row as numbers ("13.70 GiB" -> ``model_size_mib`` 14028.8,
    "30.53 B" -> ``model_params_billions`` 30.53); a cell that is no such figure is left out."""
    out = {}
    size = size_mib(row.get("size") or "")
    if size is not None:
        out["model_size_mib"] = size
    params = _PARAMS.fullmatch((row.get("params") or "").strip())
    if params is not None and (value := number(params[1])) is not None:
        out["model_params_billions"] = round(value * _PARAMS_BILLIONS[params[2]], 6)
    return out


def _headerless(cells: list) -> list | None:
    """The columns of a llama-bench row pasted without its header, when the row shows them itself: the model,
    its size and parameters first (``| deepseek2 671B Q8_0 | 307.20 GiB | 672.05 B | CUDA | …``), the test and
    its rate with their spread last (``| tg256 | 17.83 ± 0.03 |``); the settings between them stay unnamed ("")."""
    if len(cells) < 5 or _TPS.fullmatch(cells[-1]) is None or _TEST.fullmatch(cells[-2]) is None:
        return None
    # the model's cell may follow a name a grep or a script put first ("lcp q8_0 | qwen3 4B Q8_0 | 3.98 GiB | …")
    size = next((i for i in (1, 2) if size_mib(cells[i]) is not None and _PARAMS.fullmatch(cells[i + 1])), None)
    if size is None or len(cells) < size + 5:
        return None
    return [""] * (size - 1) + ["model", "size", "params", "backend"] + [""] * (len(cells) - size - 5) + ["test", "t/s"]


def _cells(text: str) -> list[str]:
    return [c.strip() for c in text.strip().strip("|").split("|")]


class Parser(FamilyParser):
    NAME = NAME

    def __init__(self) -> None:
        super().__init__()
        self._md_columns: list[str] | None = None
        self._md_headerless = False  # the columns came from a row without a header (``_headerless``)
        self._csv_columns: list[str] | None = None
        self._json_lines: list[str] | None = None
        self._json_read = False  # the open JSON object's row was read already (its last lines are skipped)
        self._batched = False
        self._table_open = False  # under a header: rows are read until the table ends (a row whose "±" a paste
                                  # lost holds no routing key)

    def feed(self, text: str, line: str) -> None:
        if self._table_open and not text.lstrip().startswith("|"):
            self._batched = self._table_open = self.greedy = False
        if self._csv_columns is not None:
            if text.startswith('"'):
                self._fields_row(dict(zip(self._csv_columns, next(csv.reader([text])))))
                return
            self._csv_columns = None
            self.greedy = False
        if self._json_lines is not None:
            self._json_object_line(text)
            return
        stripped = text.strip()
        raw = line.strip()
        if raw != stripped and raw.endswith(stripped) and raw[:len(raw) - len(stripped)].rstrip().endswith("|"):
            # what was taken for a "name  | " line prefix is the table's first cell ("model | size | …")
            stripped = raw
        if stripped.startswith("|") or (" | " in stripped and ("\u00b1" in stripped or stripped.endswith("| t/s"))):
            # a table pasted from a rendered page loses its outer pipes: "model | size | … | t/s"
            self._markdown(stripped)
        elif "build_commit" in text:
            self._build_commit_line(stripped)
        else:
            version = llama_cpp.version_of(stripped)
            if version is not None:
                self.runs.version = version

    # -- markdown --------------------------------------------------------------------------------------------
    def _markdown(self, text: str) -> None:
        cells = _cells(text)
        # llama-bench's header always names the model's size or parameters; a table of other tools with "test" and
        # "t/s" columns (llama-benchy's, measured against a server) is not its evidence
        if "t/s" in cells and "test" in cells and ("size" in cells or "params" in cells):
            self._md_columns, self._md_headerless = cells, False
            self._batched = False
            self._table_open = self.greedy = True
            self.evidence += 1
            return
        if "S_PP t/s" in cells and "PP" in cells:
            self._md_columns = cells
            self._batched = self._table_open = self.greedy = True  # its rows hold no routing key: read every line
                                                                    # until the table ends
            self.evidence += 1
            return
        if self._batched and self._md_columns is not None and len(cells) == len(self._md_columns):
            self._batched_row(dict(zip(self._md_columns, cells)))
            return
        if (self._md_columns is None or self._md_headerless) and _spread(text) \
                and (columns := _headerless(cells)) is not None:
            # rows pasted without their header: the columns from each row's own shape
            self.evidence += self._md_columns is None
            self._md_columns, self._md_headerless = columns, True
        if self._md_columns is None or len(cells) != len(self._md_columns) or not _spread(text):
            return
        row = dict(zip(self._md_columns, cells))
        tps = _TPS.search(row.get("t/s", ""))
        test = _TEST.fullmatch(row.get("test", ""))
        if test is None:
            self.runs.unparsed(text)
            return
        # an odd rate ("nan ± nan") loses itself, not the row's test and token counts
        extra = {k: v for k, v in row.items() if k and k not in ("t/s", "test", "n_cpu_moe")}
        extra.update(_model_figures(row))
        self._row(test_kind=test[1], first_n=int(test[2]), gen_n=integer(test[3]), depth=integer(test[4]),
                  avg_tps=None if tps is None else number(tps[1]), stddev_tps=None if tps is None else number(tps[2]),
                  avg_ms=None, stddev_ms=None,
                  n_cpu_moe=integer(row.get("n_cpu_moe")), extra=extra, odd=text if tps is None else None)

    def _batched_row(self, row: dict) -> None:
        """llama-batched-bench: ``| PP | TG | B | N_KV | T_PP s | S_PP t/s | T_TG s | S_TG t/s | T s | S t/s |``."""
        pp, tg, batch = integer(row.get("PP")), integer(row.get("TG")), integer(row.get("B"))
        if pp is None or tg is None:
            return
        self.evidence += 1
        runs = self.runs
        runs.close()
        report = runs.current
        report["prompt_tokens"], report["eval_tokens"] = pp, tg
        report["prompt_eval_ms"] = scaled(row.get("T_PP s") or "x", 1000)
        report["prompt_tps"] = number(row.get("S_PP t/s"))
        report["eval_ms"] = scaled(row.get("T_TG s") or "x", 1000)
        report["eval_tps"] = number(row.get("S_TG t/s"))
        report["total_ms"] = scaled(row.get("T s") or "x", 1000)
        # the tool that printed it, by its columns: llama-batched-bench's has "B", ik_llama.cpp's llama-sweep-bench not
        report["framework"] = BATCHED if "B" in row else SWEEP
        report["extra"].update({"test": f"pp{pp}+tg{tg}x{batch}", "batch": batch, "n_kv": integer(row.get("N_KV")),
                                "total_tps": number(row.get("S t/s"))})
        runs.close()

    # -- CSV / JSON / JSONL ----------------------------------------------------------------------------------
    def _build_commit_line(self, text: str) -> None:
        if text.startswith("{") and text.endswith("}"):
            try:
                obj = json.loads(text)
            except ValueError:
                return
            if isinstance(obj, dict):
                self._fields_row(obj)
        elif text.startswith("build_commit,"):
            self._csv_columns = next(csv.reader([text]))
            self.greedy = True
            self.evidence += 1
        elif text.startswith('"build_commit"'):
            self._json_lines, self._json_read = ["{", text], False
            self.greedy = True

    def _json_object_line(self, text: str) -> None:
        stripped = text.strip()
        if stripped in ("}", "},"):
            lines, self._json_lines = self._json_lines, None
            self.greedy = False
            if not self._json_read:
                self._json_object(lines)
        elif not self._json_read:
            self._json_lines.append(stripped)
            if stripped.startswith('"stddev_ts"'):
                # the row's results are all in (its samples follow): read it now, so that a log cut inside the
                # object (a post that ends at the samples) still gives its row
                self._json_object(self._json_lines)
                self._json_read = True

    def _json_object(self, lines: list) -> None:
        try:
            obj = json.loads("\n".join(lines).rstrip(",") + "\n}")
        except ValueError:
            return
        self._fields_row(obj)

    def _fields_row(self, row: dict) -> None:
        def field(name):
            value = row.get(name)
            return None if value is None else str(value)

        n_prompt, n_gen = integer(field("n_prompt")) or 0, integer(field("n_gen")) or 0
        if n_prompt == 0 and n_gen == 0:
            return
        commit, build = field("build_commit"), field("build_number")
        if commit is not None:
            self.runs.version = f"{commit} ({build})" if build is not None else commit
        extra = {"model": field("model_type"), "backend": field("backends"), "ngl": field("n_gpu_layers"),
                 "gpu_info": field("gpu_info"), "test_time": field("test_time"),
                 "tensor_buft_overrides": field("tensor_buft_overrides")}
        extra = {k: v for k, v in extra.items() if v is not None}
        depth = integer(field("n_depth"))
        if n_prompt and n_gen:
            kind, first_n, gen_n = "pp", n_prompt, n_gen
        elif n_prompt:
            kind, first_n, gen_n = "pp", n_prompt, None
        else:
            kind, first_n, gen_n = "tg", n_gen, None
        self._row(test_kind=kind, first_n=first_n, gen_n=gen_n, depth=depth or None,
                  avg_tps=number(field("avg_ts")), stddev_tps=number(field("stddev_ts")),
                  avg_ms=scaled(field("avg_ns") or "x", "0.000001"),
                  stddev_ms=scaled(field("stddev_ns") or "x", "0.000001"),
                  n_cpu_moe=integer(field("n_cpu_moe")), extra=extra)

    # -- one result ------------------------------------------------------------------------------------------
    def _row(self, *, test_kind, first_n, gen_n, depth, avg_tps, stddev_tps, avg_ms, stddev_ms, n_cpu_moe, extra,
             odd=None):
        self.evidence += 1
        runs = self.runs
        runs.close()
        report = runs.current
        if test_kind == "pp" and gen_n:
            test = f"pp{first_n}+tg{gen_n}"
            report["prompt_tokens"], report["eval_tokens"], report["total_ms"] = first_n, gen_n, avg_ms
            extra["pg_tps"] = avg_tps
        elif test_kind == "pp":
            test = f"pp{first_n}"
            report["prompt_tokens"], report["prompt_tps"], report["prompt_eval_ms"] = first_n, avg_tps, avg_ms
        else:
            test = f"tg{first_n}"
            report["eval_tokens"], report["eval_tps"], report["eval_ms"] = first_n, avg_tps, avg_ms
        extra["test"] = test
        extra["tps_stddev"] = stddev_tps
        if stddev_ms is not None:
            extra["stddev_ms"] = stddev_ms
        if depth:
            extra["depth_tokens"] = depth
        if n_cpu_moe:
            report["moe_experts_cpu"] = dict.fromkeys(llama_cpp.MOE_KEYS)
            report["moe_experts_cpu"]["n_cpu_moe"] = n_cpu_moe
        report["extra"].update(extra)
        if odd is not None:
            runs.unparsed(odd)
        runs.close()
