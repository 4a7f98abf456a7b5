"""StreamRequest against a real HTTP server on 127.0.0.1 that replays the recorded llama-server bodies with delays."""
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wrapper.sources.request import LLAMA, OPENAI, StreamRequest, base_url_from

from .conftest import fixture
from .test_sse import LLAMA_TIMINGS, OPENAI_TIMINGS, OPENAI_USAGE

FIRST_DELAY_S = 0.05
GAP_S = 0.01
WAIT_S = 10


def fixture_events(name):
    """The body of a recorded stream as the raw bytes of each event (blank line included)."""
    with open(fixture("sse", name), "rb") as fh:
        body = fh.read()
    return [part + b"\n\n" for part in body.split(b"\n\n") if part]


LLAMA_EVENTS = fixture_events("h200-llama-server-completion.sse")
OPENAI_EVENTS = fixture_events("h200-llama-server-v1-completions.sse")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.requests.append(("GET", self.path, None))
        self.server.script(self)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(("POST", self.path, body))
        self.server.script(self)

    def start_chunked(self, status=200, content_type="text/event-stream"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_chunked(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def replay(self, events, first_delay_s=FIRST_DELAY_S, gap_s=GAP_S):
        """Like llama-server: headers at once, then one chunk per event, the first after first_delay_s."""
        self.start_chunked()
        for i, event in enumerate(events):
            time.sleep(first_delay_s if i == 0 else gap_s)
            self.chunk(event)
        self.end_chunked()

    def reply(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server():
    """A loopback HTTP server on an ephemeral port; set .script(handler) to decide what it answers."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.requests = []
    httpd.release = threading.Event()  # scripts that stall wait on this, so teardown never hangs
    httpd.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield httpd
    httpd.release.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join(WAIT_S)


def run(request):
    request.start()
    assert request.wait(WAIT_S)
    return request.result()


def test_llama_completion_stream_is_stamped_per_event(server):
    server.script = lambda h: h.replay(LLAMA_EVENTS)
    result = run(StreamRequest(server.base_url, "the quick brown fox", 64, api=LLAMA))
    assert server.requests == [("POST", "/completion", {"prompt": "the quick brown fox", "n_predict": 64,
                                                        "stream": True})]
    assert result.error is None and result.http_status == 200
    assert result.url == server.base_url + "/completion"
    ttft_s = (result.t_first_content_ns - result.t_sent_ns) / 1e9
    assert 0.04 <= ttft_s < 0.5
    # content events 0..32, so 32 gaps of GAP_S between the first and the last
    assert 32 * GAP_S * 0.9 <= (result.t_last_content_ns - result.t_first_content_ns) / 1e9 < 3.0
    assert result.t_end_ns >= result.t_last_content_ns + GAP_S * 0.9e9
    assert (result.events, result.content_events) == (34, 32)
    assert (result.tokens, result.tokens_source) == (46, "tokens_predicted")
    assert result.timings == LLAMA_TIMINGS
    assert result.usage is None


def test_openai_completions_stream_with_usage_and_timings(server):
    server.script = lambda h: h.replay(OPENAI_EVENTS)
    result = run(StreamRequest(server.base_url, "the quick brown fox", 32))
    assert server.requests == [("POST", "/v1/completions", {
        "prompt": "the quick brown fox", "max_tokens": 32, "stream": True,
        "stream_options": {"include_usage": True}})]
    assert result.error is None and result.http_status == 200
    assert 0.04 <= (result.t_first_content_ns - result.t_sent_ns) / 1e9 < 0.5
    assert 25 * GAP_S * 0.9 <= (result.t_last_content_ns - result.t_first_content_ns) / 1e9 < 3.0
    assert (result.events, result.content_events) == (28, 25)
    assert (result.tokens, result.tokens_source) == (32, "usage.completion_tokens")
    assert result.timings == OPENAI_TIMINGS
    assert result.usage == OPENAI_USAGE
    assert (result.model, result.max_tokens) == (None, 32)


def test_events_split_anyhow_over_a_close_delimited_body(server):
    def script(h):
        h.close_connection = True
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Connection", "close")
        h.end_headers()
        body = b"".join(OPENAI_EVENTS)
        for i in range(0, len(body), 97):
            h.wfile.write(body[i:i + 97])
            h.wfile.flush()

    server.script = script
    result = run(StreamRequest(server.base_url, "p", 32))
    assert result.error is None
    assert (result.events, result.content_events, result.tokens) == (28, 25, 32)


def test_model_is_discovered_from_v1_models_and_extra_fields_are_sent(server):
    def script(h):
        if h.command == "GET":
            h.reply(200, b'{"object":"list","data":[{"id":"m.gguf","object":"model"},{"id":"other"}]}')
        else:
            h.replay(OPENAI_EVENTS, first_delay_s=0, gap_s=0)

    server.script = script
    result = run(StreamRequest(server.base_url + "/", "p", api=OPENAI, discover_model=True,
                               extra={"ignore_eos": True}))
    assert [r[:2] for r in server.requests] == [("GET", "/v1/models"), ("POST", "/v1/completions")]
    sent = server.requests[1][2]
    assert (sent["model"], sent["max_tokens"], sent["ignore_eos"]) == ("m.gguf", 128, True)
    assert result.model == "m.gguf" and result.error is None


def test_given_model_is_sent_without_discovery(server):
    server.script = lambda h: h.replay(OPENAI_EVENTS, first_delay_s=0, gap_s=0)
    result = run(StreamRequest(server.base_url, "p", 8, model="served", discover_model=True))
    assert [r[:2] for r in server.requests] == [("POST", "/v1/completions")]
    assert server.requests[0][2]["model"] == "served" and result.model == "served"


def test_failed_model_discovery_says_how_to_fix_it(server):
    server.script = lambda h: h.reply(404, b'{"error":"not found"}')
    result = run(StreamRequest(server.base_url, "p", 8, discover_model=True))
    assert result.error.startswith("GET /v1/models returned HTTP 404")
    assert "model=" in result.error
    assert result.t_sent_ns is None and result.tokens is None


def test_connection_refused_is_an_error_not_an_exception():
    with socket.socket() as bound:  # bound but not listening: connecting is refused
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        result = run(StreamRequest(f"http://127.0.0.1:{port}", "p", 8, api=LLAMA))
    assert result.error.startswith(f"cannot connect to 127.0.0.1:{port}: connection refused")
    assert result.http_status is None and result.t_sent_ns is None
    assert (result.events, result.tokens, result.t_first_content_ns) == (0, None, None)


def test_http_500_gives_status_and_the_start_of_the_body(server):
    body = b'{"error":{"code":500,"message":"' + b"x" * 300 + b'"}}'
    server.script = lambda h: h.reply(500, body)
    result = run(StreamRequest(server.base_url, "p", 8, api=LLAMA))
    assert result.http_status == 500
    assert result.error.startswith(f"HTTP 500 Internal Server Error from POST {server.base_url}/completion: ")
    assert repr(body.decode()[:200]) in result.error
    assert result.t_sent_ns is not None and result.events == 0


def test_a_stalled_stream_times_out_with_what_arrived(server):
    def script(h):
        h.start_chunked()
        h.chunk(LLAMA_EVENTS[0])
        h.server.release.wait(WAIT_S)

    server.script = script
    start = time.monotonic()
    result = run(StreamRequest(server.base_url, "p", 8, api=LLAMA, timeout_s=0.3))
    assert time.monotonic() - start < 2.0
    assert result.error == (f"timed out after 0.3 s (timeout_s) waiting for more of the stream after 1 events "
                            f"from {server.base_url}/completion")
    assert result.events == 1 and result.t_first_content_ns is not None and result.tokens == 1


def test_stream_cut_off_before_its_end_event(server):
    server.script = lambda h: h.replay(OPENAI_EVENTS[:5], first_delay_s=0, gap_s=0)
    result = run(StreamRequest(server.base_url, "p", 32))
    assert result.error == "the stream ended after 5 events without data: [DONE]: cut off?"
    assert (result.events, result.tokens, result.tokens_source) == (5, 5, "content_events")


def test_non_sse_and_malformed_bodies_are_errors(server):
    server.script = lambda h: h.reply(200, b'{"content":"not streamed"}')
    assert "held no server-sent events" in run(StreamRequest(server.base_url, "p", 8, api=LLAMA)).error

    def script(h):
        h.start_chunked()
        h.chunk(b"data: {not json\n\n")
        h.chunk(LLAMA_EVENTS[-1])
        h.end_chunked()

    server.script = script
    result = run(StreamRequest(server.base_url, "p", 8, api=LLAMA))
    assert result.error == "malformed stream: event 1 is not JSON: '{not json'"
    assert (result.events, result.tokens) == (2, 46)


def test_error_event_inside_the_stream(server):
    def script(h):
        h.start_chunked()
        h.chunk(b'data: {"error":{"code":400,"message":"the request exceeds the context size"}}\n\n')
        h.end_chunked()

    server.script = script
    result = run(StreamRequest(server.base_url, "p", 8))
    assert result.error.startswith('the server reported an error in the stream: {"code": 400')


def test_result_is_none_until_done_and_on_done_gets_the_final_result(server):
    def script(h):
        h.server.release.wait(WAIT_S)
        h.replay(LLAMA_EVENTS, first_delay_s=0, gap_s=0)

    server.script = script
    seen = []
    request = StreamRequest(server.base_url, "p", 64, api=LLAMA, on_done=seen.append)
    assert request.result() is None
    request.start()
    assert not request.wait(0.1)
    assert request.result() is None and seen == []
    server.release.set()
    assert request.wait(WAIT_S)
    assert seen == [request.result()] and seen[0].tokens == 46
    with pytest.raises(RuntimeError, match="already started"):
        request.start()


def test_a_failing_on_done_is_recorded(server):
    server.script = lambda h: h.replay(LLAMA_EVENTS, first_delay_s=0, gap_s=0)

    def on_done(_result):
        raise OSError("no such process")

    result = run(StreamRequest(server.base_url, "p", 64, api=LLAMA, on_done=on_done))
    assert result.error == "on_done callback failed: OSError: no such process"
    assert result.tokens == 46


def test_stamps_come_from_the_injected_clock(server):
    server.script = lambda h: h.replay(LLAMA_EVENTS, first_delay_s=0, gap_s=0)
    ticks = iter(range(1000, 100000))
    result = run(StreamRequest(server.base_url, "p", 64, api=LLAMA, clock=lambda: next(ticks)))
    assert result.t_sent_ns == 1000
    assert 1000 < result.t_first_content_ns <= result.t_last_content_ns <= result.t_end_ns < 2000


@pytest.mark.parametrize("kwargs,message", [
    ({"api": "tgi"}, "api: unknown API 'tgi'"),
    ({"max_tokens": 0}, "max_tokens: 0 must be at least 1"),
    ({"timeout_s": 0}, "timeout_s: 0 must be positive"),
])
def test_bad_arguments_raise_before_anything_starts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        StreamRequest("http://127.0.0.1:8080", "p", **kwargs)


def test_a_wildcard_base_url_is_reached_on_loopback():
    assert StreamRequest("http://0.0.0.0:8080/", "p", api=LLAMA).url == "http://127.0.0.1:8080/completion"
    assert StreamRequest("http://[::]:8000/api", "p").url == "http://[::1]:8000/api/v1/completions"


def test_https_and_schemeless_urls_are_refused():
    for url in ("https://127.0.0.1:8080", "127.0.0.1:8080"):
        with pytest.raises(ValueError, match="is not an http://host:port URL"):
            StreamRequest(url, "p")


@pytest.mark.parametrize("command,default_port,expected", [
    (["llama-server", "-m", "m.gguf", "-ngl", "99", "--port", "18080", "--host", "127.0.0.1"], 8080,
     "http://127.0.0.1:18080"),
    (["llama-server", "-m", "m.gguf"], 8080, "http://127.0.0.1:8080"),
    (["vllm", "serve", "org/model", "--host=0.0.0.0", "--port=8001"], 8000, "http://127.0.0.1:8001"),
    (["python", "-m", "sglang.launch_server", "--host", "::", "--port", "30001"], 30000, "http://[::1]:30001"),
    (["llama-server", "--host", "::1"], 8080, "http://[::1]:8080"),
    (["llama-server", "--host", "[::]"], 8080, "http://[::1]:8080"),
    (["llama-server", "--port", "1", "--port", "9000"], 8080, "http://127.0.0.1:9000"),
])
def test_base_url_from_server_flags(command, default_port, expected):
    assert base_url_from(command, default_port) == expected


@pytest.mark.parametrize("value,expected", [
    ("0.0.0.0:11500", "http://127.0.0.1:11500"),
    ("http://127.0.0.2", "http://127.0.0.2:11434"),
    ("", "http://127.0.0.1:11434"),
])
def test_base_url_from_host_environment_variable(value, expected):
    env = {"OLLAMA_HOST": value}
    assert base_url_from(["ollama", "serve"], 11434, host_env="OLLAMA_HOST", env=env) == expected


def test_base_url_from_rejects_a_bad_port():
    with pytest.raises(ValueError, match=r"--port: 'http' in the server command is not a port number"):
        base_url_from(["vllm", "serve", "m", "--port", "http"], 8000)
    with pytest.raises(ValueError, match="--host: '/tmp/llama.sock' is a UNIX socket"):
        base_url_from(["llama-server", "--host", "/tmp/llama.sock"], 8080)
    with pytest.raises(ValueError, match="OLLAMA_HOST: 'h:x' has no valid port"):
        base_url_from(["ollama", "serve"], 11434, host_env="OLLAMA_HOST", env={"OLLAMA_HOST": "h:x"})


def test_a_body_left_open_after_the_end_event_is_not_waited_for(server):
    def script(h):
        h.start_chunked()
        for event in OPENAI_EVENTS:
            h.chunk(event)
        h.server.release.wait(WAIT_S)

    server.script = script
    start = time.monotonic()
    result = run(StreamRequest(server.base_url, "p", 32, timeout_s=5))
    assert time.monotonic() - start < 2.0
    assert result.error is None and result.tokens == 32


def test_url_in_text_reads_what_the_server_printed():
    from wrapper.sources.request import url_in_text

    assert url_in_text("srv  llama_server: listening on http://127.0.0.1:18080") == "http://127.0.0.1:18080"
    assert url_in_text("INFO: Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)") == "http://127.0.0.1:8000"
    assert url_in_text("listening on http://[::]:9000") == "http://[::1]:9000"
    assert url_in_text("server is listening") is None
