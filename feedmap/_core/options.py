"""The settings of a library call (``Options``), each checked when the options are made.

One job: to hold the flags of ``feedmap convert`` as values whose types say what they are, and to refuse a
value that cannot be used at once, naming the field (``Options(max_bytes="lots")``: ``ValueError:
max_bytes: ...``), rather than deep inside reading.  The rules are those of the CLI's parser
(:mod:`feedmap._core.option_values`): sizes are bytes or their text (``"200M"``, the parser of ``--max-bytes``),
URLs absolute http(s) URLs (RFC 3986 §4.3), feed text XML 1.0 characters (§2.2), dates W3C-DTF
(https://www.w3.org/TR/NOTE-datetime) or their text, patterns Python regular expressions, field values set on
every entry what a reader reads (:mod:`feedmap._core.field_values`).

What each call does with the fields is said by :mod:`feedmap._core.call_fields` (``CALL_FIELDS``,
``refuse_unused``): every call honours the fields it is given or raises ``ValueError`` naming those it cannot use.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias, get_args

from feedmap._core.dates import W3CDate
from feedmap._core.field_values import FieldValue, field_values
from feedmap._core.http_settings import HttpSettings
from feedmap._core.limits import DEFAULT_MAX_BYTES, PROTOCOL_MAX_BYTES, PROTOCOL_MAX_URLS
from feedmap._core.option_values import MAX_SIZE, check_number, parse_size, web_url_problem, xml_text_problem
from feedmap._core.scheduler import scheduler_problem

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_PAGE_MAX_BYTES",
    "MAX_CONCURRENCY",
    "MAX_JOBS",
    "NUMBER_FIELD",
    "DateLike",
    "DedupeRule",
    "DirectoryLike",
    "ExplodeList",
    "FieldsLike",
    "FollowPredicate",
    "Options",
    "Patterns",
    "SizeLike",
    "SortOrder",
    "asks_for_workers",
    "name_pattern_problem",
]

DEFAULT_MAX_DEPTH = 5
DEFAULT_CONCURRENCY = 16
#: The most index children (or pages) fetched at once that may be asked for: one thread each.
MAX_CONCURRENCY = 1000
#: The most worker processes ``jobs`` may ask for (0 asks for one per core).
MAX_JOBS = 256
#: Largest page read by enrichment (a page's head is at its start; 5 MiB is far beyond real pages).
DEFAULT_PAGE_MAX_BYTES = 5 * 1024 * 1024
#: Longest line of a line-based input (JSON lines, text sitemap) read: far beyond any real entry or URL.
DEFAULT_MAX_LINE_BYTES = 1024 * 1024

#: Decides whether an index child is read: sees the child's loc and lastmod.
FollowPredicate = Callable[[str, "W3CDate | None"], bool]
#: ``Options.dedupe``: which entry of a repeated URL is kept.
DedupeRule = Literal["first", "last", "newest"]
#: ``Options.sort``: the order written.
SortOrder = Literal["loc", "lastmod", "-lastmod"]
#: ``Options.explode``: the list column a CSV file holds one item of per row (``feedmap._table.columns.EXPLODABLE``).
ExplodeList = Literal["images", "alternates", "keywords"]
#: A size in bytes as given: a whole number, or its text with a binary unit (``"200M"``, ``"1.5GiB"``).
SizeLike: TypeAlias = "int | str"
#: A date as given: a :class:`W3CDate`, or its text (``"2024-01-01"``).
DateLike: TypeAlias = "W3CDate | str"
#: A directory as given (``maps``): its path as text or a path object.
DirectoryLike: TypeAlias = "str | os.PathLike[str]"
#: Regular expressions as given (``include``, ``exclude``): one, or any iterable of them.
Patterns: TypeAlias = "str | Iterable[str]"
#: Field values as given (``set``, ``set_missing``): ``{field: value}``, ``(field, value)`` pairs or
#: ``"FIELD=VALUE"`` texts; a value as text (read as a reader reads it) or of the field's type.
FieldsLike: TypeAlias = "Mapping[str, object] | Iterable[tuple[str, object] | str]"

_BOOLEANS = (
    "strict",
    "follow",
    "schema_location",
    "encode_urls",
    "keep_urls",
    "keep_feed_extras",
    "enrich",
    "overwrite",
    "require_lastmod",
    "gzip",
    "excel_safe",
    "rebalance",
)
#: Sizes in bytes, each at most its maximum.
_SIZES = {
    "max_bytes": MAX_SIZE,
    "max_line_bytes": MAX_SIZE,
    "page_max_bytes": MAX_SIZE,
    "max_file_bytes": PROTOCOL_MAX_BYTES,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Settings of the library's calls (the flags of ``feedmap convert``), checked when made.

    Each field holds one type once made (``max_bytes`` an ``int``, ``since`` a :class:`W3CDate`, ``maps``
    pairs of a prefix and a :class:`~pathlib.Path`); the constructor also takes what converts to it without
    doubt: a size as text (``max_bytes="1G"``, parsed as the CLI's ``--max-bytes`` is), a date as text, a
    directory as ``str``, one pattern as a string.  A value that cannot be used raises ``ValueError`` naming the
    field, at construction: a wrong type (``strict="no"``), a value out of range, a URL that is no absolute
    http(s) URL (``base_url``, ``channel_link``, ``self_url``), feed text XML cannot hold (``channel_title``,
    ``channel_description``, ``channel_author``), a regular expression that does not compile, a ``dedupe`` or
    ``sort`` not among its choices, a field value of ``set`` or ``set_missing`` that a reader would not read.

    One object for every call, each honouring every field it is given: :func:`feedmap.read` runs the entry
    selection (filters, ``dedupe``, ``sort``, ``limit``) and enrichment it asks for, :func:`feedmap.write`
    and :func:`feedmap.split` run the same steps :func:`feedmap.convert` runs, and ``strict`` holds with any
    ``reporter=``.  A field a call cannot use (``channel_title`` for ``read``, which writes nothing;
    ``max_urls`` for ``write``, which writes one file; ``follow`` for ``write``, which reads nothing) is
    refused: ``ValueError`` naming the fields and the calls that use them, never silently ignored.  This
    was chosen over one options class per call because the calls share most fields (a conversion is a
    read, steps and a write, with one set of flags), so one object keeps the CLI's one set of flags and lets
    ``convert`` take them all, while the refusal keeps each call honest about what it does.
    """

    strict: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    #: Longest line of JSON lines or a text sitemap: a longer one is skipped (``line-too-long``).
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    follow: bool = True
    #: With ``follow``: which index children to read (``--since`` builds one); None reads them all.
    follow_child: FollowPredicate | None = None
    max_depth: int = DEFAULT_MAX_DEPTH
    #: Index children fetched at once (and pages at once with ``--enrich``).
    concurrency: int = DEFAULT_CONCURRENCY
    #: ``--jobs``: worker processes reading an index's children (1: none, read in this process; 0: one per
    #: core).  The output is the same whatever the number (:mod:`feedmap._web.partitions`).
    jobs: int = 1
    #: ``--dask``: the Dask scheduler whose workers read an index's children instead (``tcp://HOST:PORT``), or
    #: ``local:N`` for N worker processes of this machine started for the run; None: no cluster.  The output
    #: is the same as without it (:mod:`feedmap._web.cluster`).
    dask: str | None = None
    http: HttpSettings = field(default_factory=HttpSettings)
    #: ``(url_prefix, directory)`` pairs: URLs under the prefix are read from the directory.
    maps: tuple[tuple[str, Path], ...] = ()
    #: The URL a relative loc is resolved against when the document's own URL is not known (a local file);
    #: a fetched (or ``--map``-ped) document's URL comes first.
    base_url: str | None = None
    schema_location: bool = False
    #: Write IRIs as URIs in every output, text included (``--encode-urls``).  XML outputs do it anyway
    #: unless ``keep_urls``; JSON lines never do (they keep what was read).
    encode_urls: bool = False
    #: ``--keep-urls``: XML outputs write URLs as read, not encoded (characters a URI cannot hold are
    #: reported, never passed on silently).
    keep_urls: bool = False
    #: ``--keep-feed-extras``: sitemaps (and indexes) write the elements of feeds' vocabularies an entry keeps as
    #: XML extras (``slash:comments``, ``dc:creator``, ...), which they leave out by default (``extra-dropped``).
    keep_feed_extras: bool = False
    #: Feed channel metadata for the rss and ror writers (default: the input's, else derived from the URLs).
    channel_title: str | None = None
    channel_link: str | None = None
    channel_description: str | None = None
    #: The written feed's own URL, for ``atom:link rel="self"`` (Atom: also the feed's ``id``).
    self_url: str | None = None
    #: The feed's author, a name (Atom's ``author``; default: the channel link's host); RSS and ROR have no place
    #: for it (``field-dropped``).
    channel_author: str | None = None
    #: The feed's last update (RSS ``lastBuildDate``, Atom ``updated``; a W3CDate, or its text); default: the
    #: input's, and for Atom (which requires one) the newest lastmod, else the time of the run.
    channel_updated: W3CDate | None = None
    #: ``--enrich``: fill each entry's title, description and keywords from its page.
    enrich: bool = False
    #: ``--overwrite``: with ``enrich``, replace the values an entry already has.
    overwrite: bool = False
    #: With ``enrich``: the largest page read (the smaller of this and ``max_bytes``).
    page_max_bytes: int = DEFAULT_PAGE_MAX_BYTES
    #: ``--since`` / ``--until``: keep entries whose lastmod is within these bounds, each inclusive over its
    #: whole period (a W3CDate, or its text); entries without a lastmod are kept unless ``require_lastmod``.
    #: ``since`` also leaves out the index children whose lastmod is before it (as ``follow_child`` does).
    since: W3CDate | None = None
    until: W3CDate | None = None
    #: ``--require-lastmod``: leave out entries without a lastmod.
    require_lastmod: bool = False
    #: ``--include`` / ``--exclude``: regular expressions searched (``re.search``) in each loc; an entry is kept
    #: when it matches one of ``include`` (if any) and none of ``exclude``.
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    #: ``--limit``: write only the first N entries (after the filters); None writes them all.
    limit: int | None = None
    #: ``--dedupe``: which entry of a repeated URL is kept, in every output: ``"first"``, ``"last"`` or
    #: ``"newest"`` (by lastmod, ties to the first); None: each output's default (JSON lines keeps every
    #: entry, the others keep the newest).
    dedupe: DedupeRule | None = None
    #: ``--set FIELD=VALUE``: a value set on every entry, replacing the one read (``{"type": "Product"}``, pairs, or
    #: ``"FIELD=VALUE"`` texts; an empty value clears the field), checked as a reader checks it; made a tuple of
    #: ``(field, value)`` pairs.  Set first, before the filters, so every step sees it.
    set: tuple[tuple[str, FieldValue], ...] = ()
    #: ``--set-missing FIELD=VALUE``: the same, only on entries without a value for the field.
    set_missing: tuple[tuple[str, FieldValue], ...] = ()
    #: ``--sort``: the entries ordered by ``"loc"`` (string order), ``"lastmod"`` (oldest first) or
    #: ``"-lastmod"`` (newest first), stably, entries without a lastmod last; after the filters and
    #: deduplication, before ``limit``.  None keeps the input order.
    sort: SortOrder | None = None
    #: Writing into a directory (:func:`feedmap.split`): the most entries in one file (None: the protocol's
    #: 50,000, also the highest allowed), the most bytes in one file, uncompressed (None: the protocol's
    #: 52,428,800, also the highest allowed), the files' names (a pattern holding ``{n}``, the file's number
    #: from 1, or ``{n:0Wd}``, the same zero-padded to W digits; a pattern ending in ``.gz`` writes gzip; None:
    #: the format's, ``sitemap-{n}.xml``, ``urls-{n}.txt``, ...), whether each file is written
    #: gzip-compressed (``.gz`` appended to its name), and the name of the sitemap index listing them.
    max_urls: int | None = None
    max_file_bytes: int | None = None
    name: str | None = None
    gzip: bool = False
    index_name: str = "sitemap_index.xml"
    #: ``--explode``: a CSV output holds one row per item of this list column (``"images"``: ``image_loc``,
    #: ``image_caption``, ... in its place), the other cells repeated; None: the list as JSON in one cell.  A
    #: CSV input's layout is read from its header, whatever this says.
    explode: ExplodeList | None = None
    #: ``--excel-safe``: a CSV output's cells that a spreadsheet would run as a formula (first character ``=``,
    #: ``+``, ``-``, ``@``, tab, CR or NUL) are written after a ``'``, the file starts with a UTF-8 byte order
    #: mark; a CSV input's cells so written are read without the ``'``.
    excel_safe: bool = False
    #: Writing into a directory that holds a previous run of the set: False keeps each URL in the file that
    #: held it (only the files that change are rewritten, :mod:`feedmap._publish.sticky`); True cuts the files
    #: afresh, in input order from file 1, as a first run does (``--rebalance``).  ``sort`` always cuts afresh.
    rebalance: bool = False

    if TYPE_CHECKING:  # what the constructor takes (the dataclass makes it; the fields hold the types above)

        def __init__(
            self,
            *,
            strict: bool = ...,
            max_bytes: SizeLike = ...,
            max_line_bytes: SizeLike = ...,
            follow: bool = ...,
            follow_child: FollowPredicate | None = ...,
            max_depth: int = ...,
            concurrency: int = ...,
            jobs: int = ...,
            dask: str | None = ...,
            http: HttpSettings = ...,
            maps: Iterable[tuple[str, DirectoryLike]] = ...,
            base_url: str | None = ...,
            schema_location: bool = ...,
            encode_urls: bool = ...,
            keep_urls: bool = ...,
            keep_feed_extras: bool = ...,
            channel_title: str | None = ...,
            channel_link: str | None = ...,
            channel_description: str | None = ...,
            self_url: str | None = ...,
            channel_author: str | None = ...,
            channel_updated: DateLike | None = ...,
            enrich: bool = ...,
            overwrite: bool = ...,
            page_max_bytes: SizeLike = ...,
            since: DateLike | None = ...,
            until: DateLike | None = ...,
            require_lastmod: bool = ...,
            include: Patterns = ...,
            exclude: Patterns = ...,
            limit: int | None = ...,
            dedupe: DedupeRule | None = ...,
            set: FieldsLike = ...,
            set_missing: FieldsLike = ...,
            sort: SortOrder | None = ...,
            max_urls: int | None = ...,
            max_file_bytes: SizeLike | None = ...,
            name: str | None = ...,
            gzip: bool = ...,
            index_name: str = ...,
            explode: ExplodeList | None = ...,
            excel_safe: bool = ...,
            rebalance: bool = ...,
        ) -> None: ...

    def __post_init__(self) -> None:
        for name in _BOOLEANS:
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}: give True or False, not {getattr(self, name)!r}")
        for name, maximum in _SIZES.items():
            _set(self, name, _size(name, getattr(self, name), maximum))
        _set(self, "maps", _maps(self.maps))
        _check_choice("dedupe", self.dedupe, get_args(DedupeRule))
        _check_choice("sort", self.sort, get_args(SortOrder))
        _check_choice("explode", self.explode, get_args(ExplodeList))
        _check_values(self)
        _check_texts(self)
        _check_split_options(self)
        for name in ("since", "until", "channel_updated"):
            _set(self, name, _date(name, getattr(self, name)))
        _check_fields(self)
        for name in ("include", "exclude"):
            _set(self, name, _patterns(name, getattr(self, name)))


