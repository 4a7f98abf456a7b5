"""Hugging Face text-generation-inference (TGI): the launcher's shard start-up and the router's request lines.

* ``Shard ready in 18.016616627s rank=0`` -> ``load_ms`` (Rust's ``Debug`` format, read like a Go duration). With
  several shards the first printed is kept, ``extra["shards_ready"]`` counts them and ``extra["shard_ready_ms"]``
  lists each in print order.
* A router ``Success`` line, ``generate{… total_time="611.286748ms" validation_time="754.5µs"
  queue_time="127.337µs" inference_time="610.405028ms" time_per_token="43.600359ms" seed="None"}: … Success``
  (also ``generate_stream{…}``, ``chat_completions{…}``), is one request: ``total_ms`` and ``extra``
  ``validation_ms``, ``queue_ms``, ``inference_ms``, ``time_per_token_ms``; the request's dict is then finished, so
  each request is one dict (start-up figures go to the first).
* The v3 router's prefix cache, ``text_generation_router_v3::radix: … Prefix 0 - Suffix 13715``: the request's
  tokens found cached and those left to compute, ``extra["radix_prefix_tokens"]``, ``["radix_suffix_tokens"]``
  (printed as a request is admitted, before its ``Success`` line; a second one before it starts the next record).
* The launcher's weight download, ``Downloaded /data/…/model-00008-of-00019.safetensors in 0:00:03.`` and
  ``Download: [8/19] -- ETA: …``: ``extra`` ``download_file_ms`` (each file's time, first 1000), ``download_ms``
  (their sum), ``download_files_done``, ``download_files_total`` (the ETA, an estimate, is not read).
"""
from __future__ import annotations

import re

from . import routes
from .base import SERIES_MAX, FamilyParser
from .units import clock_s, go_duration_ms

NAME = "tgi"

_SHARD_READY = re.compile(r"Shard ready in (\S+)")
_TIMING = re.compile(r'\b(total_time|validation_time|queue_time|inference_time|time_per_token)="([^"]+)"')
_TIMING_KEYS = {"validation_time": "validation_ms", "queue_time": "queue_ms", "inference_time": "inference_ms",
                "time_per_token": "time_per_token_ms"}
_RADIX = re.compile(r"Prefix (\d+) - Suffix (\d+)")
# the launcher fetching weights: "Downloaded /data/…/model-00008-of-00019.safetensors in 0:00:03." (a Python
# timedelta), then "Download: [8/19] -- ETA: 0:00:37.125000" (an estimate, not read)
_DOWNLOADED = re.compile(r"Downloaded \S+ in (\d+):(\d\d):(\d\d(?:\.\d+)?)\.?\s*$")
_DOWNLOAD_COUNT = re.compile(r"Download: \[(\d+)/(\d+)\]")
_EVIDENCE = routes.TGI_EVIDENCE
# A request line is TGI's own only under its router or its generation spans: text-embeddings-inference (TEI) prints
# the same Rust span fields (``rerank{total_time="177.15ms" …}: text_embeddings_router::http::server: … Success``).
_OWN_REQUEST = re.compile(r"text_generation_router|(?:^|\s)(?:generate|generate_stream|chat_completions|completions|"
                          r"compat_generate)\{")


class Parser(FamilyParser):
    NAME = NAME

    def feed(self, text: str, line: str) -> None:
        hit = False
        m = _SHARD_READY.search(text)
        if m is not None:
            self.runs.fill("load_ms", go_duration_ms(m[1]))
            extra = self.runs.current["extra"]
            extra["shards_ready"] = extra.get("shards_ready", 0) + 1
            extra.setdefault("shard_ready_ms", []).append(go_duration_ms(m[1]))
            hit = True
        elif 'total_time="' in text and text.rstrip().endswith("Success"):
            hit = self._request(text) and _OWN_REQUEST.search(text) is not None
        elif "Download" in text:
            hit = self._download(text)
        elif "Suffix " in text and (radix := _RADIX.search(text)) is not None:
            if "radix_prefix_tokens" in self.runs.current["extra"]:
                self.runs.close()  # a second request admitted before the first one's Success line was printed
            self.runs.put_extra("radix_prefix_tokens", int(radix[1]))
            self.runs.put_extra("radix_suffix_tokens", int(radix[2]))
        if hit or any(e in line for e in _EVIDENCE):
            self.evidence += 1

    def _download(self, text: str) -> bool:
        """A weight file downloaded (its time, in ``extra["download_file_ms"]``, and their sum ``download_ms``) or
        the count so far (``download_files_done`` of ``download_files_total``)."""
        extra = self.runs.startup()["extra"]
        if (m := _DOWNLOADED.search(text)) is not None:
            ms = round(clock_s(m[1], m[2], m[3]) * 1000, 3)
            files = extra.setdefault("download_file_ms", [])
            if len(files) < SERIES_MAX:
                files.append(ms)
            extra["download_ms"] = round(extra.get("download_ms", 0) + ms, 3)
            return True
        if (m := _DOWNLOAD_COUNT.search(text)) is not None:
            extra["download_files_done"], extra["download_files_total"] = int(m[1]), int(m[2])
            return True
        return False

    def _request(self, text: str) -> bool:
        timings = dict(_TIMING.findall(text))
        total = go_duration_ms(timings.get("total_time", ""))
        if total is None:
            return False
        runs = self.runs
        runs.put("total_ms", total)
        for field, key in _TIMING_KEYS.items():
            if field in timings:
                runs.put_extra(key, go_duration_ms(timings[field]))
        runs.close()
        return True
