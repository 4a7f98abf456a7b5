"""One streaming completion request to a server phasewrap started, stamped as its events arrive.

``StreamRequest`` runs on its own daemon thread: it POSTs one streaming request, reads the body with at most one
socket read per call (``HTTPResponse.read1``: no line buffering between the socket and the stamp), stamps each read
with the run's clock right after it returns, and hands the bytes to ``sse.SSEParser``. ``StreamTally`` turns the
stamped events into the figures (first and last content, token counts, the server's own ``timings``); it is pure,
so recorded bodies can be replayed through it. Nothing raises out of the thread: every failure ends up in
``StreamResult.error``.
"""
from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Optional, Sequence
from urllib.parse import urlsplit

from ..derive.gaps import GapStamps
from ..derive.markers import MARKER_TEXT_CHARS
from ..derive.reasoning import ThinkTracker
from .sse import Event, SSEParser

OPENAI = "openai"
LLAMA = "llama"
APIS = (OPENAI, LLAMA)
ENDPOINTS = {OPENAI: "/v1/completions", LLAMA: "/completion"}
MODELS_ENDPOINT = "/v1/models"
DEFAULT_MAX_TOKENS = 128
DEFAULT_TIMEOUT_S = 600.0
READ_BYTES = 1 << 16
ERROR_BODY_CHARS = 200
END_DRAIN_S = 0.5
_WILDCARD_HOSTS = {"0.0.0.0": "127.0.0.1", "::": "::1"}


@dataclass(frozen=True)
class StreamResult:
    """What one streaming request measured. Times are CLOCK_MONOTONIC ns of the run's clock; ``None`` = not seen.

    t_sent_ns: right after the request was handed to the kernel. t_first_content_ns / t_last_content_ns: the read
    that completed the first / last event with non-empty generated text. t_end_ns: the read that completed the
    end event (``[DONE]``, llama's ``"stop": true``) or hit the end of the body.
    events: SSE events received (a ``[DONE]`` included); content_events: those with non-empty text.
    tokens / tokens_source: the best token count and where it came from (``tokens_predicted``, ``len(tokens)``,
    ``usage.completion_tokens`` or ``content_events``, which undercounts when an event carries several tokens).
    timings / usage: the server's objects verbatim, from the last event carrying them.
    content_stamps_ns: the stamp of each read that completed content events (one per read), for the decode gaps;
    gap_texts: ``(index, text)`` for each of those reads that came ≥ 50 ms after the one before: the text before it.
    thinking / t_think_end_ns / t_first_answer_ns: a reasoning model's stream — ``reasoning_content`` / ``reasoning``
    deltas, or content opening with a think tag (``reasoning.ThinkTracker``): when the thinking ended, when the
    answer began. Reasoning deltas count as content events (they are output tokens), so TTFT runs to the first token
    of either kind.
    first_text / last_text: the text of the first / last content event (the markers' ``text``), at most
    ``MARKER_TEXT_CHARS`` characters kept.
    """

    url: str
    api: str
    model: Optional[str]
    max_tokens: int
    http_status: Optional[int]
    t_sent_ns: Optional[int]
    t_first_content_ns: Optional[int]
    t_last_content_ns: Optional[int]
    t_end_ns: Optional[int]
    events: int
    content_events: int
    tokens: Optional[int]
    tokens_source: Optional[str]
    timings: Optional[dict]
    usage: Optional[dict]
    error: Optional[str]
    content_stamps_ns: tuple = ()
    gap_texts: tuple = ()
    thinking: bool = False
    t_think_end_ns: Optional[int] = None
    t_first_answer_ns: Optional[int] = None
    first_text: str = ""
    last_text: str = ""


_STAMP_KEYS = ("t_sent_ns", "t_first_content_ns", "t_last_content_ns", "t_end_ns", "t_think_end_ns",
               "t_first_answer_ns")


def stream_to_json(stream: StreamResult, t0_ns: int) -> dict:
    """A result as the capture keeps it: every stamp in ns since launch (``t0_ns``)."""
    out = dict(stream.__dict__)
    for key in _STAMP_KEYS:
        if out[key] is not None:
            out[key] -= t0_ns
    out["content_stamps_ns"] = [t - t0_ns for t in stream.content_stamps_ns]
    out["gap_texts"] = [list(pair) for pair in stream.gap_texts]
    return out