def _set(options: Options, name: str, value: object) -> None:
    object.__setattr__(options, name, value)  # a frozen dataclass sets its fields so


def _size(name: str, value: object, maximum: int) -> object:
    """A size field as bytes: an ``int`` as it is, text parsed as ``--max-bytes`` is; ValueError naming it."""
    if value is None and name == "max_file_bytes":
        return None
    if isinstance(value, str):
        try:
            value = parse_size(value)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
    check_number(name, value, minimum=1, maximum=maximum, integer=True)
    return value


def _maps(value: object) -> tuple[tuple[str, Path], ...]:
    """``maps`` as a tuple of ``(prefix, Path)``: ValueError for anything but pairs of a URL prefix and a
    directory's path (an empty one would be the current directory, as ``--map`` refuses it)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"maps: give (url_prefix, directory) pairs, not {value!r}")
    pairs: list[tuple[str, Path]] = []
    for pair in value:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise ValueError(f"maps: give (url_prefix, directory) pairs, not {pair!r}")
        prefix, directory = pair
        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"maps: give a URL prefix as text, not {prefix!r}")
        if isinstance(directory, Path):
            pairs.append((prefix, directory))
            continue
        if not isinstance(directory, (str, os.PathLike)) or not isinstance(os.fspath(directory), str):
            raise ValueError(f"maps: give the directory of {prefix} as a path, not {directory!r}")
        text = os.fspath(directory)
        if not text or "\0" in text:
            raise ValueError(f"maps: give the directory of {prefix} as a path, not {text!r}")
        pairs.append((prefix, Path(text)))
    return tuple(pairs)


def _check_choice(name: str, value: object, choices: tuple[object, ...]) -> None:
    if value is not None and value not in choices:
        listed = ", ".join(repr(choice) for choice in choices)
        raise ValueError(f"{name} is one of {listed} (or None), not {value!r}")


def _date(name: str, value: object) -> W3CDate | None:
    """``since`` / ``until`` as a W3CDate (parsed from its text); ValueError naming the field otherwise."""
    if value is None or isinstance(value, W3CDate):
        return value
    if isinstance(value, str):
        try:
            return W3CDate.parse(value)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
    raise ValueError(f"{name}: give a W3CDate or its text, not {value!r}")


def _patterns(name: str, value: object) -> tuple[str, ...]:
    """``include`` / ``exclude`` as a tuple of regular expressions (one string or any iterable of strings);
    ValueError naming the field for anything else (bytes would compile, and fail on the first URL searched)
    and for one that does not compile."""
    if isinstance(value, str):
        patterns: tuple[object, ...] = (value,)
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray)):
        patterns = tuple(value)
    else:
        patterns = (value,)
    texts = [pattern for pattern in patterns if isinstance(pattern, str)]
    if len(texts) != len(patterns):
        raise ValueError(f"{name}: give a regular expression or a sequence of them, not {value!r}")
    for text in texts:
        try:
            re.compile(text)
        except re.error as exc:
            raise ValueError(f"{name}: {text!r} is not a regular expression ({exc})") from None
    return tuple(texts)


def asks_for_workers(options: Options) -> bool:
    """Whether ``options`` ask for an index's children to be read by workers (``jobs`` other than 1, or a Dask
    cluster): where that is False the run loads nothing of the workers' modules."""
    return options.jobs != 1 or options.dask is not None


