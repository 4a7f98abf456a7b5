"""SSEParser on the real llama-server stream bodies (H200) in every split, and on the spec's corner cases."""
import json
import random

import pytest

from wrapper.sources.request import LLAMA, OPENAI, StreamTally
from wrapper.sources.sse import Event, SSEParser

from .conftest import fixture

LLAMA_BODY = fixture("sse", "h200-llama-server-completion.sse")
OPENAI_BODY = fixture("sse", "h200-llama-server-v1-completions.sse")

LLAMA_TIMINGS = {"cache_n": 0, "prompt_n": 21, "prompt_ms": 129.424, "prompt_per_token_ms": 6.163047619047619,
                 "prompt_per_second": 162.25738657436023, "predicted_n": 46, "predicted_ms": 71.887,
                 "predicted_per_token_ms": 1.597488888888889, "predicted_per_second": 625.9824446701073}
OPENAI_TIMINGS = {"cache_n": 20, "prompt_n": 1, "prompt_ms": 1.684, "prompt_per_token_ms": 1.684,
                  "prompt_per_second": 593.8242280285036, "predicted_n": 32, "predicted_ms": 47.924,
                  "predicted_per_token_ms": 1.5459354838709678, "predicted_per_second": 646.857524413655}
OPENAI_USAGE = {"completion_tokens": 32, "prompt_tokens": 21, "total_tokens": 53,
                "prompt_tokens_details": {"cached_tokens": 20}}


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def parse(pieces):
    parser = SSEParser()
    events = [event for piece in pieces for event in parser.feed(piece)]
    events += parser.close()
    return events


def random_pieces(body, seed, max_size):
    rng = random.Random(seed)
    pieces, i = [], 0
    while i < len(body):
        size = rng.randint(1, max_size)
        pieces.append(body[i:i + size])
        i += size
    return pieces


def splits(body):
    """The same body as one read, byte by byte, and in seeded random read sizes."""
    yield "whole", [body]
    yield "bytes", [body[i:i + 1] for i in range(len(body))]
    for seed in range(5):
        yield f"random{seed}", random_pieces(body, seed, 300)
    yield "random-small", random_pieces(body, 99, 7)


def first_content_index(events, content):
    return next(i for i, event in enumerate(events) if not event.done and content(json.loads(event.data)))


def llama_content(obj):
    return obj["content"]


def openai_content(obj):
    return obj["choices"][0]["text"] if obj["choices"] else ""


@pytest.mark.parametrize("name,pieces", list(splits(read(LLAMA_BODY))))
def test_llama_completion_stream_in_every_split(name, pieces):
    events = parse(pieces)
    assert len(events) == 34
    assert all(event.event == "message" and event.id is None and not event.done for event in events)
    objs = [json.loads(event.data) for event in events]
    assert first_content_index(events, llama_content) == 0
    assert [i for i, obj in enumerate(objs) if obj["content"] == ""] == [3, 33]
    assert [obj["stop"] for obj in objs].index(True) == 33
    assert objs[-1]["tokens_predicted"] == 46
    assert objs[-1]["timings"] == LLAMA_TIMINGS


@pytest.mark.parametrize("name,pieces", list(splits(read(OPENAI_BODY))))
def test_openai_completions_stream_in_every_split(name, pieces):
    events = parse(pieces)
    assert len(events) == 28
    assert [i for i, event in enumerate(events) if event.done] == [27]
    assert events[-1].data == "[DONE]"
    objs = [json.loads(event.data) for event in events[:-1]]
    assert first_content_index(events, openai_content) == 0
    assert [i for i, obj in enumerate(objs) if openai_content(obj) == ""] == [16, 26]
    assert [i for i, obj in enumerate(objs) if "usage" in obj] == [26]
    assert objs[26]["usage"] == OPENAI_USAGE
    assert objs[26]["timings"] == OPENAI_TIMINGS
    assert objs[26]["choices"][0]["finish_reason"] == "length"


@pytest.mark.parametrize("path", [LLAMA_BODY, OPENAI_BODY])
def test_every_two_read_split_gives_the_same_events(path):
    body = read(path)
    whole = parse([body])
    for cut in range(len(body) + 1):
        assert parse([body[:cut], body[cut:]]) == whole, cut


@pytest.mark.parametrize("eol", [b"\r\n", b"\r"])
def test_crlf_and_cr_line_endings_give_the_same_events(eol):
    body = read(OPENAI_BODY)
    converted = body.replace(b"\n", eol)
    whole = parse([body])
    assert parse([converted]) == whole
    assert parse([converted[i:i + 1] for i in range(len(converted))]) == whole


