"""The regression gate's result (``method.check.check``) as the outputs CI systems and people read: a terminal
table, a Markdown table (a pull-request comment, GitHub's step summary), JUnit XML (GitLab, Jenkins and GitHub
test reporters); JSON is ``jsonl.pretty`` of the result. Pure: a result in, text out; the caller writes it.

Text from records (conditions, step names, file names) goes through ``core.safe`` before each format.
"""
from __future__ import annotations

import json
from typing import Optional

from ...core import safe

TITLE = "phasewrap check"
RESULT_WORDS = {"pass": "pass", "fail": "FAIL", "cant_tell": "can't tell"}
_UNIT_SHOWN = {"s": " s", "ms": " ms", "mJ": " mJ", "1/s": "/s", "count": "", "ratio": ""}
_DIGITS = {"s": 3, "ms": 2, "mJ": 1, "1/s": 1, "count": 1, "ratio": 2}
_MD_ESCAPE = {c: "\\" + c for c in "\\`*_[]|#"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def _num(value: Optional[float], unit: str, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    digits = _DIGITS.get(unit, 3)
    return (f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}") + _UNIT_SHOWN.get(unit, f" {unit}")


def limit_text(row: dict) -> str:
    """``> +10%``, ``> +0.500 s`` or ``< 0.60``: the threshold as the report shows it."""
    if row["kind"] == "relative":
        return f"{row['op']} {row['limit'] * 100:+g}%"
    return f"{row['op']} {_num(row['limit'], row['unit'], signed=row['kind'] == 'change')}"


def change_text(row: dict) -> str:
    """The candidate's median against the base's: ``+30.0% (+0.030 s)``; n/a when a side has none."""
    bm, cm = row["base_median"], row["cand_median"]
    if bm is None or cm is None:
        return "n/a"
    diff = _num(cm - bm, row["unit"], signed=True)
    return f"{(cm / bm - 1) * 100:+.1f}% ({diff})" if bm else diff


def noise_text(row: dict) -> str:
    """``beyond noise (p=0.0079)``, ``within noise (p=0.42)`` (a bound: ``(sign test p=…)``), or ``n/a``."""
    noise = row["noise"]
    if not noise or noise["beyond_noise"] is None:
        return "n/a"
    word = "beyond noise" if noise["beyond_noise"] else "within noise"
    test = "sign test " if row["kind"] == "bound" else ""
    return f"{word} ({test}p={noise['p']:.2g})" if noise["p"] is not None else f"{word} ({noise['test']})"


def _side(row: dict, side: str) -> str:
    return f"{_num(row[side + '_median'], row['unit'])} ({row[side + '_n']})"


def _cells(row: dict) -> list[str]:
    return [row["threshold"], _side(row, "base"), _side(row, "cand"), change_text(row), noise_text(row),
            limit_text(row), RESULT_WORDS[row["outcome"]]]


HEADERS = ["metric", "base median (n)", "candidate median (n)", "change", "noise", "threshold", "result"]


def _sides_line(result: dict) -> str:
    runs, pool = result["runs"], result["pool"]
    parts = []
    for side, word in (("base", "base"), ("cand", "candidate")):
        where = result.get(side) or side
        parts.append(f"{word}: {where} ({runs[side]['compared']} run(s), {pool[side] or 'no pool'})")
    return " · ".join(parts)


def _notes(result: dict) -> list[str]:
    """One line per metric that did not pass, then the one-variable guard's warnings."""
    notes = [f"{r['threshold']}: {RESULT_WORDS[r['outcome']]}: {r['why']}"
             + (f" ({r['noise']['why']})" if r["noise"] and r["outcome"] == "fail" else "")
             for r in result["metrics"] if r["outcome"] != "pass"]
    return notes + [f"warning: {w}" for w in result["warnings"]]


def table(result: dict) -> str:
    """The result for a terminal: the verdict, a table of the metrics, why each non-pass, the warnings."""
    from tabulate import tabulate  # only text output needs it

    rows = [[safe.one_line(cell) for cell in _cells(r)] for r in result["metrics"]]
    lines = [f"{TITLE}: {RESULT_WORDS[result['outcome']]}", safe.one_line(_sides_line(result)),
             tabulate(rows, headers=HEADERS, disable_numparse=True)]
    lines += [safe.one_line(n) for n in _notes(result)]
    return "\n".join(lines) + "\n"


def md_cell(text: str) -> str:
    """``text`` as one literal Markdown table cell: on one line, with Markdown's and HTML's signs escaped."""
    return "".join(_MD_ESCAPE.get(c, c) for c in safe.one_line(text))


def markdown(result: dict) -> str:
    """The result as GitHub-flavoured Markdown: a heading with the verdict, the sides, a table of the metrics,
    then a list of why each non-pass and the warnings."""
    lines = [f"### {TITLE}: {md_cell(RESULT_WORDS[result['outcome']])}", "", md_cell(_sides_line(result)), "",
             "| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(md_cell(c) for c in _cells(r)) + " |" for r in result["metrics"]]
    notes = _notes(result)
    if notes:
        lines += [""] + [f"- {md_cell(n)}" for n in notes]
    return "\n".join(lines) + "\n"


def figures(row: dict) -> str:
    """One metric's figures in words, for a JUnit failure's text and message."""
    noise = row["noise"]["why"] if row["noise"] else "not tested"
    return (f"{row['metric']}: base median {_side(row, 'base')}, candidate median {_side(row, 'cand')}, change "
            f"{change_text(row)}, threshold {limit_text(row)}; noise: {noise}; {RESULT_WORDS[row['outcome']]}: "
            f"{row['why']}")


def _xml_text(text: str) -> str:
    return safe.terminal(str(text))  # XML 1.0 admits no control characters but tab and newline


def junit(result: dict) -> str:
    """The result as JUnit XML: one ``testsuite``, one ``testcase`` per metric (named by its threshold);
    ``failure`` (type ``regression``) for a fail, ``skipped`` for can't tell, both carrying the figures."""
    import xml.etree.ElementTree as ET

    counts = result["counts"]
    totals = {"tests": str(len(result["metrics"])), "failures": str(counts["fail"]), "errors": "0",
              "skipped": str(counts["cant_tell"])}
    root = ET.Element("testsuites", {"name": TITLE, **totals})
    suite = ET.SubElement(root, "testsuite", {"name": TITLE, **totals})
    props = ET.SubElement(suite, "properties")
    for name, value in (("outcome", result["outcome"]), ("base", result.get("base") or "base"),
                        ("cand", result.get("cand") or "cand"), ("base_runs", result["runs"]["base"]["compared"]),
                        ("cand_runs", result["runs"]["cand"]["compared"]), ("base_pool", result["pool"]["base"]),
                        ("cand_pool", result["pool"]["cand"])):
        ET.SubElement(props, "property", {"name": name, "value": _xml_text("n/a" if value is None else value)})
    for row in result["metrics"]:
        case = ET.SubElement(suite, "testcase", {"name": _xml_text(row["threshold"]),
                                                 "classname": _xml_text(f"phasewrap.check.{row['metric']}")})
        text = _xml_text(figures(row))
        if row["outcome"] == "fail":
            ET.SubElement(case, "failure", {"message": text, "type": "regression"}).text = text
        elif row["outcome"] == "cant_tell":
            ET.SubElement(case, "skipped", {"message": text})
    if result["warnings"]:
        ET.SubElement(suite, "system-out").text = _xml_text("\n".join(result["warnings"]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def to_json(result: dict) -> str:
    """The result as indented JSON."""
    return json.dumps(result, ensure_ascii=False, indent=2) + "\n"


def baselines_table(rows: list) -> str:
    """``phasewrap baselines`` for a terminal: one line per stored baseline (``baselines.listing`` rows)."""
    from tabulate import tabulate

    if not rows:
        return "no baselines saved: save one with `phasewrap run --save-baseline NAME -- CMD`\n"
    body = [[safe.one_line(r["name"]), "n/a" if r["records"] is None else str(r["records"]),
             "n/a" if r["runs_ok"] is None else str(r["runs_ok"]), ", ".join(r["cache"]) or "n/a",
             safe.one_line(", ".join(r["hosts"])) or "n/a", r["saved_utc"], safe.one_line(r["problem"] or "")]
            for r in rows]
    return tabulate(body, headers=["name", "records", "runs ok", "cache", "hosts", "saved (UTC)", "problem"],
                    disable_numparse=True) + "\n"