def _check_values(options: Options) -> None:
    """ValueError for a count or limit that is no whole number in its range (see
    :mod:`feedmap._core.option_values`), ``http`` that is no :class:`HttpSettings`, or a ``follow_child`` that
    cannot be called."""
    check_number("max_depth", options.max_depth, minimum=0, integer=True)
    check_number("concurrency", options.concurrency, minimum=1, maximum=MAX_CONCURRENCY, integer=True)
    check_number("jobs", options.jobs, minimum=0, maximum=MAX_JOBS, integer=True)
    if options.dask is not None:
        problem = scheduler_problem(options.dask)
        if problem is not None:
            raise ValueError(f"dask: {problem}")
        if options.jobs != 1:
            raise ValueError("jobs and dask: give one of them (the cluster's workers read the children)")
    if options.limit is not None:
        check_number("limit", options.limit, minimum=0, integer=True)
    if not isinstance(options.http, HttpSettings):
        raise ValueError(f"http: give an HttpSettings, not {options.http!r}")
    if options.follow_child is not None and not callable(options.follow_child):
        raise ValueError(f"follow_child: give a function (loc, lastmod) -> bool, not {options.follow_child!r}")


def _check_texts(options: Options) -> None:
    """ValueError for a URL that is no absolute http(s) URL, or feed text XML cannot hold, as the CLI's
    ``--base-url``, ``--link``, ``--self-url``, ``--title`` and ``--description`` refuse them."""
    for name in ("base_url", "channel_link", "self_url"):
        value = getattr(options, name)
        problem = web_url_problem(value) if value is not None else None
        if problem is not None:
            raise ValueError(f"{name}: {problem}")
    for name in ("channel_title", "channel_description", "channel_author"):
        value = getattr(options, name)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{name}: give text, not {value!r}")
        problem = xml_text_problem(value) if value is not None else None
        if problem is not None:
            raise ValueError(f"{name}: {problem}")


