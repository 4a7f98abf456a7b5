"""Reading run records back from real files: JSONL with a corrupted line, arrays, pretty-printed objects, and the
files that are not records at all."""
import json

import pytest

from wrapper.derive import record as record_mod
from wrapper.model.events import Marker
from wrapper.model.accessors import cache_label, is_warmup
from wrapper.sources.records_io import (RecordsError, describe_key, group, parse_records,
                                parse_tag_filters, pool_key, read_records, select)


def _record(run_id, tags=None, **extra):
    """A record as record.build() makes it (so the files hold what `run --jsonl` writes)."""
    facts = record_mod.RunFacts(
        run_id=run_id, command=["llama-completion", "-m", "m.gguf", "-n", "8"], profile="llama.cpp", t0_ns=0,
        wall_t0_s=1764460000.0, end_ns=3_000_000_000, exit_code=0, status="ok",
        markers={"ready": Marker("ready", 1_000_000_000, "err", "generate: n_ctx = 4096"),
                 "first_token": Marker("first_token", 1_500_000_000, "out", "Hello"),
                 "last_token": Marker("last_token", 2_900_000_000, "out", "!")},
        token_chunks=8, tags=tags or {})
    rec = record_mod.build(facts)
    rec.update(extra)
    return rec


def _jsonl(records):
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)


def test_jsonl_with_a_corrupted_line_skips_it_and_says_where(tmp_path):
    a, b, c = _record("a"), _record("b"), _record("c")
    good = _jsonl([a, b]).splitlines()
    path = tmp_path / "runs.jsonl"
    # a run killed mid-write leaves half a line; the next run's append starts on the following line
    path.write_text(good[0] + "\n" + good[1][:57] + "\n\n" + _jsonl([c]))
    records, skipped = read_records(str(path))
    assert [r["run_id"] for r in records] == ["a", "c"]
    assert skipped == [(2, "invalid JSON at column 55: Unterminated string")]
    assert records[0] == a


def test_json_array_and_pretty_printed_objects(tmp_path):
    a, b = _record("a"), _record("b")
    arr = tmp_path / "runs.json"
    arr.write_text(json.dumps([a, b], indent=2))
    assert read_records(str(arr)) == ([a, b], [])
    pretty = tmp_path / "one.json"
    pretty.write_text(json.dumps(a, indent=2) + "\n")
    assert read_records(str(pretty)) == ([a], [])
    # `run --format json >> file` twice: two pretty objects back to back
    two = tmp_path / "appended.json"
    two.write_text(json.dumps(a, indent=2) + "\n" + json.dumps(b, indent=2) + "\n")
    assert read_records(str(two)) == ([a, b], [])


def test_non_record_lines_among_records_are_skipped_with_reasons(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text(_jsonl([_record("a")]) + '{"wall_start": 1.0, "cmd": ["x"]}\n42\n'
                    + '{"schema": "other.thing/1"}\n')
    records, skipped = read_records(str(path))
    assert [r["run_id"] for r in records] == ["a"]
    assert skipped == [(2, 'not a run record: no "schema" key'), (3, "not a run record: a JSON int, not an object"),
                       (4, "not a run record: schema 'other.thing/1'")]


def test_empty_file_is_an_error_naming_the_file_and_the_fix(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n  \n")
    with pytest.raises(RecordsError) as err:
        read_records(str(path))
    assert str(err.value) == (f"{path}: line 1: empty file, no run records: write some with "
                              f"`phasewrap run --jsonl {path} -- CMD`")


def test_a_file_that_is_not_records_at_all(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"wall_start": 1.0, "cmd": ["x"]}\n[0.1, "out", "hi"]\n')
    with pytest.raises(RecordsError) as err:
        read_records(str(path))
    assert str(err.value) == (f'{path}: line 1: not a run record: no "schema" key; no run record (schema '
                              f"phasewrap.run/1) in the file: point to a file written by `phasewrap run --jsonl FILE`")


def test_plain_text_is_not_records(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("load took 3 s\nttft 0.2 s\n")
    with pytest.raises(RecordsError, match=r"notes\.txt: line 1: invalid JSON at column 1: Expecting value; no run"):
        read_records(str(path))


def test_unknown_schema_version_is_an_error_naming_the_line(tmp_path):
    newer = dict(_record("b"), schema="phasewrap.run/2")
    path = tmp_path / "runs.jsonl"
    path.write_text(_jsonl([_record("a"), newer]))
    with pytest.raises(RecordsError) as err:
        read_records(str(path))
    assert str(err.value) == (f"{path}: line 2: unknown schema 'phasewrap.run/2': this phasewrap reads "
                              f"phasewrap.run/1; use the phasewrap version that wrote the file, or upgrade phasewrap")


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(RecordsError, match=r"nope\.jsonl: no such file or directory"):
        read_records(str(tmp_path / "nope.jsonl"))
    binary = tmp_path / "model.gguf"
    binary.write_bytes(b"GGUF\n\xff\xfe\x00")
    with pytest.raises(RecordsError, match=r"model\.gguf: line 2: not UTF-8 text"):
        read_records(str(binary))


def test_parse_records_is_the_pure_core():
    assert parse_records(_jsonl([_record("a")]))[0][0]["run_id"] == "a"


def test_select_by_tags():
    recs = [_record("a", {"model": "7b", "gpu": "h200"}), _record("b", {"model": "13b", "gpu": "h200"}),
            _record("c", {"model": "7b"}), _record("d", {"n": 3})]
    assert [r["run_id"] for r in select(recs, {"model": "7b"})] == ["a", "c"]
    assert [r["run_id"] for r in select(recs, {"model": "7b", "gpu": "h200"})] == ["a"]
    assert [r["run_id"] for r in select(recs, {"n": "3"})] == ["d"]
    assert [r["run_id"] for r in select(recs, {})] == ["a", "b", "c", "d"]


def test_parse_tag_filters():
    assert parse_tag_filters(["model=7b", "note=a=b"]) == {"model": "7b", "note": "a=b"}
    with pytest.raises(RecordsError, match=r"tag filter 'model': expected KEY=VALUE"):
        parse_tag_filters(["model"])


def test_pool_key_cache_label_and_warmup():
    cold = _record("a", cache={"label": "cold", "resident_fraction": 0.0})
    warm = _record("b", cache={"label": "warm", "resident_fraction": 1.0})
    unmeasured = _record("c")
    warmup = _record("d", cache={"label": "warm"}, warmup=True)
    assert pool_key(cold) == (("cache", "cold"),)
    assert pool_key(warm) == (("cache", "warm"),)
    assert pool_key(unmeasured) == (("cache", None),)
    assert pool_key(warmup) is None
    assert cache_label(_record("e", cache="partial")) == "partial"
    assert is_warmup(warmup) and not is_warmup(warm)
    assert describe_key(pool_key(unmeasured)) == "cache=unknown"
    grouped = group([cold, warm, warmup, _record("f", cache={"label": "cold"})])
    assert {describe_key(k): [r["run_id"] for r in v] for k, v in grouped.items()} == {
        "cache=cold": ["a", "f"], "cache=warm": ["b"]}