def test_event_completes_in_the_read_that_ends_it():
    parser = SSEParser()
    assert parser.feed(b'data: {"content":"a"}') == []
    assert parser.pending
    assert parser.feed(b"\n") == []
    assert parser.feed(b"\n") == [Event('{"content":"a"}')]
    assert not parser.pending


def test_several_events_in_one_read():
    events = SSEParser().feed(b"data: 1\n\ndata: 2\n\ndata: [DONE]\n\ndata: 3")
    assert [event.data for event in events] == ["1", "2", "[DONE]"]
    assert [event.done for event in events] == [False, False, True]


def test_comments_names_ids_and_multiline_data():
    body = (b": ping\r\n\r\n"
            b"event: completion\r\nid: 7\r\ndata: first line\r\ndata:second line\r\ndata:  two spaces\r\n\r\n"
            b": keep-alive\n"
            b"data\n\n"
            b"retry: 3000\nunknown: x\ndata: after\n\n")
    assert parse([body]) == [
        Event("first line\nsecond line\n two spaces", "completion", "7"),
        Event("", "message", "7"),
        Event("after", "message", "7"),
    ]


def test_event_without_data_is_dropped_and_its_name_forgotten():
    assert parse([b"event: ping\n\ndata: x\n\n"]) == [Event("x")]


def test_cr_at_the_end_of_a_read_and_lf_at_the_start_of_the_next_end_one_line():
    parser = SSEParser()
    assert parser.feed(b"data: a\r") == []
    assert parser.feed(b"\n") == []
    assert parser.feed(b"\r") == [Event("a")]
    assert parser.feed(b"\ndata: b\n\n") == [Event("b")]


def test_utf8_split_inside_a_character():
    body = 'data: {"content":"€ ٛ"}\n\n'.encode("utf-8")
    cut = body.index("€".encode()) + 1
    assert parse([body[:cut], body[cut:]]) == [Event('{"content":"€ ٛ"}')]


def test_bom_at_the_start_is_skipped_even_when_split():
    assert parse([b"\xef", b"\xbb", b"\xbfdata: x\n\n"]) == [Event("x")]


def test_close_returns_an_event_the_stream_did_not_end_with_a_blank_line():
    parser = SSEParser()
    assert parser.feed(b"data: 1\n\ndata: 2") == [Event("1")]
    assert parser.close() == [Event("2")]
    assert parser.close() == []


def tally(path, api):
    """Replay a body through StreamTally, stamping event i with i (as if each read held one event)."""
    result = StreamTally(api)
    for i, event in enumerate(parse([read(path)])):
        result.add(i, event)
    result.finish(1000)
    return result


def test_tally_of_the_llama_stream():
    result = tally(LLAMA_BODY, LLAMA)
    assert (result.events, result.content_events) == (34, 32)
    assert (result.t_first_content_ns, result.t_last_content_ns, result.t_end_ns) == (0, 32, 33)
    assert result.tokens() == (46, "tokens_predicted")
    assert result.timings == LLAMA_TIMINGS
    assert result.usage is None
    assert result.ended and result.error is None


def test_tally_of_the_openai_stream():
    result = tally(OPENAI_BODY, OPENAI)
    assert (result.events, result.content_events) == (28, 25)
    assert (result.t_first_content_ns, result.t_last_content_ns, result.t_end_ns) == (0, 25, 27)
    assert result.tokens() == (32, "usage.completion_tokens")
    assert result.timings == OPENAI_TIMINGS
    assert result.usage == OPENAI_USAGE
    assert result.ended and result.error is None


def test_tally_falls_back_to_token_ids_then_content_events():
    llama = StreamTally(LLAMA)
    llama.add(1, Event('{"content":"ab","tokens":[1,2]}'))
    llama.add(2, Event('{"content":"","tokens":[3]}'))
    assert llama.tokens() == (3, "len(tokens)")
    openai = StreamTally(OPENAI)
    openai.add(1, Event('{"choices":[{"delta":{"role":"assistant","content":""}}]}'))
    openai.add(2, Event('{"choices":[{"delta":{"content":"Hi"}}]}'))
    openai.add(3, Event('{"choices":[],"usage":null}'))
    assert openai.tokens() == (1, "content_events")
    assert openai.t_first_content_ns == 2
    openai.finish(4)
    assert "without data: [DONE]" in openai.error
