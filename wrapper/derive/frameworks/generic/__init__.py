"""The general figure reader: labelled figures from lines no family parser reads, in the few shapes logs use.

    reader = FigureReader()
    reader.feed(text, routed=False)       # text: a line without its prefixes; routed: a family was shown it
    reader.runs(family_claimed) -> list[Run]
    merge(reports, runs, claimed, framework) -> list[dict]   # folds them into a family's reports (StreamParser)
    SelfName().feed(raw_line); .name      # the name a log prints about itself (routes.SELF_NAMES) or None

Modules, each reading from those above it: ``lexicon`` (what a label, a unit, a number mean: units and kinds, noise,
core keys), ``lines``, ``tables``, ``structured`` and ``systools`` (the shapes, each a mixin of ``FigureReader``'s
methods; ``systools`` reads ``free``, ``top``, ``df`` and ``dd``),
``reader`` (``FigureReader``: which shape a line is, the figures kept, runs), ``merge`` (into a family's reports).

Shapes read (``value`` as printed, ``unit`` normalised, ``kind`` one of ``duration``, ``rate``, ``size``,
``percent``, ``count``, ``ratio``):

* ``Label: 2760.401ms``, ``label = 12.5 tokens/s``, ``label=3.2s``, ``label="177.15ms"`` (key=value pairs, several
  per line: each is one figure);
* ``Loaded the model in 3.2 s`` / ``warmup took 850ms``: the words before ``took``/``in`` are the label;
* ``Throughput (T/s) 0.80``: a label with its unit in brackets, then the number;
* ``Prompt tokens: 24328 in 23.32s (1043.05 tokens/s)``: a count, its time and rate (labels ``… tokens``,
  ``… tokens time``, ``… tokens rate``);
* ``Prefix cache hitrate 50.00%``: words, then a number with its unit (read last: the shapes above come first);
* ``Time(s): tokenize 0.54, prefill 126.99, decode 362.44``: a group with its unit, then ``name value`` pairs
  (label ``Time prefill``);
* ``| col (ms) | col |`` tables: a header row of names, then rows of numbers; each cell is a figure labelled by its
  column (unit from the column's brackets);
* a JSON object on one line: each numeric member whose key names a time, rate, size or token count;
* CSV: a header of 3+ names, then rows of as many numbers; each cell labelled by its column (unit from its
  brackets or suffix: ``prefill_tps``, ``ttft (ms)``, ``kv_bytes``);
* a shell's ``time`` line (zsh's ``12.77s user 8.83s system 131% cpu 16.393 total``, GNU time's ``…elapsed``), BSD's and macOS's
  ``208.58 real  354.21 user  538.40 sys`` and ``N  maximum resident set size`` (bytes);
* a bare magnitude after a label's value: ``~11K tokens`` (11000, a count), ``Memory: 1.7G`` (GiB: only after a
  label naming memory; never in a table's cell, where ``30K`` names a row);
* a headerless fixed-width row of a name, then values (``coding  100.0 12/12  53040ms ✅``): those with units.
* a bar of block elements (``pulling 00e1317cbf74...  27% ▕███ ▏ 1.2 GB/4.7 GB   56 MB/s    1m0s``: ``… progress``,
  ``… size``, ``… size out of``, the rate, ``… remaining``); how many of how many in words (``relocated tensors: 135
  of 780``: ``relocated tensors``, ``… out of``).
* a change from one value to another, ``Decode speed: 12.3 -> 15.6 tok/s`` (``Decode speed`` 15.6, ``Decode speed
  from`` 12.3); in a table cell with a statistic after it, ``37.9 -> 37.6 (Max 38.1)`` (``… from``, ``… max``);
* a table cell's signed change in brackets, ``1,483 (−1.1%)``, ``50.1% (−5.2pp)`` (``… change``, in % or percentage
  points), and a cell used out of a total, ``4644MiB / 32768MiB`` (``… total``);
* a Python dict printed whole (``{'loss': 0.97, 'memory(GiB)': 40.38, 'elapsed_time': '1m 46s'}``) as a JSON object,
  a key's unit from its brackets; pipe-separated cells that name their own values (Megatron's ``| lm loss: 1.8 |``);
* a figure closing a line after a sentence of its own (``GC collection. 0.06 seconds.``); a name and its number a
  tab apart (``Tokens\t2,196``, unless under a tab-separated header).

A figure needs a unit, or a label naming tokens/requests (a count) or a ratio (``_RATIO``: concurrency,
acceptance, speed-up, utilization, …); else, in a strong shape (``label: n``, ``key=n``, a JSON member, a table's
or CSV's cell, a Prometheus sample), it is of kind ``value`` (no unit printed, a label that names none), unless its
label names a setting, flag, code or clock (``_VALUE_NOISE``). Noise never becomes a figure: labels naming threads, seeds, ids, ports,
addresses, versions, dates, sizes of batches/contexts/layers, limits of counts and sizes (``max_tokens``), and
values that are parts of dates, times of day, addresses or hex. Identical (label, value, unit) figures are kept once; at most
``MAX_FIGURES`` per log (the first ones; ``figures_dropped`` counts the lines' figures past it), and apart from
them at most ``MAX_VALUES`` of kind ``value`` and ``MAX_BAR_FIGURES`` of progress bars' redraws.

Core figures (filled only in a log no family claims; a family parser always wins, see ``merge``): a duration
labelled prefill / prompt processing / prompt eval -> ``prompt_eval_ms``, decode /
generation / eval -> ``eval_ms``, load -> ``load_ms``, total -> ``total_ms``, time to first token / TTFT ->
``ttft_ms``; rates of prefill/prompt -> ``prompt_tps``, of decode/generation/eval/output -> ``eval_tps``; counts
of input/prompt tokens -> ``prompt_tokens``, of generated/output/completion tokens -> ``eval_tokens``. A core key
seen again starts a new run (as in ``figures.Runs.put``); at most ``MAX_RUNS`` runs per log.

Which lines: every line ``GATE`` finds something in (a number with a unit, a table bar, a word naming tokens, a
JSON key with a unit) is read, and the lines after a fixed-width table's header or row (``open``). A line the
claiming family reads is read too, after the family (``hold``/``settle``): the values the family took from it
are left out (it always wins), the others are figures. Before a family claims the log, a figure from a line some
family was shown is marked with the names of the families shown it (``routed``): if one of them claims the log,
it is kept only when that family's final records do not hold its value (``Pending``); a line only another
family was shown keeps its figures. A line made noise as a whole is not read: argparse's ``Namespace(…)``, llama.cpp's ``worst-case:``
reservation, a next token's candidates with their probabilities.
"""

