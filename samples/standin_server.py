#!/usr/bin/env python3
"""A stand-in completion server: known load time, TTFT and token spacing, over real HTTP and SSE.

Listens on 127.0.0.1, logs `standin-server: listening on http://127.0.0.1:PORT` on stderr once "loaded",
and streams completions on POST /v1/completions (OpenAI style, ends with `data: [DONE]`) and POST
/completion (llama.cpp style, last event has "stop": true and a `timings` object). Exits on SIGTERM/SIGINT.

    python samples/standin_server.py --port 18080 --load-s 0.5 --ttft-s 0.2 --interval-s 0.02
"""
import argparse
import json
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORDS = ("the", "model", "feels", "slow", "until", "you", "measure", "each", "phase", "apart")


def make_handler(ttft_s: float, interval_s: float, stall_before=frozenset(), stall_s: float = 0.3,
                 reasoning_s: float = 0.0, stamps_file=None):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            sys.stderr.write("standin-server: " + fmt % args + "\n")

        def _event(self, obj) -> None:
            body = b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(body), body))
            self.wfile.flush()

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            req = json.loads(self.rfile.read(length) or b"{}")
            llama = self.path == "/completion"
            if self.path not in ("/completion", "/v1/completions"):
                self.send_error(404)
                return
            n = int(req.get("n_predict" if llama else "max_tokens") or 16)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            t_start = time.monotonic()
            time.sleep(ttft_s)
            t_first = time.monotonic()
            stamps = {"first_event_ns": time.monotonic_ns(), "first_answer_ns": None}
            if reasoning_s > 0:  # think first: reasoning_content deltas (openai) or <think> in the content (llama)
                think_end = time.monotonic() + reasoning_s
                first = True
                while first or time.monotonic() + interval_s < think_end:
                    if not first:
                        time.sleep(interval_s)
                    word = ("<think>" if first else "") + " hmm"
                    if llama:
                        self._event({"content": word, "tokens": [0], "stop": False})
                    else:
                        self._event({"choices": [{"index": 0, "text": "", "delta": {"reasoning_content": word},
                                                  "finish_reason": None}]})
                    if first:
                        stamps["first_event_ns"] = time.monotonic_ns()
                    first = False
                time.sleep(max(0.0, think_end - time.monotonic()))
                if llama:
                    self._event({"content": "</think>\n\n", "tokens": [0], "stop": False})
                time.sleep(interval_s)
            for i in range(n):
                if i:
                    time.sleep(interval_s)
                if i + 1 in stall_before:
                    time.sleep(stall_s)
                text = " " + WORDS[i % len(WORDS)]
                if llama:
                    self._event({"content": text, "tokens": [i], "stop": False, "tokens_predicted": i + 1})
                else:
                    self._event({"choices": [{"text": text, "index": 0, "finish_reason": None}]})
                if i == 0:
                    stamps["first_answer_ns"] = time.monotonic_ns()
            t_end = time.monotonic()
            if stamps_file:  # before the last event: the client stops the server once it has read that
                with open(stamps_file, "w") as fh:
                    json.dump(stamps, fh)
            timings = {"prompt_n": len(str(req.get("prompt", "")).split()), "prompt_ms": (t_first - t_start) * 1000,
                       "predicted_n": n, "predicted_ms": (t_end - t_first) * 1000}
            if llama:
                self._event({"content": "", "stop": True, "tokens_predicted": n, "timings": timings})
            else:
                self._event({"choices": [{"text": "", "index": 0, "finish_reason": "length"}],
                             "usage": {"completion_tokens": n}, "timings": timings})
                self._event(b"[DONE]")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=18080)
    p.add_argument("--load-s", type=float, default=0.5, help="time before it listens")
    p.add_argument("--ttft-s", type=float, default=0.2, help="time from request to first event")
    p.add_argument("--interval-s", type=float, default=0.02, help="time between token events")
    p.add_argument("--stall-before", default="", metavar="I,J,...",
                   help="pause --stall-s before these token events (1-based)")
    p.add_argument("--stall-s", type=float, default=0.3, help="length of each --stall-before pause")
    p.add_argument("--reasoning-s", type=float, default=0.0,
                   help="think first for this long: reasoning_content deltas (openai), <think> … </think> (llama)")
    p.add_argument("--sigterm", choices=("stop", "default"), default="stop",
                   help="stop: SIGTERM ends serve_forever and exits 0; default: SIGTERM's default action (killed)")
    p.add_argument("--stamps-file", metavar="FILE",
                   help="after each request write own monotonic stamps (first event, first answer event) as JSON")
    a = p.parse_args()
    stall_before = frozenset(int(i) for i in a.stall_before.split(",") if i.strip())
    sys.stderr.write("standin-server: loading\n")
    time.sleep(a.load_s)
    server = ThreadingHTTPServer(("127.0.0.1", a.port), make_handler(a.ttft_s, a.interval_s, stall_before, a.stall_s, a.reasoning_s,
                                                                   a.stamps_file))
    if a.sigterm == "stop":
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    sys.stderr.write(f"standin-server: listening on http://127.0.0.1:{server.server_address[1]}\n")
    sys.stderr.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.stderr.write("standin-server: stopping\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
