"""Reasoning models: the thinking → answer boundary on the token stream and on a server's stream, against the
child's own clock."""
import json
import socket

import pytest

from wrapper.derive.reasoning import Boundary, ThinkTracker, summary
from wrapper.sources.request import event_reasoning

from .conftest import STANDIN, run_phasewrap, json_record
from .test_run import SERVER

MS = 1_000_000
ATTEMPTS = 3


def feed(reads):
    think = ThinkTracker()
    for t, text in reads:
        think.text(t, text)
    return think


def test_tags_split_over_reads_and_the_first_visible_answer():
    think = feed([(1, "\n <th"), (2, "ink>let me"), (3, " see</thi"), (4, "nk>"), (5, "\n\n"), (6, " Paris"), (7, "!")])
    assert think.boundary() == Boundary(True, 4, 6) and think.first_answer_text == "Paris" and think.done


def test_answer_in_the_read_that_closes_and_other_tag_pairs():
    assert feed([(1, "<think>x</think>Yes")]).boundary() == Boundary(True, 1, 1)
    assert feed([(1, "[THINK]a"), (2, "[/THINK] ok")]).boundary() == Boundary(True, 2, 2)
    assert feed([(1, "<|channel|>analysis<|message|>hm"), (2, "<|end|><|start|>assistant<|channel|>final<|message|>"),
                 (3, "Hi")]).boundary() == Boundary(True, 2, 3)


def test_plain_output_is_decided_at_once_and_never_closed_thinking_has_no_answer():
    plain = feed([(1, "<b>bold</b>")])
    assert plain.done and plain.boundary() == Boundary()
    assert feed([(1, "Hello <think>")]).boundary() == Boundary()  # not at the start: not thinking
    never = feed([(1, "<think>"), (2, " hmm")])
    assert never.boundary() == Boundary(True, None, None) and not never.done


def test_reasoning_deltas_then_content():
    think = ThinkTracker()
    think.reasoning(1)
    think.reasoning(2)
    think.text(3, "\n")
    think.text(4, "Answer")
    assert think.boundary() == Boundary(True, 2, 4)


def test_summary_counts_reads_on_each_side():
    stamps = [t * MS for t in (10, 20, 30, 40, 50, 60)]
    assert summary(Boundary(True, 30 * MS, 40 * MS), stamps, 10 * MS, 60 * MS, 0) == {
        "think_s": 0.02, "ttfo_s": 0.04, "thinking_chunks": 3, "answer_chunks": 3}
    assert summary(Boundary(True, None, None), stamps, 10 * MS, 60 * MS, 0) == {
        "think_s": None, "ttfo_s": None, "thinking_chunks": 6, "answer_chunks": 0}
    assert summary(Boundary(), stamps, 10 * MS, 60 * MS, 0) is None


def test_event_reasoning_shapes():
    assert event_reasoning("openai", {"choices": [{"delta": {"reasoning_content": "a"}}]}) == "a"
    assert event_reasoning("openai", {"choices": [{"delta": {"reasoning": "b", "content": None}}]}) == "b"
    assert event_reasoning("openai", {"choices": [{"text": "c"}]}) == ""
    assert event_reasoning("llama", {"content": "", "reasoning_content": "d"}) == "d"


def test_standin_thinking_half_a_second(tmp_path):
    """ttfo_s − ttft_s within 20 ms of the child's own first answer − first token."""
    stamps = tmp_path / "child.json"
    for _ in range(ATTEMPTS):  # a machine busy enough to delay phasewrap's reads by 20 ms gets another try
        proc = run_phasewrap(["run", "--quiet", "--ready", "model loaded", "--format", "json", "--", *STANDIN,
                              "--load-s", "0.1", "--ttft-s", "0.1", "--think-s", "0.5", "--tokens", "20",
                              "--interval-s", "0.02", "--stamps-file", str(stamps)])
        assert proc.returncode == 0, proc.stderr
        rec = json_record(proc)
        child = json.loads(stamps.read_text())
        r = rec["reasoning"]
        child_s = (child["first_answer_ns"] - child["first_token_ns"]) / 1e9
        if abs((r["ttfo_s"] - rec["phases"]["ttft_s"]) - child_s) <= 0.020:
            break
    assert abs((r["ttfo_s"] - rec["phases"]["ttft_s"]) - child_s) <= 0.020, (r, child_s)
    assert abs(rec["markers"]["first_answer_token"]["t_s"] * 1e9 + rec["t0_monotonic_ns"]
               - child["first_answer_ns"]) <= 20 * MS
    assert rec["markers"]["first_answer_token"]["text"] == "the"
    assert 0.45 <= r["think_s"] <= 0.6
    assert r["answer_chunks"] == 20 and r["thinking_chunks"] == child["tokens"] - 20
    assert not [m for m in rec["missing"] if m["field"].startswith("reasoning")]
    from wrapper.present.export.summary import render

    assert (f"reasoning: thought {r['think_s']:.2f} s ({r['thinking_chunks']} reads) · ttfo {r['ttfo_s']:.3f} s · "
            "20 answer reads\n") in render(rec)


def test_a_model_that_does_not_think_gets_no_reasoning_key():
    proc = run_phasewrap(["run", "--quiet", "--ready", "model loaded", "--format", "json", "--", *STANDIN,
                          "--load-s", "0.05", "--ttft-s", "0.05", "--tokens", "5", "--interval-s", "0.01"])
    rec = json_record(proc)
    assert "reasoning" not in rec and "first_answer_token" not in rec["markers"]


@pytest.mark.parametrize("api", ["openai", "llama"])
def test_server_reasoning_through_request(tmp_path, api):
    """openai: reasoning_content deltas first; llama: <think> … </think> in the content."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    stamps = tmp_path / "server.json"
    for attempt in range(ATTEMPTS):  # a machine busy enough to delay the reads by 20 ms gets another try
        cap_dir = tmp_path / f"cap{attempt}"
        proc = run_phasewrap(["run", "--ready", "listening on", "--request", "why", "--max-tokens", "10", "--api",
                              api, "--format", "json", "--quiet", "--capture", str(cap_dir), "--", *SERVER,
                              "--port", str(port), "--load-s", "0.1", "--ttft-s", "0.05", "--interval-s", "0.02",
                              "--reasoning-s", "0.5", "--stamps-file", str(stamps)])
        assert proc.returncode == 0, proc.stderr
        rec = json_record(proc)
        child = json.loads(stamps.read_text())
        child_s = (child["first_answer_ns"] - child["first_event_ns"]) / 1e9
        r = rec["reasoning"]
        if abs((r["ttfo_s"] - rec["phases"]["ttft_s"]) - child_s) <= 0.020:
            break
    assert abs((r["ttfo_s"] - rec["phases"]["ttft_s"]) - child_s) <= 0.020, (r, child_s)
    assert rec["markers"]["first_answer_token"]["stream"] == "http"
    assert r["answer_chunks"] == 10
    [cap] = cap_dir.iterdir()
    again = run_phasewrap(["analyze", "--ready", "listening on", "--format", "json", str(cap)])
    [replayed] = json.loads(again.stdout)
    assert replayed["reasoning"] == r and replayed["markers"]["first_answer_token"] == rec["markers"]["first_answer_token"]