def stream_from_json(obj: dict, t0_ns: int) -> StreamResult:
    """The inverse of ``stream_to_json`` (captures written before a field existed get its default)."""
    out = dict(obj)
    for key in _STAMP_KEYS:
        if out.get(key) is not None:
            out[key] += t0_ns
    out["content_stamps_ns"] = tuple(t + t0_ns for t in out.get("content_stamps_ns", ()))
    out["gap_texts"] = tuple(tuple(pair) for pair in out.get("gap_texts", ()))
    return StreamResult(**out)


def event_content(api: str, obj: Any) -> str:
    """The generated text one decoded event carries: llama's ``content``; OpenAI's ``choices[].text`` (completions)
    or ``choices[].delta.content`` (chat), over all choices."""
    if not isinstance(obj, dict):
        return ""
    if api == LLAMA:
        content = obj.get("content")
        return content if isinstance(content, str) else ""
    parts = []
    for choice in obj.get("choices") or ():
        if not isinstance(choice, dict):
            continue
        text = choice.get("text")
        delta = choice.get("delta")
        if not isinstance(text, str) and isinstance(delta, dict):
            text = delta.get("content")
        if isinstance(text, str):
            parts.append(text)
    return "".join(parts)


_REASONING_KEYS = ("reasoning_content", "reasoning")


def _reasoning_in(obj: Any) -> str:
    if not isinstance(obj, dict):
        return ""
    for key in _REASONING_KEYS:
        if isinstance(obj.get(key), str):
            return obj[key]
    return ""


def event_reasoning(api: str, obj: Any) -> str:
    """The thinking text one decoded event carries: ``reasoning_content`` or ``reasoning`` (vLLM, SGLang,
    llama-server with a reasoning format), in ``choices[].delta``, ``choices[]`` or the event itself."""
    if not isinstance(obj, dict):
        return ""
    parts = [_reasoning_in(obj)]
    if api == OPENAI:
        for choice in obj.get("choices") or ():
            if isinstance(choice, dict):
                parts += [_reasoning_in(choice), _reasoning_in(choice.get("delta"))]
    return "".join(parts)


class StreamTally:
    """Folds stamped events into the figures of a ``StreamResult``. Pure: the stamps come with the events."""

    def __init__(self, api: str) -> None:
        if api not in APIS:
            raise ValueError(f"api: unknown API {api!r}; choose one of: {', '.join(APIS)}")
        self.api = api
        self.events = 0
        self.content_events = 0
        self.t_first_content_ns: Optional[int] = None
        self.t_last_content_ns: Optional[int] = None
        self.t_end_ns: Optional[int] = None
        self.ended = False
        self.timings: Optional[dict] = None
        self.usage: Optional[dict] = None
        self.error: Optional[str] = None
        self._tokens_predicted: Optional[int] = None
        self._token_ids = 0
        self.gaps = GapStamps()
        self.think = ThinkTracker()
        self.first_text = self.last_text = ""

    def add(self, t_ns: int, event: Event) -> None:
        """Count one event, completed by the read stamped ``t_ns``."""
        self.events += 1
        if event.done:
            self._end(t_ns)
            return
        try:
            obj = json.loads(event.data)
        except ValueError:
            self._fail(f"malformed stream: event {self.events} is not JSON: {event.data[:80]!r}")
            return
        if not isinstance(obj, dict):
            self._fail(f"malformed stream: event {self.events} is not a JSON object: {event.data[:80]!r}")
            return
        if "error" in obj:
            self._fail(f"the server reported an error in the stream: {json.dumps(obj['error'])[:ERROR_BODY_CHARS]}")
        content = event_content(self.api, obj)
        thought = event_reasoning(self.api, obj)
        if thought:
            self.think.reasoning(t_ns)
        elif content and not self.think.done:
            self.think.text(t_ns, content)
        if content or thought:
            self.content_events += 1
            self.gaps.add(t_ns, (content or thought).encode("utf-8"))
            text = (content or thought)[:MARKER_TEXT_CHARS]
            if self.t_first_content_ns is None:
                self.t_first_content_ns = t_ns
                self.first_text = text
            self.t_last_content_ns = t_ns
            self.last_text = text
        if isinstance(obj.get("timings"), dict):
            self.timings = obj["timings"]
        if isinstance(obj.get("usage"), dict):
            self.usage = obj["usage"]
        if self.api == LLAMA:
            if isinstance(obj.get("tokens_predicted"), int):
                self._tokens_predicted = obj["tokens_predicted"]
            if isinstance(obj.get("tokens"), list):
                self._token_ids += len(obj["tokens"])
            if obj.get("stop") is True:
                self._end(t_ns)

    def finish(self, t_ns: int) -> None:
        """The body ended (read returned nothing) at ``t_ns``."""
        if self.t_end_ns is None:
            self.t_end_ns = t_ns
        if self.ended:
            return
        if self.events == 0:
            self._fail("malformed stream: the response body held no server-sent events; does this server stream "
                       "on this endpoint (is the api, openai or llama, the right one)?")
        else:
            mark = "data: [DONE]" if self.api == OPENAI else 'an event with "stop": true'
            self._fail(f"the stream ended after {self.events} events without {mark}: cut off?")

    def tokens(self) -> tuple[Optional[int], Optional[str]]:
        """The best token count and its source; (None, None) when no event arrived."""
        if self.api == LLAMA:
            if self._tokens_predicted is not None:
                return self._tokens_predicted, "tokens_predicted"
            if self._token_ids:
                return self._token_ids, "len(tokens)"
        elif isinstance((self.usage or {}).get("completion_tokens"), int):
            return self.usage["completion_tokens"], "usage.completion_tokens"
        if self.events == 0:
            return None, None
        return self.content_events, "content_events"

    def _end(self, t_ns: int) -> None:
        self.ended = True
        self.t_end_ns = t_ns

    def _fail(self, message: str) -> None:
        if self.error is None:
            self.error = message


