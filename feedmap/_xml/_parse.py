"""Streaming the wanted elements of an XML input with a hardened ``iterparse``, memory kept flat.

Safety (OWASP XXE cheat sheet, lxml FAQ "how do I protect against XML attacks"): the parser never loads
a DTD, never resolves entities and never touches the network, so XXE and "billion laughs" are inert; the
input passes :class:`~feedmap._xml._cleaning.CleaningStream` first.  A document that breaks off (XML 1.0
well-formedness, https://www.w3.org/TR/xml/) keeps the entries before the break (``xml-not-well-formed``) and
the entry cut by it with its complete fields (``truncated-entry``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any, BinaryIO, Literal, Protocol

from lxml import etree

from feedmap._core.errors import Reporter
from feedmap._io.sources import PeekableStream
from feedmap._xml._cleaning import TEXT_LIMIT, ByteChecks, CleaningStream
from feedmap._xml._names import line_of, local_name

__all__ = ["Elements", "ParseState", "PullParse", "iter_elements", "make_iterparse", "parser_limit"]


def parser_limit(message: str) -> str | None:
    """libxml2's message for a limit it keeps without ``XML_PARSE_HUGE`` (lxml's ``huge_tree``, off here as
    it guards memory) in feedmap's words; None for another message."""
    if "XML_PARSE_HUGE" not in message and "Resource limit" not in message and "huge" not in message.lower():
        return None
    lowered = message.lower()
    if "depth" in lowered:
        return "elements nested more than 256 levels deep: past the XML parser's limit (a guard on memory)"
    if "text" in lowered:
        return f"a text past {TEXT_LIMIT}"
    return f"a name, attribute value or text longer than the XML parser allows (a guard on memory): {message}"


#: The events a parse can give.
ParseEvent = Literal["start", "end", "start-ns", "end-ns"]
#: Bytes read from the input per feed of the parser (lxml's own ``iterparse`` reads 32 KiB at a time).
CHUNK = 32768


class PullParse:
    """lxml's ``iterparse`` interface (iterate for the events, then :attr:`root`; :attr:`error_log`) over an
    ``XMLPullParser`` fed ``CHUNK`` bytes at a time, with one difference that matters here: when the input breaks
    off, the events parsed before the break are yielded first, then the break is raised, and nothing that lxml
    makes up at the break is yielded.  lxml's ``iterparse`` did so up to 6.1.  From 6.2 it drops the events of
    the chunk the break is in, and with them the entries before a break that feedmap keeps
    (``xml-not-well-formed``: "the entries before it are kept"); and an input cut off at its end has its open
    elements closed by ``close()`` with "end" events, which would make a ``<url>`` cut inside its ``<loc>``
    look whole, its URL cut short.  Those events are never read here: the break is raised first."""

    def __init__(self, source: CleaningStream | BinaryIO, parser: etree.XMLPullParser) -> None:
        self._source = source
        self._parser = parser
        #: The document's root once the input was read to its end without a break (as ``iterparse.root``).
        self.root: etree._Element | None = None

    @property
    def error_log(self) -> etree._ListErrorLog:
        """The errors of this parse (as ``iterparse.error_log``)."""
        log: etree._ListErrorLog = self._parser.feed_error_log
        return log

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        # the events of each chunk read by itertools' C loop: Python runs once a chunk, not once an event
        return itertools.chain.from_iterable(self._chunks())

    def _chunks(self) -> Iterator[Iterator[tuple[str, Any]]]:
        """After each chunk fed, the parser's events (one iterator, drained before the next chunk is fed)."""
        parser, read = self._parser, self._source.read
        events = parser.read_events()
        while True:
            data = read(CHUNK)
            if not data:
                self.root = parser.close()  # a break here: what lxml 6.2 then gives are the open elements closed
                yield events
                return
            try:
                parser.feed(data)
            except etree.XMLSyntaxError:
                yield events  # what was parsed before the break, then the break
                raise
            yield events


