"""The self-contained HTML page around a picture: no script, no network, no image to load (pictures are inline SVG)."""
from __future__ import annotations

import html
import re

CSP = "default-src 'none'; style-src 'unsafe-inline'"


def html_page(title: str, body: str, style: str = "") -> str:
    """A self-contained page: no script, no network (the CSP forbids both); ``body`` is already HTML."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(title)}</title>\n"
            f"<style>body{{font-family:sans-serif;margin:1.5em}}img{{max-width:100%}}"
            f"svg[role=img]{{display:block;width:100%;height:auto}}{style}</style>\n"
            f"</head><body>\n{body}\n</body></html>\n")



def inline_svg(svg: bytes, label: str, css_class: str = "picture") -> str:
    """matplotlib's SVG file as an element to place in a page: no XML prolog or DOCTYPE, no metadata block, no
    namespace declarations (the HTML parser gives inline SVG its namespace) and no fixed size, so it scales to
    its container by its viewBox; ``css_class``, ``role="img"`` and ``label`` for screen readers."""
    text = svg.decode("utf-8")
    text = text[text.index("<svg"):]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    end = text.index(">")
    head = re.sub(r'\s(?:xmlns(?::\w+)?|width|height)="[^"]*"', "", text[:end])
    return f'{head} class="{css_class}" role="img" aria-label="{html.escape(label)}"{text[end:]}'
