"""What every subcommand shares: printing diagnostics and the values read from inputs, parsing sizes and
``--map``, progress on stderr.

Diagnostics are printed as ``file:line: level[code]: message`` (the GNU error-message convention),
at most :data:`PER_CODE` of one code, then a count of what was not shown.

Nothing printed of a value read from an input is something a terminal would act on.  Unicode character
categories (https://www.unicode.org/reports/tr44/, ``Cc`` controls and ``Cf`` format characters such as the
bidirectional overrides of https://www.unicode.org/reports/tr9/) decide what is escaped: a hostile input's
ESC sequences, a CR that rewrites the line, or U+202E must not drive the terminal or reorder the line.  Every
command prints outside text (source names, URLs, messages quoting an input) through one of these helpers:
:func:`printable` for messages (Python escapes), :func:`shown_url` for a URL printed to be used
(percent-encoded, RFC 3986 §2.1: the same URI), :func:`json_text` for JSON (``\\u`` escapes, RFC 8259 §7:
the same string once parsed).
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol, TextIO, TypeVar

from feedmap._core.context import (
    DEADLINE_FACTOR,
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_USER_AGENT,
    MAX_CONCURRENCY,
    FollowPredicate,
    HttpSettings,
    Options,
)
from feedmap._core.dates import W3CDate, parse_lenient
from feedmap._core.errors import Diagnostic, FormatError, Level
from feedmap._core.http_settings import MAX_RETRIES
from feedmap._core.option_values import MAX_SECONDS
from feedmap._core.options import MAX_JOBS
from feedmap._io.sources import DEFAULT_MAX_BYTES
from feedmap.cli._advice import with_advice
from feedmap.cli._option_types import (
    concurrency_count,
    header_text,
    job_count,
    non_negative_int,
    parse_size,
    pause_seconds,
    positive_int,
    retry_count,
    scheduler_text,
    wait_seconds,
    web_url,
    xml_text,
)
from feedmap.converters._filters import check_bounds, within

__all__ = ["json_text", "printable", "printable_lines", "shown_url", "unshowable"]


@functools.cache
def unshowable() -> re.Pattern[str]:
    """Characters a terminal acts on or that reorder a line: C0 and C1 controls, DEL, and the invisible format
    characters (bidirectional overrides, zero-width characters: Unicode category Cf).  Built at first use
    (a scan of every code point, 0.1 s) so that commands printing none do not pay for it."""
    formats = "".join(chr(code) for code in range(0xA0, 0x110000) if unicodedata.category(chr(code)) == "Cf")
    return re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{formats}]")


def _plain(text: str) -> bool:
    return text.isascii() and text.isprintable()


def printable(text: str) -> str:
    """``text`` with what :func:`unshowable` matches written as a Python escape (``\\x1b``, ``\\u202e``), for a
    line printed to a terminal: a value read from a hostile input cannot drive the terminal or reorder the line."""
    if _plain(text):
        return text
    return unshowable().sub(lambda found: repr(found.group())[1:-1], text)


def printable_lines(text: str) -> str:
    """:func:`printable` for text of several lines of our own (a usage message): its line breaks kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


def shown_url(url: str) -> str:
    """``url`` with what :func:`unshowable` matches percent-encoded (RFC 3986 §2.1, its UTF-8 bytes), as a URI
    would write it; other characters, readable non-ASCII included, as read."""
    if _plain(url):
        return url
    return unshowable().sub(lambda found: "".join(f"%{byte:02X}" for byte in found.group().encode("utf-8")), url)


def _json_escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # RFC 8259 §7: a character outside the BMP as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


_LINE_BREAKS = re.compile("[\u2028\u2029]")


def json_text(value: Any) -> str:
    """``value`` as one line of JSON, UTF-8 readable, with the characters :func:`unshowable` matches and the
    Unicode line breaks (U+2028, U+2029) written as ``\\u`` escapes: parsed, it is the same value."""
    import json  # the commands that print JSON load it

    text = json.dumps(value, ensure_ascii=False)
    if _plain(text):
        return text
    return _LINE_BREAKS.sub(_json_escape, unshowable().sub(_json_escape, text))


__all__ = [
    "DiagnosticPrinter",
    "OptionGroup",
    "Progress",
    "add_http_options",
    "add_map_option",
    "add_reading_options",
    "add_since_option",
    "follow_since",
    "http_settings",
    "non_negative_int",
    "parse_date",
    "parse_map",
    "parse_size",
    "positive_int",
    "reading_options",
    "web_url",
    "xml_text",
]

