"""Pictures of runs: a phase timeline with resource panels, and base-vs-candidate phase bars.

Five rooms, data flowing one way:

- ``runs``: the inputs (record files, capture files, capture folders) → ``RunView`` (the model of one run);
- ``series``: the resource panels, declared once as a table, and each run's time series for them;
- ``draw``: runs → image bytes (matplotlib, imported only when a picture is drawn); no file I/O;
- ``page``: the self-contained HTML page around a picture;
- ``files``: bytes → the output file (format from its suffix, written through ``export.writer``).
"""
from .draw import PlotUnavailable, compare_bars_bytes, timeline_bytes
from .files import compare_bars, format_of, timeline
from .page import html_page, inline_svg
from .runs import PlotInputError, RunView, ascii_bar, load_runs, short_id, views_from_records
from .series import PANELS, panel_plan

__all__ = ["PlotUnavailable", "PlotInputError", "RunView", "PANELS", "ascii_bar", "compare_bars",
           "compare_bars_bytes", "format_of", "html_page", "inline_svg", "load_runs", "panel_plan", "short_id",
           "timeline", "timeline_bytes", "views_from_records"]