def _reachable(host: str) -> str:
    """The address to connect to for a bind address: a wildcard bind is reached on loopback."""
    host = host.strip("[]")
    return _WILDCARD_HOSTS.get(host, host)


def _host_for_url(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _flag_value(command: Sequence[str], flag: str) -> Optional[str]:
    value = None
    for i, arg in enumerate(command):
        if arg == flag and i + 1 < len(command):
            value = command[i + 1]
        elif arg.startswith(flag + "="):
            value = arg[len(flag) + 1:]
    return value


def base_url_from(command: Sequence[str], default_port: int, *, default_host: str = "127.0.0.1",
                  host_env: Optional[str] = None, env: Optional[Mapping[str, str]] = None) -> str:
    """The ``http://host:port`` a server started by ``command`` listens on.

    Reads ``--port N`` / ``--port=N`` and ``--host H`` / ``--host=H`` (the last one wins, as in the servers'
    parsers); a wildcard bind (``0.0.0.0``, ``::``) is reached on loopback. ``host_env`` names an environment
    variable holding ``[http://]host[:port]`` for servers configured that way (``OLLAMA_HOST``), looked up in
    ``env``; the command's flags take precedence over it. The default port is the caller's, per profile
    (llama-server 8080, vLLM 8000, SGLang 30000, ollama 11434).
    """
    host, port = default_host, str(default_port)
    if host_env and env and env.get(host_env):
        spec = env[host_env].strip()
        parts = urlsplit(spec if "//" in spec else "//" + spec)
        try:
            env_port = parts.port
        except ValueError:
            raise ValueError(f"{host_env}: {spec!r} has no valid port; use host:port, e.g. 127.0.0.1:11434") from None
        host = parts.hostname if parts.hostname is not None else host
        port = str(env_port) if env_port is not None else port
    host = _flag_value(command, "--host") or host
    port = _flag_value(command, "--port") or port
    if host.endswith(".sock"):
        raise ValueError(f"--host: {host!r} is a UNIX socket (llama-server's .sock form); the request needs TCP: "
                         "give --host 127.0.0.1 --port N")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--port: {port!r} in the server command is not a port number (1-65535)")
    return f"http://{_host_for_url(_reachable(host))}:{int(port)}"


_URL = re.compile(r"https?://(\[[0-9A-Fa-f:]+\]|[\w.-]+):(\d{1,5})")


def url_in_text(text: str) -> Optional[str]:
    """The ``http://host:port`` a server printed (``listening on http://0.0.0.0:8080``), reachable form; or None."""
    match = _URL.search(text or "")
    if match is None:
        return None
    return f"http://{_host_for_url(_reachable(match.group(1)))}:{int(match.group(2))}"


class StreamRequest:
    """One streaming completion request, sent and read on its own daemon thread.

    ``api`` is ``openai`` (``POST /v1/completions``, usage requested in the stream) or ``llama`` (llama.cpp's
    ``POST /completion``). ``max_tokens=None`` asks for ``DEFAULT_MAX_TOKENS``: without a limit llama-server
    generates until the context is full and vLLM stops at 16. ``model`` is sent when given; with
    ``discover_model`` and no ``model``, the first id of ``GET /v1/models`` is used (vLLM requires the served
    name). ``extra`` fields are merged into the JSON body (``{"ignore_eos": True}``). ``timeout_s`` bounds the
    whole exchange, from connecting to the last event. ``on_done(result)`` runs on the request thread once the
    result is final (stop the server there), before ``wait`` returns; it must not call ``wait``.
    """

    def __init__(self, base_url: str, prompt: str, max_tokens: Optional[int] = None, api: str = OPENAI, *,
                 model: Optional[str] = None, discover_model: bool = False, extra: Optional[Mapping[str, Any]] = None,
                 clock: Callable[[], int] = time.monotonic_ns, timeout_s: float = DEFAULT_TIMEOUT_S,
                 on_done: Optional[Callable[[StreamResult], None]] = None) -> None:
        if api not in APIS:
            raise ValueError(f"api: unknown API {api!r}; choose one of: {', '.join(APIS)}")
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"base_url: {base_url!r} is not an http://host:port URL (https is not supported)")
        if max_tokens is not None and max_tokens < 1:
            raise ValueError(f"max_tokens: {max_tokens} must be at least 1")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s: {timeout_s:g} must be positive")
        self.api = api
        self.prompt = prompt
        self.max_tokens = DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens
        self.model = model
        self.discover_model = discover_model
        self.extra = dict(extra or {})
        self.clock = clock
        self.timeout_s = timeout_s
        self.on_done = on_done
        self._host = _reachable(parts.hostname)
        self._port = parts.port or 80
        self._prefix = parts.path.rstrip("/")
        self.url = f"http://{_host_for_url(self._host)}:{self._port}{self._prefix}{ENDPOINTS[api]}"
        self._thread: Optional[threading.Thread] = None
        self._done = threading.Event()
        self._result: Optional[StreamResult] = None

    def start(self) -> None:
        """Send the request on a new daemon thread; returns at once."""
        if self._thread is not None:
            raise RuntimeError("StreamRequest.start: already started; make one StreamRequest per request")
        self._thread = threading.Thread(target=self._run, name="phasewrap-request", daemon=True)
        self._thread.start()

    def wait(self, timeout_s: Optional[float] = None) -> bool:
        """Block until the result is final or ``timeout_s`` passed; True when it is final."""
        return self._done.wait(timeout_s)

    def result(self) -> Optional[StreamResult]:
        """The final result, or None while the request is still running (or was never started)."""
        return self._result if self._done.is_set() else None

    def payload(self, model: Optional[str]) -> dict:
        """The JSON body sent for this API."""
        if self.api == LLAMA:
            body = {"prompt": self.prompt, "n_predict": self.max_tokens, "stream": True}
        else:
            body = {"prompt": self.prompt, "max_tokens": self.max_tokens, "stream": True,
                    "stream_options": {"include_usage": True}}
            if model is not None:
                body["model"] = model
        body.update(self.extra)
        return body

    def _run(self) -> None:
        tally = StreamTally(self.api)
        state: dict = {"status": None, "t_sent_ns": None, "model": self.model, "error": None}
        try:
            self._exchange(tally, state)
        except Exception as exc:  # a background thread never kills the run: the failure becomes data
            state["error"] = f"request failed: {type(exc).__name__}: {exc}"
        tokens, source = tally.tokens()
        result = StreamResult(
            url=self.url, api=self.api, model=state["model"], max_tokens=self.max_tokens,
            http_status=state["status"], t_sent_ns=state["t_sent_ns"],
            t_first_content_ns=tally.t_first_content_ns, t_last_content_ns=tally.t_last_content_ns,
            t_end_ns=tally.t_end_ns, events=tally.events, content_events=tally.content_events,
            tokens=tokens, tokens_source=source, timings=tally.timings, usage=tally.usage,
            error=state["error"] or tally.error, content_stamps_ns=tuple(tally.gaps.stamps),
            gap_texts=tuple((i, text.decode("utf-8", "replace")) for i, text in sorted(tally.gaps.texts.items())),
            thinking=tally.think.thinking, t_think_end_ns=tally.think.think_end_ns,
            t_first_answer_ns=tally.think.first_answer_ns, first_text=tally.first_text, last_text=tally.last_text,
        )
        if self.on_done is not None:
            try:
                self.on_done(result)
            except Exception as exc:
                result = _with_error(result, f"on_done callback failed: {type(exc).__name__}: {exc}")
        self._result = result
        self._done.set()

    def _exchange(self, tally: StreamTally, state: dict) -> None:
        deadline = time.monotonic() + self.timeout_s
        where = f"{_host_for_url(self._host)}:{self._port}"
        try:
            if self.api == OPENAI and self.model is None and self.discover_model:
                state["model"] = self._discover(deadline)
            conn = http.client.HTTPConnection(self._host, self._port, timeout=_remaining(deadline))
            try:
                self._stream(conn, tally, state, deadline)
            finally:
                conn.close()
        except ConnectionRefusedError:
            state["error"] = (f"cannot connect to {where}: connection refused; is the server listening there "
                              "(check its --host/--port)?")
        except _Failed as exc:
            state["error"] = str(exc)
        except TimeoutError:
            stage = "the response" if state["status"] is None else f"more of the stream after {tally.events} events"
            state["error"] = f"timed out after {self.timeout_s:g} s (timeout_s) waiting for {stage} from {self.url}"
        except (OSError, http.client.HTTPException) as exc:
            stage = "before a response" if state["status"] is None else f"after {tally.events} events"
            state["error"] = f"connection to {where} failed {stage}: {type(exc).__name__}: {exc}"

    def _discover(self, deadline: float) -> str:
        conn = http.client.HTTPConnection(self._host, self._port, timeout=_remaining(deadline))
        try:
            conn.request("GET", self._prefix + MODELS_ENDPOINT, headers={"Accept": "application/json"})
            resp = conn.getresponse()
            body = resp.read(1 << 20)
        finally:
            conn.close()
        how = "; pass the served model name (model=...)"
        if resp.status != 200:
            raise _Failed(f"GET {MODELS_ENDPOINT} returned HTTP {resp.status} {resp.reason}: "
                          f"{_snippet(body)}{how}")
        try:
            return json.loads(body)["data"][0]["id"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _Failed(f"GET {MODELS_ENDPOINT} did not list a model id: {_snippet(body)}{how}") from None

    def _stream(self, conn: http.client.HTTPConnection, tally: StreamTally, state: dict, deadline: float) -> None:
        clock = self.clock
        conn.connect()
        sock = conn.sock  # kept: getresponse() may hand the socket to the response and drop conn.sock
        body = json.dumps(self.payload(state["model"])).encode("utf-8")
        conn.request("POST", self._prefix + ENDPOINTS[self.api], body=body,
                     headers={"Content-Type": "application/json", "Accept": "text/event-stream"})
        state["t_sent_ns"] = clock()
        sock.settimeout(_remaining(deadline))
        resp = conn.getresponse()
        state["status"] = resp.status
        if resp.status != 200:
            raise _Failed(f"HTTP {resp.status} {resp.reason} from POST {self.url}: {_snippet(resp.read(4096))}")
        parser = SSEParser()
        read1 = resp.read1
        while True:
            sock.settimeout(_remaining(deadline))
            data = read1(READ_BYTES)
            t_ns = clock()
            if not data:
                for event in parser.close():
                    tally.add(t_ns, event)
                tally.finish(t_ns)
                return
            for event in parser.feed(data):
                tally.add(t_ns, event)
            if tally.ended:
                _drain(resp, sock, deadline)
                return


class _Failed(Exception):
    """A failure whose message is already the one to record."""


def _drain(resp: http.client.HTTPResponse, sock: socket.socket, deadline: float) -> None:
    """Read what follows the end event (the body's last chunk) so the connection closes cleanly, not with a
    reset; bounded by END_DRAIN_S, for servers that keep the body open after it. Nothing here is measured."""
    try:
        sock.settimeout(min(END_DRAIN_S, _remaining(deadline)))
        while resp.read1(READ_BYTES):
            pass
    except (OSError, http.client.HTTPException):
        pass


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("deadline passed")
    return left


def _snippet(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    return repr(text[:ERROR_BODY_CHARS]) if text else "(empty body)"


def _with_error(result: StreamResult, message: str) -> StreamResult:
    return replace(result, error=result.error or message)