PER_CODE = 20
#: The unit of a progress line when one item was done ("1 entry", not "1 entries").
_SINGULAR = {"entries": "entry", "pages": "page"}
T = TypeVar("T")


class DiagnosticPrinter:
    """Prints diagnostics as they arrive, escaped (:func:`printable`); repeated codes are cut short and counted."""

    def __init__(self, stream: TextIO | None = None, *, quiet: bool = False, per_code: int = PER_CODE) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.per_code = per_code
        self.shown: Counter[str] = Counter()
        self.hidden: Counter[str] = Counter()
        self.levels: Counter[Level] = Counter()

    def __call__(self, diagnostic: Diagnostic) -> None:
        self.levels[diagnostic.level] += 1
        if self.quiet and diagnostic.level < Level.WARNING:
            return
        if self.shown[diagnostic.code] >= self.per_code:
            self.hidden[diagnostic.code] += 1
            return
        self.shown[diagnostic.code] += 1
        print(printable(with_advice(diagnostic)), file=self.stream)

    def finish(self) -> None:
        if self.hidden:
            listed = ", ".join(f"{count} {code}" for code, count in self.hidden.most_common())
            print(f"feedmap: not shown: {listed} (the first {self.per_code} of each were)", file=self.stream)


def parse_map(text: str) -> tuple[str, Path]:
    """``PREFIX=DIR`` -> (prefix, directory); the directory must exist."""
    prefix, sep, directory = text.partition("=")
    if not sep or not prefix or not directory:
        raise argparse.ArgumentTypeError(
            f"{text!r}: write --map URL_PREFIX=DIRECTORY, e.g. --map https://example.com/=public/"
        )
    path = Path(directory)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"--map {text}: {directory} is not a directory")
    return prefix, path


