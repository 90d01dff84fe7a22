"""Bar charts as inline SVG, drawn by matplotlib (https://matplotlib.org/) when the ``report`` extra is installed.

One job: :func:`bar_chart`, a titled bar chart as an ``<svg>`` element to put in an HTML page, or None when
matplotlib is not installed (:func:`available`; the page then shows its tables alone).  Why matplotlib:
docs/recipes/report.md says (maintained, its SVG backend needs no browser, no network and no JavaScript; the
same data gives the same bytes with ``svg.hashsalt`` set and no date; its axes place and label ticks from the
fonts' metrics, which hand-written SVG cannot measure).

The SVG matplotlib writes (SVG 1.1, https://www.w3.org/TR/SVG11/) is made fit to sit inline in an HTML page
(HTML's "SVG" integration, https://html.spec.whatwg.org/multipage/embedded-content-other.html#svg-0) here: no
XML declaration, DOCTYPE or RDF metadata (they name http URLs), no namespace declarations (the HTML parser puts
``svg`` and ``xlink:href`` in their namespaces itself), each ``id`` and reference to one prefixed with the
chart's own name (several charts on one page would repeat matplotlib's ids), the global ``*`` style rule left to
the page's style sheet, its size left to the page (the ``viewBox`` kept), the text and axes drawn in
``currentColor`` (so that they follow the page's light or dark colours), and a ``<title>`` with
``role="img"`` and ``aria-labelledby`` (WAI-ARIA's graphics roles) for assistive technology.  Text stays text
(``svg.fonttype: none``): small, selectable, read by screen readers, in DejaVu Sans where the reader has it (the
font matplotlib ships and measures the text with), else a sans-serif.
"""

from __future__ import annotations

import functools
import html
import io
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["INSTALL", "available", "bar_chart"]

INSTALL = "pip install 'feedmap[report]'"

#: Drawn in this colour, then written as ``currentColor`` (a colour no chart uses otherwise).
_INK = "#010203"
_BAR = "#4a78b0"
#: Matplotlib's settings for every chart: text as text, fixed ids, the ink colour, a small plain style.
_STYLE = {
    "svg.fonttype": "none",
    "svg.hashsalt": "feedmap-report",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],  # the font matplotlib measures the text with (it ships it): named first
    "font.size": 9,
    "text.color": _INK,
    "axes.edgecolor": _INK,
    "axes.labelcolor": _INK,
    "xtick.color": _INK,
    "ytick.color": _INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.facecolor": "none",
    "axes.facecolor": "none",
    "savefig.facecolor": "none",
    "savefig.edgecolor": "none",
    "path.simplify": False,
}
_ID = re.compile(r'\bid="([^"]+)"')
_REFERENCE = re.compile(r'(url\(#|xlink:href="#|href="#)([^)"]+)')
_SIZE = re.compile(r'\s(?:width|height)="[^"]*"')
_NAMESPACE = re.compile(r'\sxmlns(?::\w+)?="[^"]*"')


@functools.cache
def available() -> bool:
    """Whether matplotlib can be imported (tried once, when a report is first rendered)."""
    try:
        _matplotlib()
    except ImportError:
        return False
    return True


def bar_chart(
    name: str,
    title: str,
    labels: Sequence[str],
    values: Sequence[int],
    *,
    ticks: Sequence[tuple[int, str]] | None = None,
    horizontal: bool = False,
    wide: bool = False,
) -> str | None:
    """A bar chart of ``values`` (one bar per label, in order) as an inline ``<svg>``; None without matplotlib.

    ``name`` makes its ids unique in the page (letters, digits, ``-``); ``ticks`` are the (bar, label) pairs
    labelled on the category axis when not every bar is (a bar per month, the years labelled); ``wide``: a chart
    across the page, else one of a pair side by side.
    """
    if not available() or not values:
        return None
    figure_class, canvas_class, rc_context = _matplotlib()
    with rc_context(_STYLE):
        rows = len(values)
        width = 7.0 if wide else 4.2
        size = (width, max(1.6, 0.22 * rows + 0.6)) if horizontal else (width, 2.2)
        figure = figure_class(figsize=size)
        canvas_class(figure)
        axes = figure.add_subplot()
        places = list(range(rows))
        if horizontal:
            axes.barh(places, values, color=_BAR)
            axes.set_yticks(places, list(labels))
            axes.invert_yaxis()
        else:
            axes.bar(places, values, color=_BAR, width=0.8 if rows < 60 else 1.0)
            shown = list(ticks) if ticks is not None else list(enumerate(labels))
            crowded = sum(len(label) + 2 for _at, label in shown) > (60 if wide else 36)
            axes.set_xticks(
                [at for at, _label in shown],
                [label for _at, label in shown],
                rotation=35 if crowded else 0,
                ha="right" if crowded else "center",
                rotation_mode="anchor",
            )
        (axes.xaxis if horizontal else axes.yaxis).get_major_locator().set_params(integer=True)
        figure.tight_layout(pad=0.3)
        written = io.StringIO()
        figure.savefig(written, format="svg", metadata={"Date": None, "Creator": None})
    return _inline(written.getvalue(), name, title)


def _matplotlib() -> tuple[Any, Any, Any]:
    """matplotlib's Figure, its SVG canvas and rc_context (no pyplot: no global figure or backend state)."""
    from matplotlib import rc_context
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    return Figure, FigureCanvasSVG, rc_context


def _inline(svg: str, name: str, title: str) -> str:
    """matplotlib's SVG document made an element to sit in an HTML page (see the module's docstring)."""
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    svg = re.sub(r"<style[^>]*>.*?</style>\s*", "", svg, flags=re.DOTALL)
    svg = re.sub(r"<defs>\s*</defs>\s*", "", svg)
    svg = _ID.sub(lambda found: f'id="{name}-{found.group(1)}"', svg)
    svg = _REFERENCE.sub(lambda found: f"{found.group(1)}{name}-{found.group(2)}", svg)
    svg = svg.replace(_INK, "currentColor")
    head, rest = svg.split(">", 1)
    head = _NAMESPACE.sub("", _SIZE.sub("", head))
    label = f"{name}-title"
    return (
        f'{head} class="chart" role="img" aria-labelledby="{label}">'
        f'<title id="{label}">{html.escape(title)}</title>{rest.strip()}'
    )
