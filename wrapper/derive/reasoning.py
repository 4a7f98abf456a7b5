"""Reasoning models: where the thinking ends and the answer starts, on the token stream or a server's stream.

Pure: fed stamped text in arrival order, no clock of its own. Thinking is recognised in two ways:

* on text, when the first visible output opens with a think tag (``<think>`` … ``</think>``, or one of the other
  pairs in ``THINK_TAGS``); the answer starts at the first visible character after the closing tag. Output that
  does not start with an opening tag is not thinking, and watching stops there (the read loop pays nothing more);
* on a server's stream, events carrying ``reasoning_content`` / ``reasoning`` deltas are thinking; the answer
  starts at the first event with content after them.

A model whose chat template puts the opening tag into the prompt (so the output starts mid-thought) is not
recognised: only an opening tag at the start of the output is.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

# (opening, closing) tag pairs: DeepSeek-R1 / Qwen3 / QwQ, Seed-OSS, Magistral, gpt-oss's harmony channels
THINK_TAGS: tuple[tuple[str, str], ...] = (
    ("<think>", "</think>"),
    ("<seed:think>", "</seed:think>"),
    ("[THINK]", "[/THINK]"),
    ("<|channel|>analysis<|message|>", "<|channel|>final<|message|>"),
)
UNDECIDED, THINKING, CLOSED, ANSWER, PLAIN = "undecided", "thinking", "closed", "answer", "plain"


@dataclass(frozen=True)
class Boundary:
    """What a ``ThinkTracker`` found: whether the output thought, when the thinking ended, when the answer began."""

    thinking: bool = False
    think_end_ns: Optional[int] = None
    first_answer_ns: Optional[int] = None


class ThinkTracker:
    """The thinking → answer boundary of one stream.

    ``think_end_ns``: the read that completed the closing tag, or the last reasoning delta before the answer.
    ``first_answer_ns`` / ``first_answer_text``: the read holding the first visible answer character.
    ``done``: nothing more to learn (the answer started, or the output is not thinking).
    """

    def __init__(self, tags: Sequence[tuple[str, str]] = THINK_TAGS) -> None:
        self._tags = tuple(tags)
        self._close: Optional[str] = None
        self._head = ""  # visible text so far while undecided
        self._tail = ""  # the end of the thinking text, for a closing tag split over reads
        self.state = UNDECIDED
        self.thinking = False
        self.think_end_ns: Optional[int] = None
        self.first_answer_ns: Optional[int] = None
        self.first_answer_text = ""
        self.done = False  # nothing more to learn: the answer started, or the output is not thinking


    def boundary(self) -> Boundary:
        return Boundary(self.thinking, self.think_end_ns, self.first_answer_ns)

    def reasoning(self, t_ns: int) -> None:
        """A reasoning delta (a server's ``reasoning_content``) read at ``t_ns``."""
        if self.done:
            return
        self.thinking = True
        if self.state == UNDECIDED:
            self.state = CLOSED  # the thinking text comes in its own field: any content after it is the answer
        if self.state == CLOSED:
            self.think_end_ns = t_ns

    def text(self, t_ns: int, text: str) -> None:
        """Visible token text read at ``t_ns`` (ANSI escapes already removed)."""
        if self.state == UNDECIDED:
            self._head += text
            head = self._head.lstrip()
            if not head:
                return
            for opening, closing in self._tags:
                if head.startswith(opening):
                    self.state, self.thinking, self._close = THINKING, True, closing
                    text = head[len(opening):]
                    break
                if opening.startswith(head):
                    return  # maybe an opening tag split over reads
            else:
                self.state, self.done = PLAIN, True
                return
        if self.state == THINKING:
            window = self._tail + text
            at = window.find(self._close)
            if at < 0:
                self._tail = window[-len(self._close):]
                return
            self.state, self.think_end_ns = CLOSED, t_ns
            text = window[at + len(self._close):]
        if self.state == CLOSED and text.strip():
            self.state, self.first_answer_ns, self.done = ANSWER, t_ns, True
            self.first_answer_text = text.strip()


def summary(found: Boundary, stamps_ns: Sequence[int], first_ns: Optional[int], last_ns: Optional[int],
            ttft_start_ns: Optional[int]) -> Optional[dict]:
    """The record's ``reasoning`` object, or None for output that did not think.

    ``stamps_ns``: the token reads (sorted); ``first_ns`` / ``last_ns``: the first / last token; ``ttft_start_ns``:
    ready, or for a server run the request sent. think_s: first token → the end of thinking; ttfo_s: ttft start →
    first answer token; thinking_chunks: reads from the first token to the end of thinking; answer_chunks: reads
    from the first answer token to the last token (a read holding both counts in both).
    """
    from bisect import bisect_left, bisect_right

    if not found.thinking or first_ns is None:
        return None
    end_ns = found.think_end_ns if found.first_answer_ns is not None else last_ns
    answer_ns = found.first_answer_ns
    last = last_ns if last_ns is not None else (stamps_ns[-1] if stamps_ns else first_ns)

    def reads(a: int, b: int) -> int:
        return bisect_right(stamps_ns, b) - bisect_left(stamps_ns, a)

    return {
        "think_s": None if answer_ns is None or end_ns is None else round((end_ns - first_ns) / 1e9, 6),
        "ttfo_s": None if answer_ns is None or ttft_start_ns is None else round((answer_ns - ttft_start_ns) / 1e9, 6),
        "thinking_chunks": reads(first_ns, end_ns if end_ns is not None else last),
        "answer_chunks": 0 if answer_ns is None else reads(answer_ns, last),
    }


def summary_line(record: dict) -> Optional[str]:
    """``reasoning: thought 0.52 s (26 reads) · first answer 0.62 s after the TTFT start (ttfo) · 20 answer reads``,
    or None for a model that did not think."""
    r = record.get("reasoning")
    if not r:
        return None
    if r["ttfo_s"] is None:
        return f"reasoning: still thinking at the last token ({r['thinking_chunks']} reads): no answer"
    think = "n/a" if r["think_s"] is None else f"{r['think_s']:.2f} s"
    return (f"reasoning: thought {think} ({r['thinking_chunks']} reads) · ttfo {r['ttfo_s']:.3f} s · "
            f"{r['answer_chunks']} answer reads")
