"""tests/heldout_score.py: the held-out scorer counts a sheet's figures found in analyze's records, by value."""
from __future__ import annotations

import json

from .heldout_score import _value, score


def test_a_found_figure_a_missed_one_and_the_framework(tmp_path):
    (tmp_path / "x__a.log").write_text("Average latency: 1.23 seconds\nsome prose about 7 apples\n", encoding="utf-8")
    (tmp_path / "x__a.sheet.json").write_text(json.dumps({
        "source": "made up", "runtime": "none", "framework_ok": ["unknown"],
        "figures": [{"label": "Average latency", "value": 1.23, "unit": "seconds", "line": 1},
                    {"label": "apples", "value": 7, "unit": "", "line": 2}]}), encoding="utf-8")
    stated, found, lines = score([str(tmp_path)], detail=True)
    assert (stated, found) == (3, 2)  # two figures and the framework; the apples are no figure to analyze
    assert any(line.strip().startswith("MISS 'apples'") for line in lines)
    assert lines[-1] == "all: 2/3 = 66.7%"


def test_a_sheet_may_give_a_duration_as_printed():
    assert _value(2.5) == 2.5
    assert _value("2m29.5s") == 149.5
    assert _value("0:00:16.25") == 16.25
    assert _value("1 min 19 seconds") == 79.0  # transformers.js's whisper-web timings (held-out round 26)
