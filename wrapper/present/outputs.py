"""Every output of ``phasewrap run`` in one place: checked before the first run, written after each one.

``RunOutputs(options, fleet)`` fills the ``{host}``, ``{shard}``, ``{sweep_id}``, ``{run_id}`` placeholders of
``--jsonl``, ``--csv`` and ``--capture``, refuses an output that can't be written (``OutputPathError``, before
anything runs), and then for each finished record appends it to the JSONL and CSV files and hands it to the
exporters (Prometheus textfile, MLflow). A record that could not be written everywhere is named in
``unwritten``; the others are kept. ``plot_after(records)`` draws ``--plot`` once the runs are done.
"""
from __future__ import annotations

import logging
import os
from typing import Callable, Optional

from ..core.writer import OutputError, OutputPathError, append_locked, check_writable, show_path
from ..method.fleet import capture_check_dir, expand, placeholders_in
from ..model.options import RunOptions

log = logging.getLogger("phasewrap")


class RunOutputs:
    def __init__(self, options: RunOptions, fleet: Optional[dict]) -> None:
        self._options = options
        self._fleet = fleet
        self.unwritten: list = []
        self.capture_dir_for: Optional[Callable[[str], str]] = None  # a {run_id} capture folder: made per run
        self.capture_dir = options.capture_dir  # the one capture folder, None when it differs per run
        capture_check = self._capture_templates(options.capture_dir)
        self._check(self.jsonl_for("RUN_ID"), self.csv_for("RUN_ID"), capture_check, options.plot, options.trace)
        self._exporters = self._make_exporters()

    # -- paths --------------------------------------------------------------------------------------------

    def _per_run(self, template: Optional[str], run_id: str) -> Optional[str]:
        return expand(template, self._fleet, run_id) if template else template

    def jsonl_for(self, run_id: str) -> Optional[str]:
        return self._per_run(self._options.jsonl, run_id)

    def csv_for(self, run_id: str) -> Optional[str]:
        return self._per_run(self._options.csv, run_id)

    def capture_of(self, run_id: str) -> Optional[str]:
        """The capture file a run writes, or None without --capture."""
        directory = self.capture_dir_for(run_id) if self.capture_dir_for else self.capture_dir
        if not directory:
            return None
        from ..sources.capture import SUFFIX  # the capture format's module: only a --capture run loads it

        return os.path.join(directory, run_id + SUFFIX)

    def _capture_templates(self, capture_dir: Optional[str]) -> Optional[str]:
        """The capture folder to check before the start; sets ``capture_dir_for`` for a per-run template."""
        if not (capture_dir and placeholders_in(capture_dir)):
            return capture_dir
        template = expand(capture_dir, self._fleet, None)  # {run_id} kept, filled per run

        def capture_dir_for(run_id: str) -> str:
            path = expand(template, self._fleet, run_id)
            os.makedirs(path, exist_ok=True)
            return path

        self.capture_dir_for = capture_dir_for
        self.capture_dir = None if "{run_id}" in template else template
        return self.capture_dir or capture_check_dir(template)

    # -- before the first run -----------------------------------------------------------------------------

    @staticmethod
    def _check(jsonl: Optional[str], csv: Optional[str], capture_dir: Optional[str], plot: Optional[str],
               trace: Optional[str]) -> None:
        for option, path in (("--jsonl", jsonl), ("--csv", csv), ("--plot", plot), ("--trace", trace)):
            if path:
                check_writable(option, path)
        if csv and csv != "-" and os.path.isfile(csv):
            from .export import csvlog  # and the csv module: only a --csv run loads them

            with open(csv, "rb") as fh:
                problem = csvlog.header_problem(fh.read(1 << 16))
            if problem:
                raise OutputPathError(f"--csv: {show_path(csv)} {problem}; give a new file name (nothing was "
                                      "appended)")
        if capture_dir:
            _check_capture_dir(capture_dir)

    def _make_exporters(self) -> list:
        """One callable per exporter asked for, each taking a finished record; checked here, before any run."""
        out = []
        if self._options.prom_textfile is not None:
            from .export import prometheus

            out.append(prometheus.Exporter(self._options.prom_textfile, self._fleet))
        if self._options.mlflow is not None:
            from .export import mlflow as mlflow_export

            out.append(mlflow_export.Exporter(self._options.mlflow or None, capture_for=self.capture_of))
        return out

    # -- after each run -----------------------------------------------------------------------------------

    def write(self, record: dict) -> None:
        """Append the record to the JSONL and CSV files (each on its own: one failing keeps the other) and export
        it; a record that could not be written everywhere goes to ``unwritten``."""
        run_id = record["run_id"]
        ok = self._append_jsonl(record, self.jsonl_for(run_id))
        ok = self._append_csv(record, self.csv_for(run_id)) and ok
        if not ok:
            self.unwritten.append(run_id)
        for export in self._exporters:
            export(record)

    @staticmethod
    def _append_jsonl(record: dict, path: Optional[str]) -> bool:
        from .export import jsonl as jsonl_format

        if not path:
            return True
        try:
            append_locked(path, lambda _first: jsonl_format.line(record), "--jsonl")
        except OutputError as exc:
            log.error("%s", exc)
            return False
        return True

    def _append_csv(self, record: dict, path: Optional[str]) -> bool:
        if not path:
            return True
        from .export import csvlog

        dropped: list = []

        def make(first: Optional[str]) -> str:
            text, lost = csvlog.render([record], first)
            dropped.extend(lost)
            return text

        try:
            append_locked(path, make, "--csv")
        except OutputError as exc:
            log.error("%s", exc)
            return False
        if dropped:
            also = "in the JSONL record only" if self._options.jsonl else "not kept (no --jsonl)"
            log.warning("--csv: %s's header has no column for tag(s) %s; they are %s (start a new CSV file to get "
                        "columns for them)", show_path(path), ", ".join(dropped), also)
        return True

    # -- after the last run -------------------------------------------------------------------------------

    def draw_after(self, records: list, kept: list) -> None:
        """``--trace`` and ``--plot`` of the runs, from the chunk times and samples the session kept in memory."""
        plot, trace = self._options.plot, self._options.trace
        if not (records and (plot or trace)):
            return
        from ..core.writer import write_file
        from .plot import PlotUnavailable, timeline, views_from_records

        views = views_from_records(records, kept=kept)
        if trace:
            from .export.trace import serialize

            try:
                write_file(trace, serialize(views), "--trace")
                log.info("trace written to %s", show_path(trace))
            except OutputError as exc:
                log.error("%s", exc)
        if plot:
            try:
                timeline(views, plot)
                log.info("timeline written to %s", show_path(plot))
            except (PlotUnavailable, ValueError, OSError) as exc:
                log.warning("--plot: %s", exc)


def _check_capture_dir(capture_dir: str) -> None:
    if os.path.exists(capture_dir) and not os.path.isdir(capture_dir):
        raise OutputPathError(f"--capture: {capture_dir} is not a directory; give a directory")
    try:
        os.makedirs(capture_dir, exist_ok=True)
    except OSError as exc:
        raise OutputPathError(f"--capture: cannot create {capture_dir} ({exc.strerror}); choose another "
                              "directory") from None
    if not os.access(capture_dir, os.W_OK):
        raise OutputPathError(f"--capture: cannot write in {capture_dir} (permission denied)")