def make_iterparse(
    source: CleaningStream | BinaryIO,
    tags: list[str] | str,
    events: tuple[ParseEvent, ...] = ("end",),
    encoding: str | None = None,
) -> PullParse:
    """An ``iterparse`` (:class:`PullParse`) that cannot be abused: no DTD, no entities, no network, no huge trees.

    ``encoding`` overrides the one the document declares."""
    parser = etree.XMLPullParser(
        events=events,
        tag=tags,
        encoding=encoding,
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    return PullParse(source, parser)


class ParseState(Protocol):
    """What a loop over an :class:`Elements`' events keeps between elements (see :func:`iter_elements`)."""

    #: The wanted element yielded last (None before the first).
    previous: etree._Element | None
    #: The wanted element begun last: the one a break cuts, if it did not end.
    started: etree._Element | None
    #: The last parent found to be the root, or no wanted element and inside none: its other children need no
    #: walk up (an RSS <channel>, whose every <item> took one).  Its ancestors never change, so this stays
    #: true, and the proxy held keeps its node alive: `is` is identity (lxml keeps one proxy per live node).
    clear_parent: etree._Element | None


class _State:
    __slots__ = ("clear_parent", "previous", "started")

    def __init__(self) -> None:
        self.previous: etree._Element | None = None
        self.started: etree._Element | None = None
        self.clear_parent: etree._Element | None = None


class Elements:
    """One hardened parse of an input: its ``("start", "end")`` events (:attr:`events`, filtered to the wanted
    ``tags``) and the steps of :func:`iter_elements` around each wanted element, for a loop that keeps its
    :class:`ParseState` itself (the sitemap reader's loop, :mod:`feedmap.formats.sitemap._walk`)."""

    def __init__(
        self,
        stream: PeekableStream,
        tags: list[str],
        *,
        reporter: Reporter,
        name: str,
        report_unknown: bool = True,
        starts_entry: str | None = None,
        checks: ByteChecks | None = None,
    ) -> None:
        self.cleaner = CleaningStream(stream, reporter=reporter, name=name, checks=checks)
        self.context = make_iterparse(self.cleaner, tags, ("start", "end"))
        self.events: Iterator[tuple[str, etree._Element]] = iter(self.context)
        self.tags = tags
        self._wanted = frozenset(tags)
        self._reporter = reporter
        self._name = name
        self._report_unknown = report_unknown
        self._starts_entry = starts_entry

    def accept(self, state: ParseState, element: etree._Element, parent: etree._Element | None) -> bool:
        """Whether the ended wanted ``element`` (under ``parent``) is one to yield: not inside another."""
        if parent is not state.clear_parent and parent is not None:
            if _inside_wanted(element, parent, self.tags):
                return False  # inside a wanted element (an extension's own <url>): part of that one, kept whole
            state.clear_parent = parent
        return True

    def release(self, state: ParseState, element: etree._Element, parent: etree._Element | None) -> None:
        """Free a yielded ``element`` once the caller is done with it, and the siblings before it (reporting the
        unexpected ones), so memory stays flat."""
        element.clear()  # keep_tail=False: its tail goes too
        if parent is not None:
            previous = state.previous
            while element.getprevious() is not None:
                first = parent[0]
                if first is not previous:  # lxml keeps one proxy per live node: `is` holds
                    self._check_unexpected(first)
                del parent[0]
        state.previous = element

    def check_rest(self) -> None:
        """Report what is left after the last wanted element (at the end of a parse that did not break)."""
        for child in _children(self.context.root):
            self._check_unexpected(child)

    def broken(self, state: ParseState, exc: Exception) -> list[etree._Element]:
        """Report the break ``exc`` of the parse; the pieces of the wanted element it cut, to yield."""
        cleaner = self.cleaner
        cleaner.finish()
        broke = _report_break(exc, self.context.error_log, self._reporter, self._name, cleaner.line_offset)
        if broke is None:  # only namespace errors: lxml read to the end, every element was yielded
            return []
        line, message = broke
        started = state.started
        partial = _partial(started if started is not state.previous else None, message)
        if partial is None:
            return []
        self._reporter.warning(
            "truncated-entry",
            f"the <{local_name(partial.tag)}> cut off by the break is kept with the fields that were complete",
            self._name,
            line_of(partial) + cleaner.line_offset or line,
        )
        return _pieces(partial, self._starts_entry)

    def _check_unexpected(self, node: etree._Element) -> None:
        if self._report_unknown and isinstance(node.tag, str) and node.tag not in self._wanted:
            self._reporter.warning(
                "unknown-element",
                f"<{local_name(node.tag)}> does not belong here; ignored",
                self._name,
                line_of(node) + self.cleaner.line_offset,
            )


def iter_elements(
    stream: PeekableStream,
    tags: list[str],
    *,
    reporter: Reporter,
    name: str,
    report_unknown: bool = True,
    starts_entry: str | None = None,
) -> Iterator[tuple[etree._Element, int]]:
    """Yield each completed element with one of ``tags`` (Clark names) and the line offset to add to
    lxml's ``sourceline`` to get the line in the input (blank lines removed before ``<?xml``).

    Each element is cleared after the caller is done with it, so memory stays flat.  A document that
    breaks off (truncated, or malformed beyond repair) yields what came before and reports a warning
    (``xml-not-well-formed``); the wanted element it broke off in is yielded too, with the children that were
    complete (``truncated-entry``), as usp, scrapy and crawler-commons keep such an entry.
    With ``report_unknown``, other elements beside the wanted ones (they are expected directly under the
    root, as in a urlset) are reported as ``unknown-element``; formats whose wanted elements sit deeper
    (RSS items inside ``<channel>``, next to the channel's own elements) turn it off.
    ``starts_entry``: the Clark tag of the child that begins an entry (a sitemap's ``<loc>``): an element the
    break cut holding several is yielded as one element per such child (an unclosed ``<sitemap>`` followed
    by the index's other ``<loc>`` lines gives each child, as crawler-commons recovers them).
    """
    elements = Elements(
        stream, tags, reporter=reporter, name=name, report_unknown=report_unknown, starts_entry=starts_entry
    )
    state = _State()
    cleaner = elements.cleaner
    try:
        for event, element in elements.events:
            if event == "start":
                state.started = element
                continue
            parent = element.getparent()
            if not elements.accept(state, element, parent):
                continue
            yield element, cleaner.line_offset
            elements.release(state, element, parent)
        elements.check_rest()
    except (etree.XMLSyntaxError, UnicodeDecodeError) as exc:
        for piece in elements.broken(state, exc):
            yield piece, cleaner.line_offset
    finally:
        cleaner.finish()


def _children(root: etree._Element | None) -> list[etree._Element]:
    return [] if root is None else list(root)


def _inside_wanted(element: etree._Element, parent: etree._Element, tags: list[str]) -> bool:
    """Whether ``element`` (whose parent is ``parent``) lies deeper than the root's children, inside an element
    with one of ``tags``."""
    return parent.getparent() is not None and next(element.iterancestors(*tags), None) is not None


def _report_break(
    exc: Exception, log: etree._ListErrorLog, reporter: Reporter, name: str, offset: int
) -> tuple[int, str] | None:
    """Report where the XML breaks off; returns its line and lxml's message, or None when it did not break.

    An undeclared prefix is a namespace error, not a fatal one: lxml reads on and raises at the end with that
    first error as its message, so this parse's log (``log``: the exception's own log also holds earlier
    parses' errors) is searched for the fatal error (the break) and the namespace error is reported as what
    it is.
    """
    if not isinstance(exc, etree.XMLSyntaxError):
        return _break_at(reporter, name, 0, f"text that cannot be decoded: {exc}")
    fatal = namespace = None
    for entry in log:
        if entry.level == etree.ErrorLevels.FATAL and fatal is None:
            fatal = entry
        elif entry.domain == etree.ErrorDomains.NAMESPACE and entry.level == etree.ErrorLevels.ERROR:
            namespace = namespace or entry
    if namespace is not None:
        reporter.warning(
            "xml-not-well-formed",
            f"{namespace.message.strip()} (line {namespace.line}, column {namespace.column}); read on, "
            "the element taken as one without a namespace",
            name,
            namespace.line + offset,
        )
        if fatal is None:
            return None
    if fatal is not None:
        message = f"{fatal.message.strip()}, line {fatal.line}, column {fatal.column}"
        limit = parser_limit(fatal.message)
        if limit is not None:  # not malformed: a limit hit, and the input is invalid for feedmap (an error)
            line = fatal.line + offset if fatal.line else 0
            reporter.error("xml-limit", f"{limit}; the entries before it are kept, nothing after it", name, line)
            return line, message
        return _break_at(reporter, name, fatal.line + offset if fatal.line else 0, message)
    line = (exc.lineno or 0) + offset if exc.lineno else 0
    return _break_at(reporter, name, line, exc.msg if hasattr(exc, "msg") and exc.msg else str(exc))


def _break_at(reporter: Reporter, name: str, line: int, message: str) -> tuple[int, str]:
    reporter.warning(
        "xml-not-well-formed",
        f"the XML breaks off here ({message}); the entries before it are kept",
        name,
        line,
    )
    return line, message


#: libxml2's fatal errors that name the element open at the break: its children all ended.
_PREMATURE_END = re.compile(r"(?:Premature end of data in tag|Opening and ending tag mismatch:) (\S+) line")


def _partial(partial: etree._Element | None, message: str) -> etree._Element | None:
    """The wanted element the XML broke off in (begun, never ended: the first of the file too), without its
    last child when that may be cut too; None if none.

    The children before the last one are complete (another began after each).  The last one is complete
    when text after it was read, or when the parser says the data ended (or an end tag mismatched) inside
    the wanted element itself.
    """
    if partial is None or not len(partial):
        return None
    ended = _PREMATURE_END.search(message)
    qualified = f"{partial.prefix}:{local_name(partial.tag)}" if partial.prefix else local_name(partial.tag)
    last = partial[-1]
    # a tag mismatch names the open element without its prefix: unless the last child has that name too
    open_names = (
        {qualified} if local_name(last.tag) == local_name(partial.tag) else {qualified, local_name(partial.tag)}
    )
    if (ended is None or ended.group(1) not in open_names) and last.tail is None:
        partial.remove(last)
    return partial if len(partial) else None


def _pieces(partial: etree._Element, starts_entry: str | None) -> list[etree._Element]:
    """``partial``, or one element of its tag per ``starts_entry`` child (the children before the second one
    stay with the first), each at the line of the child that begins it."""
    children = list(partial)
    starts = [index for index, child in enumerate(children) if child.tag == starts_entry]
    if len(starts) < 2:
        return [partial]
    pieces = []
    for begin, end in zip([0, *starts[1:]], [*starts[1:], len(children)], strict=True):
        piece = etree.Element(partial.tag, nsmap=partial.nsmap)  # type: ignore[arg-type]  # lxml takes a None prefix
        piece.sourceline = children[max(begin, starts[0])].sourceline
        piece.extend(children[begin:end])  # moved from partial, which is left empty
        pieces.append(piece)
    return pieces