def _check_fields(options: Options) -> None:
    """``set`` and ``set_missing`` as ``(field, value)`` pairs, each value checked as a reader checks it
    (:mod:`feedmap._core.field_values`); ValueError naming the option and the field, also for a field both give."""
    for name in ("set", "set_missing"):
        _set(options, name, field_values(getattr(options, name), name))
    both = {field for field, _ in options.set} & {field for field, _ in options.set_missing}
    if both:
        listed = ", ".join(sorted(both))
        raise ValueError(f"set_missing: {listed} is given to set too; give each field to one of them")


def _check_split_options(options: Options) -> None:
    """ValueError for a file limit outside what the protocol allows, or a file name that is not one."""
    if options.max_urls is not None:
        check_number("max_urls", options.max_urls, minimum=1, maximum=PROTOCOL_MAX_URLS, integer=True)
    if options.name is not None and not isinstance(options.name, str):
        raise ValueError(f"name: give a file name pattern, not {options.name!r}")
    problem = name_pattern_problem(options.name) if options.name is not None else None
    if problem is not None:
        raise ValueError(f"name: {problem}")
    index = options.index_name
    if not isinstance(index, str) or not index or index in (".", "..") or _not_a_base_name(index):
        raise ValueError(f"index_name is a file name, not {index!r}")


def _not_a_base_name(name: str) -> bool:
    """Whether ``name`` holds a path separator or NUL (which no file name holds: open(2) refuses it)."""
    return any(char in name for char in ("/", os.sep, os.altsep or "/", "\0"))


#: The file's number in a name pattern (``Options.name``): ``{n}``, or ``{n:0Wd}`` zero-padded to W digits.
NUMBER_FIELD = re.compile(r"\{n(?::0([1-9])d)?\}")


def name_pattern_problem(name: str) -> str | None:
    """What is wrong with a file name pattern, or None: a base name holding ``{n}`` or ``{n:0Wd}`` (W from 1
    to 9), the same field wherever it is repeated."""
    found = set(re.findall(r"\{n(?::[^{}]*)?\}", name))
    what = "a file name holding {n} or {n:0Wd} (the file's number, zero-padded to W digits: {n:05d})"
    if not found or _not_a_base_name(name):
        return f"{name!r}: give {what}, without '/'"
    if any(NUMBER_FIELD.fullmatch(one) is None for one in found) or len(found) > 1:
        return f"{name!r}: give {what}, the same field each time it is repeated"
    return None


# --- which call uses which field ----------------------------------------------------------------------