class Progress:
    """A progress line on stderr when it is a terminal: items done (of the total when known), rate, failures.

    ``wrap`` counts the items flowing through it and redraws at most twice a second, looking at the clock
    every ``every`` items (a power of two: 1 when items are slow, like fetched pages; 1024 when they come by
    the million).  Call :meth:`clear` before printing anything else to the same stream (the line is drawn
    again at the next update), :meth:`failure` to count a failed item, :meth:`close` at the end.
    """

    def __init__(
        self,
        label: str,
        *,
        enabled: bool,
        stream: TextIO | None = None,
        unit: str = "entries",
        total: int | None = None,
        every: int = 1024,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.label = label
        self.unit = unit
        self.total = total
        self.count = 0
        self.failures = 0
        self.started = time.monotonic()
        self._mask = max(1, every) - 1
        self._last = 0.0
        self._shown = False

    def wrap(self, items: Iterable[T]) -> Iterator[T]:
        """``items`` counted as they flow (themselves when the line is off: no layer per item)."""
        if not self.enabled:
            return iter(items)
        return self._counted(items)

    def _counted(self, items: Iterable[T]) -> Iterator[T]:
        mask = self._mask
        for item in items:
            self.count += 1
            if self.count & mask == 0:
                now = time.monotonic()
                if now - self._last >= 0.5:
                    self._last = now
                    self._draw(now)
            yield item
        self.close()

    def line(self, now: float | None = None) -> str:
        """The text of the progress line: ``label: [bar] done/total unit (rate/s), N failed``."""
        elapsed = max((now if now is not None else time.monotonic()) - self.started, 1e-9)
        rate = self.count / elapsed
        rate_text = f"{rate:,.1f}/s" if rate < 100 else f"{rate:,.0f}/s"
        if self.total:
            filled = min(20, 20 * self.count // self.total)
            done = f"[{'#' * filled}{'.' * (20 - filled)}] {self.count:,}/{self.total:,} {self.unit}"
        else:
            done = f"{self.count:,} {_SINGULAR.get(self.unit, self.unit) if self.count == 1 else self.unit}"
        failed = f", {self.failures:,} failed" if self.failures else ""
        return f"{self.label}: {done} ({rate_text}){failed}"

    def _draw(self, now: float) -> None:
        self.stream.write("\r\x1b[K" + self.line(now))
        self.stream.flush()
        self._shown = True

    def failure(self) -> None:
        """Count one failed item (shown as "N failed")."""
        self.failures += 1

    def clear(self) -> None:
        """Erase the line, so that something else can be printed; it comes back at the next update."""
        if self.enabled and self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
            self._last = 0.0

    def close(self) -> None:
        self.clear()


class OptionGroup(Protocol):
    """Where options are added: a parser or one of its argument groups (``add_argument_group``)."""

    def add_argument(self, *name_or_flags: str, **kwargs: Any) -> argparse.Action: ...


def add_reading_options(
    parser: argparse.ArgumentParser,
    *,
    no_follow_help: str,
    inputs: str | None = "+",
    since: bool = True,
    helps: Mapping[str, str] | None = None,
    group: OptionGroup | None = None,
) -> OptionGroup:
    """The "input" argument group (or ``group``, a command's own, its inputs already in it): INPUT (``inputs``
    its nargs; None: no INPUT), -f, --strict, --max-bytes, --no-follow,
    --map, --since (unless ``since`` is False: a command showing it among its selection options adds it there
    with :func:`add_since_option`)...: what every reading command takes.  ``helps`` gives the help of an option
    (by its dest) that means something else, or nothing (``argparse.SUPPRESS``), in this command.  Returns the
    group, for the command's own input options."""
    helps = helps or {}
    group = group or parser.add_argument_group("input")

    def add(*flags: str, dest: str, **kwargs: Any) -> None:
        group.add_argument(*flags, dest=dest, **{**kwargs, "help": helps.get(dest, kwargs["help"])})

    if inputs is not None:
        group.add_argument(
            "inputs", nargs=inputs, metavar="INPUT", help="a file path, an http(s) URL, or - for standard input"
        )
    add("-f", "--from", dest="source_format", metavar="FMT", help="input format (default: recognised from content)")
    add(
        "--strict",
        dest="strict",
        action="store_true",
        help="treat any warning as an error: exit 1 at the first problem",
    )
    add(
        "--max-bytes",
        dest="max_bytes",
        type=parse_size,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help="largest (decompressed) input to read, e.g. 200M or 2G (default: 100M): gzip input, fetched bodies, "
        "standard input, FIFOs; a local regular file that is not compressed is read whole",
    )
    add(
        "--max-line-bytes",
        dest="max_line_bytes",
        type=parse_size,
        default=DEFAULT_MAX_LINE_BYTES,
        metavar="N",
        help="longest line of JSON lines or a text sitemap; a longer one is skipped (default: 1M)",
    )
    add("--no-follow", dest="no_follow", action="store_true", help=no_follow_help)
    add(
        "--base-url",
        dest="base_url",
        type=web_url,
        metavar="URL",
        help="resolve relative URLs of a local input against URL (a fetched input's own URL comes first, "
        "a feed's channel link after)",
    )
    add_map_option(group, "e.g. index children or pages from a static-site build directory")
    add(
        "--max-depth",
        dest="max_depth",
        type=positive_int,
        default=DEFAULT_MAX_DEPTH,
        metavar="N",
        help=f"for a sitemap index: follow nested indexes at most N deep (default: {DEFAULT_MAX_DEPTH})",
    )
    add(
        "--jobs",
        dest="jobs",
        type=job_count,
        default=1,
        metavar="N",
        help=f"for a sitemap index: read its children in N worker processes, 0 for one per core, at most "
        f"{MAX_JOBS} (default: 1, no workers); the output is the same whatever N",
    )
    add(
        "--dask",
        dest="dask",
        type=scheduler_text,
        metavar="SCHEDULER",
        help="for a sitemap index: read its children on a Dask cluster instead: local:N starts N worker "
        "processes here (on 127.0.0.1), tcp://HOST:PORT uses a running scheduler whose workers see this "
        "machine's files; needs pip install 'feedmap[dask]'; the output is the same as without it",
    )
    if since:
        add_since_option(group, help=helps.get("since"))
    return group


def add_since_option(group: OptionGroup, *, help: str | None = None) -> None:
    """``--since DATE``: a reading option (an index's older children are skipped), into ``args.since``."""
    group.add_argument(
        "--since",
        type=parse_date,
        metavar="DATE",
        help=help
        or "for a sitemap index: skip children whose lastmod is older than DATE (e.g. 2024-06-01); "
        "children without a lastmod are read (convert also keeps only the entries changed since DATE)",
    )


def add_map_option(parser: OptionGroup, example: str) -> None:
    """``--map PREFIX=DIR``, repeatable, into ``args.maps``."""
    parser.add_argument(
        "--map",
        dest="maps",
        action="append",
        type=parse_map,
        default=[],
        metavar="PREFIX=DIR",
        help=f"read URLs starting with PREFIX from the directory DIR instead of the network (repeatable), {example}",
    )


def add_http_options(parser: argparse.ArgumentParser) -> None:
    """How URLs are fetched, the "HTTP" argument group: the options of every command that may read over HTTP."""
    web = parser.add_argument_group("HTTP")
    web.add_argument(
        "--concurrency",
        type=concurrency_count,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"requests in flight at once, 1 to {MAX_CONCURRENCY:,} (default: {DEFAULT_CONCURRENCY})",
    )
    web.add_argument(
        "--timeout",
        type=wait_seconds,
        default=30.0,
        metavar="SECONDS",
        help=f"longest wait for a connection or for the next bytes of a response, more than 0 and at most "
        f"{MAX_SECONDS:,g} (default: 30)",
    )
    web.add_argument(
        "--deadline",
        type=wait_seconds,
        default=None,
        metavar="SECONDS",
        help=f"longest one request may take in all: connection, redirects, headers, body and retries, at most "
        f"{MAX_SECONDS:,g} (default: {DEADLINE_FACTOR} times --timeout)",
    )
    web.add_argument(
        "--retries",
        type=retry_count,
        default=3,
        metavar="N",
        help=f"retries after 429 and 5xx answers (honouring Retry-After) and failed connections, 0 to {MAX_RETRIES} "
        "(default: 3)",
    )
    web.add_argument(
        "--delay",
        type=pause_seconds,
        default=0.0,
        metavar="SECONDS",
        help=f"pause between two requests to the same host, to be polite, at most {MAX_SECONDS:,g} (default: 0)",
    )
    web.add_argument(
        "--user-agent",
        type=header_text,
        default=DEFAULT_USER_AGENT,
        metavar="TEXT",
        help=f"User-Agent header, visible ASCII characters and spaces (default: {DEFAULT_USER_AGENT})",
    )
    web.add_argument(
        "--cache",
        type=cache_directory,
        metavar="DIR",
        help="keep responses with their ETag/Last-Modified in DIR and revalidate them next time (conditional GET), "
        "each under the URL that answered it; Cache-Control: no-store responses are not kept",
    )


def http_settings(args: argparse.Namespace) -> HttpSettings:
    """The HttpSettings the options of :func:`add_http_options` ask for."""
    return HttpSettings(
        user_agent=args.user_agent,
        connect_timeout=min(10.0, args.timeout),
        read_timeout=args.timeout,
        deadline=args.deadline,
        retries=args.retries,
        host_delay=args.delay,
        cache_dir=args.cache,
    )


def follow_since(since: W3CDate) -> FollowPredicate:
    """A follow predicate for ``--since``: children with no lastmod, or one at or after ``since`` (each date
    a period as long as its precision: a child of ``2024-06`` is read for ``--since 2024-06-15``)."""

    def follow(loc: str, lastmod: W3CDate | None) -> bool:
        return lastmod is None or within(lastmod, since, None)

    return follow


def cache_directory(text: str) -> Path:
    """``--cache DIR``: a directory, made when missing (an empty text is none: not the current directory)."""
    if not text:
        raise argparse.ArgumentTypeError("give a directory for the cache (it is empty)")
    path = Path(text)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        what = "a link to nothing" if path.is_symlink() and not path.exists() else "a file"
        raise argparse.ArgumentTypeError(f"{text} is {what}, not a directory; give a directory for the cache") from None
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot make the cache directory {text} ({exc.strerror or exc})") from None
    return path


def parse_date(text: str) -> W3CDate:
    value, _problem = parse_lenient(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date; write it as YYYY-MM-DD or a W3C datetime")
    return value


def reading_options(args: argparse.Namespace, **more: Any) -> Options:
    """Options from :func:`add_reading_options`' flags (plus ``more``, a command's own)."""
    try:
        check_bounds(args.since, more.get("until"))
    except ValueError:
        raise FormatError(
            f"--since {args.since} is after --until {more['until']}: give the earlier date to --since"
        ) from None
    if args.dask is not None and args.jobs != 1:
        raise FormatError(
            f"--jobs {args.jobs} and --dask {args.dask}: give one of them (the cluster reads the children)"
        )
    return Options(
        strict=args.strict,
        max_bytes=args.max_bytes,
        max_line_bytes=args.max_line_bytes,
        follow=not args.no_follow,
        follow_child=follow_since(args.since) if args.since is not None else None,
        max_depth=args.max_depth,
        maps=tuple(args.maps),
        concurrency=args.concurrency,
        jobs=args.jobs,
        dask=args.dask,
        http=http_settings(args),
        base_url=args.base_url,
        **more,
    )
