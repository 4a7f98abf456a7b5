"""The self-contained HTML page around a picture: no script, no network; images only from data: URIs."""
from __future__ import annotations

import base64
import html

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def html_page(title: str, body: str, style: str = "") -> str:
    """A self-contained page: no script, no network (the CSP forbids both); ``body`` is already HTML."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
            f"<title>{html.escape(title)}</title>\n"
            f"<style>body{{font-family:sans-serif;margin:1.5em}}img{{max-width:100%}}{style}</style>\n"
            f"</head><body>\n{body}\n</body></html>\n")

