"""The report as one self-contained HTML page: inline CSS and SVG, nothing fetched, no script.

One job: :func:`render`, the page (HTML Living Standard, https://html.spec.whatwg.org/) of what a report counted
(:class:`PageData`), written as text.  The page works offline and can be mailed: its style sheet is in it, its
charts are inline ``<svg>`` (:mod:`feedmap._report.charts`), and it names no resource to fetch; its Content
Security Policy (https://www.w3.org/TR/CSP3/, ``default-src 'none'``) forbids any fetch even so.  Every text read
from an input (URLs, file names, messages quoting values) is escaped (:func:`text`): ``&<>"'`` as character
references, and the characters that would reorder or hide a line (controls, bidirectional overrides, lone
surrogates) written as visible escapes, as the command line prints them.  It has a style for printing and for
narrow screens, and follows the reader's light or dark preference (``prefers-color-scheme``, Media Queries
Level 5).  The same data gives the same bytes: the only instant written is the one the counts are made against.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources

from feedmap._core.errors import Diagnostic, Level
from feedmap._report import charts
from feedmap._report.findings import CodeFindings, FindingsByCode
from feedmap._report.tally import AGES, IMAGE_BUCKETS, OTHERS, Capped, FileTally, Tally

__all__ = ["PageData", "render", "text"]

#: Rows shown of a long table (hosts, sections, languages); the rest are summed on an "others" row.
ROWS = 20
#: Characters of a finding's message shown (the rest cut, said).
MESSAGE_CHARACTERS = 300
#: More months than this are charted by year (and more years than this are not charted).
MONTHS_CHARTED = 240
#: Years listed in the table of lastmod by year, the latest; the earlier ones are summed.
YEARS_LISTED = 40
_CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never", "none")
_PRIORITIES = (*(f"{tenth / 10:.1f}" for tenth in range(11)), "out of range", "none")
#: Controls, lone surrogates, bidirectional controls and invisible marks: shown as escapes.
_HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@dataclass
class PageData:
    """What the page shows: the counts of the entries, the findings, the files validated and read."""

    title: str
    inputs: Sequence[str]
    now: dt.datetime
    tally: Tally
    findings: FindingsByCode
    reading: FindingsByCode
    #: name -> (kind, bytes read), for each file validation read, in the order it read them.
    files: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: Files validated past the ones kept by name: how many, their bytes.
    other_files: tuple[int, int] = (0, 0)
    validated: bool = True
    version: str = ""


def text(value: object) -> str:
    """``value`` as HTML text: escaped, with what could hide or reorder it written as a visible escape."""
    shown = str(value)
    if not shown.isascii() or not shown.isprintable():
        shown = _HIDDEN.sub(lambda found: repr(found.group())[1:-1], shown)
    return html.escape(shown, quote=True)


def render(data: PageData) -> str:
    """The page, as text (UTF-8 when written)."""
    sections = [
        _totals(data),
        _files(data),
        _lastmod(data.tally),
        _places(data.tally),
        _fields(data.tally),
        _duplicates(data.tally),
        _findings("findings", "Validation findings", data.findings, _validation_intro(data)),
        _findings("reading", "Reading notes", data.reading, _READING_INTRO),
        _hreflang(data.tally),
        _images(data.tally),
    ]
    return "".join(
        [
            _head(data),
            "<body>\n<header>\n",
            f"<h1>{text(data.title)}</h1>\n",
            f"<p>{_inputs(data.inputs)}; counted as of <time>{text(_instant(data.now))}</time>.</p>\n",
            "</header>\n",
            _contents(),
            "<main>\n",
            *sections,
            "</main>\n",
            _footer(data),
            "</body>\n</html>\n",
        ]
    )


# ------------------------------------------------------------------------------------------------ the frame


#: The page's style sheet (page.css beside this module: CSS, kept out of the Python strings).
_STYLE = resources.files(__package__).joinpath("page.css").read_text(encoding="utf-8")

#: Nothing may be fetched: no script, no font, no image but inline, no frame, no form target.
_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


def _head(data: PageData) -> str:
    generator = f"feedmap {data.version}".strip()
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        f'<meta name="generator" content="{text(generator)}">\n'
        f"<title>{text(data.title)}</title>\n<style>\n{_STYLE}</style>\n</head>\n"
    )


_SECTIONS = (
    ("totals", "Totals"),
    ("files", "Files"),
    ("lastmod", "Lastmod"),
    ("places", "Hosts and sections"),
    ("fields", "Changefreq and priority"),
    ("duplicates", "Duplicates"),
    ("findings", "Validation findings"),
    ("reading", "Reading notes"),
    ("hreflang", "Hreflang"),
    ("images", "Images"),
)


def _contents() -> str:
    links = "".join(f'<li><a href="#{anchor}">{title}</a></li>' for anchor, title in _SECTIONS)
    return f'<nav aria-label="Sections"><ul>{links}</ul></nav>\n'


def _footer(data: PageData) -> str:
    if charts.available():
        drawn = "Charts drawn by matplotlib; each has its numbers in the table beside it."
    else:
        drawn = f"Tables only: the charts need matplotlib (<code>{text(charts.INSTALL)}</code>)."
    return f"<footer><p>Written by {text(('feedmap ' + data.version).strip())}. {drawn}</p></footer>\n"


def _inputs(inputs: Sequence[str]) -> str:
    names = ", ".join(f'<code class="url">{text(name)}</code>' for name in inputs[:10])
    more = f" and {len(inputs) - 10:,} more" if len(inputs) > 10 else ""
    return f"{'Input' if len(inputs) == 1 else 'Inputs'}: {names}{more}"


def _instant(now: dt.datetime) -> str:
    utc = now.astimezone(dt.timezone.utc)
    if (utc.hour, utc.minute, utc.second, utc.microsecond) == (0, 0, 0, 0):
        return utc.strftime("%Y-%m-%d") + " (UTC)"
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def _section(anchor: str, title: str, *parts: str) -> str:
    heading = f'<h2 id="{anchor}-h">{title}</h2>\n'
    return f'<section id="{anchor}" aria-labelledby="{anchor}-h">\n{heading}{"".join(parts)}</section>\n'


# ------------------------------------------------------------------------------------------------ the tables


def _number(value: int) -> str:
    return f"{value:,}"


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _table(
    caption: str, header: Sequence[str], rows: Iterable[Sequence[str]], numeric: frozenset[int], bar: int = -1
) -> str:
    """A table whose cells are HTML already (escaped by the caller); columns in ``numeric`` right-aligned, the
    column ``bar`` holding bars."""
    head = "".join(f'<th scope="col"{_kind(i, numeric, bar)}>{name}</th>' for i, name in enumerate(header))
    body = "".join(
        "<tr>" + "".join(f"<td{_kind(i, numeric, bar)}>{cell}</td>" for i, cell in enumerate(row)) + "</tr>\n"
        for row in rows
    )
    if not body:
        return f'<p class="intro">{caption}: none.</p>\n'
    table = f"<table>\n<caption>{caption}</caption>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody></table>"
    return f'<div class="scroll">{table}</div>\n'


def _kind(column: int, numeric: frozenset[int], bar: int) -> str:
    if column == bar:
        return ' class="bar"'
    return ' class="n"' if column in numeric else ""


def _counts_table(caption: str, what: str, rows: Sequence[tuple[str, int]], whole: int, *, code: bool = False) -> str:
    """A table of names with their counts, shares and a bar (the bar's width the count against the largest)."""
    largest = max((count for _name, count in rows), default=0)
    shown = [
        (
            f'<code class="url">{text(name)}</code>' if code and name != OTHERS else text(name),
            _number(count),
            _share(count, whole),
            _bar(count, largest),
        )
        for name, count in rows
    ]
    return _table(caption, (what, "URLs", "share", '<span class="sr">bar</span>'), shown, frozenset({1, 2}), bar=3)


def _bar(count: int, largest: int) -> str:
    width = 100 * count / largest if largest else 0
    return f'<span style="width:{width:.1f}%"></span>' if count else ""


def _figure(name: str, title: str, labels: Sequence[str], values: Sequence[int], **options: object) -> str:
    """A chart (when matplotlib is installed), its title as caption; empty otherwise."""
    svg = charts.bar_chart(name, title, labels, values, **options)  # type: ignore[arg-type]
    return f"<figure>{svg}<figcaption>{text(title)}</figcaption></figure>\n" if svg is not None else ""


# ------------------------------------------------------------------------------------------------ sections


def _totals(data: PageData) -> str:
    tally, findings = data.tally, data.findings
    cards = [
        ("URLs", _number(tally.urls)),
        ("distinct URLs", _number(tally.distinct)),
        ("files read", _number(len(data.files) + data.other_files[0])),
        ("bytes read", _size(sum(size for _kind, size in data.files.values()) + data.other_files[1])),
        ("images", _number(tally.images)),
        ("with lastmod", _share(tally.dated, tally.urls)),
        ("with hreflang", _share(tally.with_alternates, tally.urls)),
        ("errors", _number(findings.count(Level.ERROR))),
        ("warnings", _number(findings.count(Level.WARNING))),
        ("notes", _number(findings.count(Level.INFO))),
    ]
    items = "".join(f"<div><dt>{name}</dt><dd>{value}</dd></div>" for name, value in cards)
    span = ""
    if tally.earliest is not None and tally.latest is not None:
        ends = f"<time>{text(tally.earliest)}</time> to <time>{text(tally.latest)}</time>"
        span = f'<p class="intro">Lastmod from {ends}.</p>\n'
    return _section("totals", "Totals", f'<dl class="cards">{items}</dl>\n', span)


def _size(count: int) -> str:
    size = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{count:,} bytes" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{count:,} bytes"  # pragma: no cover


def _files(data: PageData) -> str:
    tally, findings = data.tally, data.findings
    names = list(data.files)
    names += [name for name in tally.files if name not in data.files]
    rows = [_file_row(name, data.files.get(name), tally.files.get(name), findings) for name in names]
    others = len(names) - len(tally.files)
    other_count, other_bytes = data.other_files
    if tally.other_files.urls or other_count:
        label = f"{OTHERS}: {max(other_count, others):,} more files"
        rows.append(_file_row(label, ("", other_bytes), tally.other_files, findings))
    intro = (
        '<p class="intro">Each file read: an index and each of its child sitemaps, or each input. Size: the bytes '
        "read, decompressed. URLs: those read from it (a child two indexes name is read, and counted, twice). "
        "Problems: the validation findings of the file (an index's own include those about its children it could "
        "not read).</p>\n"
    )
    header = ("file", "kind", "URLs", "images", "size", "lastmod from", "lastmod to", "errors", "warnings", "notes")
    return _section("files", "Files", intro, _table("Files read", header, rows, frozenset({2, 3, 4, 7, 8, 9})))


def _file_row(
    name: str, facts: tuple[str, int] | None, counted: FileTally | None, findings: FindingsByCode
) -> list[str]:
    kind, size = facts if facts is not None else ("", -1)
    counted = counted or FileTally()
    errors, warnings, notes = findings.of_file(name)
    return [
        f'<code class="url">{text(name)}</code>',
        text(kind),
        _number(counted.urls),
        _number(counted.images),
        _size(size) if size >= 0 else "-",
        f"<time>{text(counted.earliest)}</time>" if counted.earliest is not None else "-",
        f"<time>{text(counted.latest)}</time>" if counted.latest is not None else "-",
        _level_count(errors, Level.ERROR),
        _level_count(warnings, Level.WARNING),
        _level_count(notes, Level.INFO),
    ]


def _level_count(count: int, level: Level) -> str:
    return f'<span class="{level}">{count:,}</span>' if count else "0"


def _lastmod(tally: Tally) -> str:
    months = sorted(tally.months.items())
    years: dict[str, int] = {}
    for month, count in months:
        years[month[:4]] = years.get(month[:4], 0) + count
    shown = list(years.items())
    if len(shown) > YEARS_LISTED:  # the latest years listed, the earlier ones summed
        earlier = sum(count for _year, count in shown[:-YEARS_LISTED])
        shown = [(f"before {shown[-YEARS_LISTED][0]}", earlier), *shown[-YEARS_LISTED:]]
    chart = _months_chart(months, years)
    undated = tally.urls - tally.dated
    ages = [(f"the last {days} days", tally.ages[str(days)]) for days in AGES]
    if tally.ages["future"]:
        ages.append(("after the report's instant (in the future)", tally.ages["future"]))
    ages.append(("no lastmod", undated))
    intro = (
        '<p class="intro">Months and years of the lastmod, in UTC; each date counts in the month it starts in.</p>\n'
    )
    return _section(
        "lastmod",
        "Lastmod",
        intro,
        chart,
        '<div class="pair">',
        _counts_table("URLs by year of lastmod", "year", shown, tally.urls),
        _counts_table("URLs changed in", "changed in", ages, tally.urls),
        "</div>\n",
    )


def _months_chart(months: list[tuple[str, int]], years: dict[str, int]) -> str:
    if not months:
        return ""
    first, last = months[0][0], months[-1][0]
    every = _month_range(first, last)
    if len(every) > MONTHS_CHARTED:
        labels = _year_range(first[:4], last[:4])
        if len(labels) > MONTHS_CHARTED:
            return ""  # centuries of dates (a hostile input's): the table says them
        ticks = _ticks(labels, lambda at, year: True)
        values = [years.get(year, 0) for year in labels]
        return _figure("years", "URLs by year of lastmod", labels, values, ticks=ticks, wide=True)
    counts = dict(months)
    if len(every) <= 18:  # a year and a half: each month labelled
        ticks = list(enumerate(every))
    else:
        ticks = _ticks(every, lambda at, month: month.endswith("-01") or at == 0)
    values = [counts.get(month, 0) for month in every]
    return _figure("months", "URLs by month of lastmod", every, values, ticks=ticks, wide=True)


def _ticks(labels: Sequence[str], marked: Callable[[int, str], bool]) -> list[tuple[int, str]]:
    """At most about a dozen labelled bars (each a year: its first month, or itself) of those ``marked``."""
    ticks = [(at, label[:4]) for at, label in enumerate(labels) if marked(at, label)]
    return ticks[:: max(1, len(ticks) // 12)]


def _month_range(first: str, last: str) -> list[str]:
    year, month = int(first[:4]), int(first[5:7])
    end = (int(last[:4]), int(last[5:7]))
    every = []
    while (year, month) <= end:
        every.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return every


def _year_range(first: str, last: str) -> list[str]:
    return [f"{year:04d}" for year in range(int(first), int(last) + 1)]


def _places(tally: Tally) -> str:
    return _section(
        "places",
        "Hosts and sections",
        _capped_intro("hosts and top path sections"),
        '<div class="pair">',
        _counts_table("URLs per host", "host", tally.hosts.top(ROWS), tally.urls, code=True),
        _counts_table("URLs per top path section", "section", tally.sections.top(ROWS), tally.urls, code=True),
        "</div>\n",
    )


def _capped_intro(what: str) -> str:
    return (
        f'<p class="intro">The {ROWS} largest of the {what}; the rest are summed under {OTHERS} (and so are the '
        "URLs of the names met after the first 1,000 of each, which are not told apart).</p>\n"
    )


def _ordered(counts: dict[str, int], order: Sequence[str]) -> list[tuple[str, int]]:
    return [(name, counts.get(name, 0)) for name in order if counts.get(name, 0) or name != "out of range"]


def _fields(tally: Tally) -> str:
    changefreqs = _ordered(tally.changefreqs, _CHANGEFREQS)
    priorities = _ordered(tally.priorities, _PRIORITIES)
    return _section(
        "fields",
        "Changefreq and priority",
        '<p class="intro">Priority rounded to the tenth; "none": not given (which is not 0.5).</p>\n',
        '<div class="pair"><div>',
        _figure("changefreq", "URLs by changefreq", *_columns(changefreqs)),
        _counts_table("URLs by changefreq", "changefreq", changefreqs, tally.urls),
        "</div><div>",
        _figure("priority", "URLs by priority", *_columns(priorities)),
        _counts_table("URLs by priority", "priority", priorities, tally.urls),
        "</div></div>\n",
    )


def _columns(rows: Sequence[tuple[str, int]]) -> tuple[list[str], list[int]]:
    return [name for name, _count in rows], [count for _name, count in rows]


def _duplicates(tally: Tally) -> str:
    intro = (
        f'<p class="intro">{tally.repeated:,} of the {tally.urls:,} URLs repeat a URL listed before them '
        f"({tally.distinct:,} distinct; an IRI and its URI are one URL).</p>\n"
    )
    rows = [
        (
            f'<code class="url">{text(repeat.loc)}</code>',
            _where(*repeat.first),
            _where(*repeat.again),
        )
        for repeat in tally.repeats
    ]
    examples = _table(
        f"The first {len(rows)} repeats", ("URL", "first listed at", "listed again at"), rows, frozenset()
    )
    return _section("duplicates", "Duplicates", intro, examples if rows else "")


def _where(source: str, line: int) -> str:
    return f'<code class="url">{text(source)}{f":{line}" if line else ""}</code>'


def _validation_intro(data: PageData) -> str:
    if not data.validated:
        return '<p class="intro">Not validated (the report was asked not to).</p>\n'
    return (
        '<p class="intro">What <code>feedmap validate</code> finds in the files as written (nothing repaired), by '
        "code, with the first examples. <code>feedmap codes CODE</code> explains a code.</p>\n"
    )


_READING_INTRO = (
    '<p class="intro">What reading repaired, skipped or could not read while counting the URLs above (the same '
    "codes as validation's).</p>\n"
)


def _findings(anchor: str, title: str, findings: FindingsByCode, intro: str) -> str:
    rows = [_finding_row(code, found) for code, found in findings.ranked()]
    table = _table(title, ("code", "level", "count", "first examples"), rows, frozenset({2}))
    return _section(anchor, title, intro, table)


def _finding_row(code: str, found: CodeFindings) -> tuple[str, str, str, str]:
    examples = "".join(f"<li>{_example(example)}</li>" for example in found.examples)
    more = found.count - len(found.examples)
    tail = f"<li>and {more:,} more</li>" if more > 0 else ""
    return (
        f"<code>{text(code)}</code>",
        f'<span class="{found.level}">{found.level}</span>',
        _number(found.count),
        f'<ul class="examples">{examples}{tail}</ul>',
    )


def _example(finding: Diagnostic) -> str:
    where = finding.source or "feedmap"
    if finding.line:
        where += f":{finding.line}" + (f":{finding.column}" if finding.column else "")
    message = finding.message
    if len(message) > MESSAGE_CHARACTERS:
        message = f"{message[:MESSAGE_CHARACTERS]}... ({len(message):,} characters)"
    return f'<code class="url">{text(where)}</code>: {text(message)}'


def _hreflang(tally: Tally) -> str:
    share = _share(tally.with_alternates, tally.urls)
    intro = (
        f'<p class="intro">{tally.with_alternates:,} of the {tally.urls:,} URLs ({share}) '
        f"name hreflang alternates, {tally.alternates:,} in all.</p>\n"
    )
    languages = _counts_table(
        "Alternates by hreflang", "hreflang", _language_rows(tally.languages), tally.alternates, code=True
    )
    return _section("hreflang", "Hreflang", intro, languages if tally.alternates else "")


def _language_rows(languages: Capped) -> list[tuple[str, int]]:
    return languages.top(ROWS)


def _images(tally: Tally) -> str:
    rows = [(label, tally.images_per_url[label]) for label, _low, _high in IMAGE_BUCKETS]
    while len(rows) > 2 and not rows[-1][1]:
        rows.pop()
    intro = f'<p class="intro">{tally.images:,} images on {tally.urls:,} URLs.</p>\n'
    return _section(
        "images",
        "Images",
        intro,
        _figure("images", "URLs by images per URL", *_columns(rows)),
        _counts_table("URLs by images per URL", "images per URL", rows, tally.urls),
    )