from __future__ import annotations

from .lexicon import LIST_ITEMS, MAX_LABEL_CHARS, MAX_LABEL_WORDS, MAX_LINE_CHARS
from .lines import BAR_LABEL, BAR_VALUES, MAX_BARS
from .merge import SelfName, joined, merge
from .reader import EPOCH_MS, GATE, GATE_CHARS, MAX_BAR_FIGURES, MAX_FIGURES, MAX_PENDING, MAX_RUNS, MAX_VALUES, Figure, FigureReader, \
    Pending, Run
from .structured import MAX_JSON_DEPTH
from .tables import HEADER_LINES_BACK, MAX_HEADER_CELL_CHARS, MIN_CSV_COLUMNS, MIN_SPACED_COLUMNS

__all__ = ["BAR_LABEL", "BAR_VALUES", "EPOCH_MS", "GATE", "GATE_CHARS", "HEADER_LINES_BACK", "LIST_ITEMS", "MAX_BARS",
           "MAX_BAR_FIGURES", "MAX_FIGURES",
           "MAX_HEADER_CELL_CHARS", "MAX_JSON_DEPTH", "MAX_LABEL_CHARS", "MAX_LABEL_WORDS", "MAX_LINE_CHARS",
           "MAX_PENDING", "MAX_RUNS", "MAX_VALUES", "MIN_CSV_COLUMNS", "MIN_SPACED_COLUMNS", "Figure", "FigureReader",
           "Pending", "Run", "SelfName", "joined", "merge"]
