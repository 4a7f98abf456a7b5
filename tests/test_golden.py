"""Behaviour held still: `analyze` of the golden inputs gives the records recorded in
tests/fixtures/golden/records.json.gz, key for key (regenerate with `python3 -m tests.golden --write` only for a
deliberate change, and name it in the commit)."""
from tests import golden


def test_the_golden_inputs_are_all_there():
    assert sorted(golden.inputs()) == sorted(golden.load())


def test_analyze_gives_the_golden_records():
    diffs = golden.differences(golden.load(), golden.compute())
    assert diffs == []
