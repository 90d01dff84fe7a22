"""``jsonl``: the IR as JSON Lines (https://jsonlines.org/), one object per entry, for pipelines and ``jq``.

Schema (also in the docs, docs/formats.md): ``loc`` (string, required), ``lastmod`` (the W3C Datetime string exactly
as read), ``changefreq``, ``priority`` (number), ``title``, ``description``, ``keywords`` (list of strings),
``type``, ``images`` (list of objects with ``loc``, ``caption``, ``geo_location``, ``title``, ``license``),
``alternates`` (list of objects with ``hreflang``, ``href``), ``news`` (an object: ``publication_name``,
``publication_language``, ``publication_date``, ``title``, ``keywords``, ``genres``, ``stock_tickers``, ``access``,
``extras``), ``videos`` (list of objects: ``thumbnail_loc``, ``title``, ``description``, ... as
:mod:`feedmap._core.media` lists them), ``extras`` (object of strings).  Empty values are omitted.  At most one
header line, the first, has no ``loc``: it carries document metadata (``kind``, ``title``, ``link``,
``description``, ``updated``, ``extras``) and is written only when there is some.  Every IR field has a key, so
``X -> jsonl -> X`` is lossless for every format X.

A part of a big file is read as the file's own lines (:func:`read_window`): told the number of the line before
it and whether an object came before it (:func:`first_object`), it gives the entries and diagnostics the whole
file gives there.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from decimal import Decimal
from functools import partial
from typing import Any, BinaryIO

from feedmap._core.context import Context
from feedmap._core.dates import W3CDate
from feedmap._core.errors import ReadError
from feedmap._core.media import plain_news, plain_video
from feedmap._core.model import (
    ENTRY_FIELDS,
    DocKind,
    DocMeta,
    Document,
    Entry,
    Image,
    Position,
    full_entry,
    new_position,
)
from feedmap._core.urls import _PLAIN_LOC_NO_USERINFO, MAX_LOC_LENGTH, check_loc
from feedmap._io.sources import Readable, Source
from feedmap.formats._extras import readable_extras
from feedmap.formats._fields import _CHANGEFREQS, read_changefreq, read_lastmod, read_loc
from feedmap.formats._output import BATCH_CHARACTERS
from feedmap.formats._registry import FormatSpec
from feedmap.formats.lines._common import Block, bounded_line_blocks, too_long
from feedmap.formats.lines._jsonl_values import (
    _EXACT,
    _RAW_DECODE,
    IMAGE_KEYS,
    Bad,
    alternates_of,
    decode,
    extras_of,
    images_of,
    news_value,
    priority_of,
    string_list,
    string_map,
    text_of,
    videos_value,
)

__all__ = [
    "FORMAT",
    "LinesLoop",
    "LongWay",
    "accelerated",
    "entry_to_json",
    "first_object",
    "lines_loop",
    "one_line",
    "read",
    "read_window",
    "write",
]

_ENTRY_KEYS = frozenset(ENTRY_FIELDS)
_new_tuple = tuple.__new__
_META_KEYS = frozenset({"kind", "title", "link", "description", "updated", "extras"})
_IMAGE_KEYS = IMAGE_KEYS
#: The keys most lines have: an entry with no other key takes the short way in :func:`_entry`.
_COMMON_KEYS = frozenset({"loc", "lastmod", "changefreq", "priority", "images"})


def entry_to_json(entry: Entry) -> dict[str, Any]:
    """The JSON object for an entry (empty fields omitted), keys in IR order."""
    obj: dict[str, Any] = {"loc": entry.loc}
    if entry.lastmod is not None:
        obj["lastmod"] = entry.lastmod.text
    if entry.changefreq is not None:
        obj["changefreq"] = entry.changefreq.value
    if entry.priority is not None:
        obj["priority"] = entry.priority
    if entry.title is not None:
        obj["title"] = entry.title
    if entry.description is not None:
        obj["description"] = entry.description
    if entry.keywords:
        obj["keywords"] = list(entry.keywords)
    if entry.type is not None:
        obj["type"] = entry.type
    if entry.images:
        obj["images"] = [
            {key: getattr(image, key) for key in _IMAGE_KEYS if getattr(image, key) is not None}
            for image in entry.images
        ]
    if entry.alternates:
        obj["alternates"] = [{"hreflang": alt.hreflang, "href": alt.href} for alt in entry.alternates]
    if entry.news is not None:
        obj["news"] = plain_news(entry.news)
    if entry.videos:
        obj["videos"] = [plain_video(video) for video in entry.videos]
    if entry.extras:
        obj["extras"] = dict(entry.extras)
    return obj


def _meta_to_json(meta: DocMeta) -> dict[str, Any]:
    obj: dict[str, Any] = {"kind": meta.kind.value}
    for key in ("title", "link", "description"):
        value = getattr(meta, key)
        if value is not None:
            obj[key] = value
    if meta.updated is not None:
        obj["updated"] = str(meta.updated)
    if meta.extras:
        obj["extras"] = dict(meta.extras)
    return obj


def write(doc: Document, sink: BinaryIO, *, ctx: Context) -> int:
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
    count = characters = 0
    pending: list[str] = []  # the header line (the document's meta) goes out with the first batch of entries
    if not doc.meta.is_empty() or doc.meta.kind is not DocKind.URLSET:
        pending.append(dumps(_meta_to_json(doc.meta)))
    for entry in doc.entries:
        if entry.extras and any(key.startswith("{") for key in entry.extras):
            entry = readable_extras(entry, ctx)
        try:
            line = dumps(entry_to_json(entry))
        except ValueError:  # a priority that is not a number (NaN, infinity: JSON has none)
            ctx.warning("priority-invalid", f"priority {entry.priority} of {entry.loc} is not a number; not written")
            line = dumps(entry_to_json(replace(entry, priority=None)))
        pending.append(line)
        count += 1
        characters += len(line)
        if len(pending) >= 1024 or characters >= BATCH_CHARACTERS:  # lines of big entries: by size
            sink.write(_encoded(pending, ctx))
            pending.clear()
            characters = 0
    if pending:
        sink.write(_encoded(pending, ctx))
    return count


#: Line breaks other than "\n" that JSON lets stand raw inside a string (json.dumps escapes only C0
#: controls): a reader splitting lines the Unicode way (Python's ``str.splitlines``, editors) would cut an
#: object there, so they are written as ``\u`` escapes (RFC 8259 §7), the same string once parsed.
_UNICODE_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def one_line(text: str) -> str:
    """JSON text with its Unicode line breaks escaped (see :data:`_UNICODE_LINE_BREAKS`)."""
    if "\x85" in text or "\u2028" in text or "\u2029" in text:
        return text.translate(_UNICODE_LINE_BREAKS)
    return text


def _encoded(lines: list[str], ctx: Context) -> bytes:
    """The lines as UTF-8 (Unicode line breaks escaped); a lone surrogate (from an entry built in Python)
    cannot be, and is dropped."""
    try:
        return one_line("\n".join(lines) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        pass
    out: list[bytes] = []
    for line in lines:
        try:
            out.append(line.encode("utf-8"))
        except UnicodeEncodeError:
            found = _SURROGATE.findall(line)
            shown = ", ".join(f"U+{ord(char):04X}" for char in dict.fromkeys(found))
            what = json.loads(line).get("loc", "the header line")
            ctx.warning("character-dropped", f"{what!r}: {shown} cannot be written in UTF-8 and was dropped")
            out.append(_SURROGATE.sub("", line).encode("utf-8"))
        out.append(b"\n")
    return one_line(b"".join(out).decode("utf-8")).encode("utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


# ------------------------------------------------------------------------------------------------ reading


def _entry(obj: dict[str, Any], ctx: Context, line: int) -> Entry | None:
    keys = obj.keys()
    if not keys <= _ENTRY_KEYS:
        ctx.warning("unknown-key", f"unknown keys {', '.join(sorted(keys - _ENTRY_KEYS))} ignored", line)
    # text_of(obj, key) for each of the three, called only when the value is not a string (to raise its Bad)
    loc_text, lastmod_text, changefreq_text = obj.get("loc"), obj.get("lastmod"), obj.get("changefreq")
    loc: str | None = loc_text if loc_text.__class__ is str else None
    # check_loc says None only to a loc without white space: read_loc would give it as it is, and report nothing
    if not loc or check_loc(loc) is not None:
        loc = read_loc(loc_text if loc_text.__class__ is str else text_of(obj, "loc"), ctx, line)
        if loc is None:
            return None
    if lastmod_text is not None and lastmod_text.__class__ is not str:
        text_of(obj, "lastmod")
    if changefreq_text is not None and changefreq_text.__class__ is not str:
        text_of(obj, "changefreq")
    lastmod = None
    if lastmod_text is not None:
        try:  # what read_lastmod tries first (a string, checked above), without its call
            lastmod = W3CDate(lastmod_text)
        except ValueError:
            lastmod = read_lastmod(lastmod_text, ctx, line)
    changefreq = read_changefreq(changefreq_text, ctx, line) if changefreq_text is not None else None
    if keys <= _COMMON_KEYS:  # the other fields are absent: what the long way below gives for them
        priority = obj.get("priority")
        if priority is not None:
            priority = priority_of(priority, ctx, line)
        images = obj.get("images")
        images = images_of(images) if images is not None else ()
        origin = _new_tuple(Position, (ctx.name, line))  # new_position, inlined
        return full_entry(loc, lastmod, changefreq, priority, None, None, (), None, images, (), {}, origin)
    news, videos = news_value(obj.get("news")), videos_value(obj.get("videos"))
    entry = full_entry(  # Entry(...) without its coercion: every value below has its type already
        loc,
        lastmod,
        changefreq,
        priority_of(obj.get("priority"), ctx, line),
        text_of(obj, "title"),
        text_of(obj, "description"),
        string_list(obj.get("keywords"), "keywords"),
        text_of(obj, "type"),
        images_of(obj.get("images")),
        alternates_of(obj.get("alternates")),
        extras_of(obj.get("extras"), ctx, line),
        new_position(ctx.name, line),
    )
    entry.news, entry.videos = news, videos
    return entry


def _meta(obj: dict[str, Any]) -> DocMeta:
    kind_text = obj.get("kind", "urlset")
    try:
        kind = DocKind(kind_text)
    except ValueError:
        raise Bad(f"'kind' must be one of {', '.join(k.value for k in DocKind)}") from None
    return DocMeta(
        kind=kind,
        title=text_of(obj, "title"),
        link=text_of(obj, "link"),
        description=text_of(obj, "description"),
        extras=string_map(obj.get("extras"), "extras"),
        updated=_updated(text_of(obj, "updated")),
    )


def _updated(text: str | None) -> W3CDate | None:
    """The channel's last update, a W3C Datetime as written."""
    if text is None:
        return None
    try:
        return W3CDate(text)
    except ValueError:
        raise Bad(f"'updated' must be a W3C Datetime, not {text[:40]!r}") from None


def _object(raw: bytes | None, line: int, ctx: Context) -> dict[str, Any] | None:
    """The JSON object of one line read, or None (a blank line, or one reported and skipped): every check of
    a line, in its order; :func:`_entries` asks it for any line its common way does not take."""
    if raw is None:
        ctx.warning("line-too-long", too_long(ctx.options.max_line_bytes), line)
        return None
    text = raw.strip()
    if line == 1:
        text = text.removeprefix(b"\xef\xbb\xbf").strip()
    if not text:
        return None
    try:
        # strict UTF-8: json.loads(bytes) would let surrogate bytes through; fractions as Decimal (see _priority)
        obj = decode(text.decode("utf-8"))
    except UnicodeDecodeError as exc:
        ctx.warning("invalid-json", f"the line is not UTF-8 ({exc.reason} at byte {exc.start}); line skipped", line)
        return None
    except (ValueError, RecursionError) as exc:
        # RecursionError: nesting deeper than the interpreter's stack (e.g. "[[[[..." of any length)
        ctx.warning("invalid-json", f"not a JSON object ({exc}); line skipped", line)
        return None
    if not isinstance(obj, dict):
        ctx.warning("invalid-json", f"a JSON {type(obj).__name__}, not an object; line skipped", line)
        return None
    if b"\\u" in text and _SURROGATE_ESCAPE.search(text) is not None and _has_lone_surrogate(obj):
        ctx.warning("invalid-value", "a string holds a lone UTF-16 surrogate (\\uD800-\\uDFFF); line skipped", line)
        return None
    return obj


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def _has_lone_surrogate(obj: Any) -> bool:
    """True when a key or string in ``obj`` holds a surrogate that no UTF-8 output can carry (an escaped pair,
    ``\\ud83d\\ude00``, is one character once decoded). The values are walked, not re-encoded: the line's
    fractions are Decimal, which ``json.dumps`` refuses; iteratively, as the line may nest deeply."""
    pending: list[Any] = [obj]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value) is not None:
                return True
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return False


def _first(blocks: Iterator[Block], ctx: Context, line: int = 0) -> tuple[dict[str, Any] | None, int, Block]:
    """The first object of the lines after ``line`` (of a file: a header or an entry), its line, and the lines
    of its read after it; no object: None, the last line, nothing."""
    for block in blocks:
        for at, raw in enumerate(block):
            line += 1
            obj = _object(raw, line, ctx)
            if obj is not None:
                return obj, line, block[at + 1 :]
    return None, line, ()


def _entries(first: dict[str, Any] | None, line: int, blocks: Iterable[Block], ctx: Context) -> Iterator[Entry]:
    """The entries of the lines after ``line``, ``first`` (an entry's object, or None) before them: by the loop
    in use (:func:`lines_loop`)."""
    yield from _first_entry(first, line, ctx)
    yield from lines_loop()(blocks, line, ctx.name, partial(_long_way, ctx=ctx))


def _lines(blocks: Iterable[Block], line: int, name: str, long_way: LongWay) -> Iterator[Entry]:
    """The pure twin of the loop: the entries of the lines of ``blocks`` (after line ``line``).

    One loop for every line. The common line (a JSON object of ``loc``, ``lastmod``, ``changefreq``,
    ``priority``, ``images`` of which nothing would be said: no escape, a loc fine as written, a W3C lastmod, a
    changefreq as the protocol spells it, a fraction met before, images of a string ``loc`` alone) becomes
    its :class:`Entry` here, with what :func:`_object` and :func:`_entry` would give it; any other line is
    handed to them (``long_way``: :func:`_long_way`), which say what they say about it (codes, messages, lines
    and order as ever).
    """
    raw_decode, common_keys, common = _RAW_DECODE, _COMMON_KEYS, _common
    for block in blocks:
        for raw in block:
            line += 1
            if raw is not None and b"\\u" not in raw:
                try:
                    text = raw.strip().decode("utf-8")
                    obj, end = raw_decode(text)
                except (ValueError, RecursionError):  # a line _object reports: it says why
                    pass
                else:  # blanks around the object, or not one: _object strips and says
                    if end == len(text) and obj.__class__ is dict and obj.keys() <= common_keys:
                        entry = common(obj, name, line)
                        if entry is not None:
                            yield entry
                            continue
            entry = long_way(raw, line)
            if entry is not None:
                yield entry


def _common(obj: dict[str, Any], name: str, line: int) -> Entry | None:
    """The entry of an object of common keys when nothing would be said of it (see :func:`_entries`): the
    values :func:`_entry` gives it; None for any other, which the long way reads.  The pure twin of
    ``_jsonl_c.common`` (which ``_jsonl_c.Lines`` calls): the two give the same entry, or None, for every object."""
    loc = obj.get("loc")
    if loc.__class__ is not str or len(loc) >= MAX_LOC_LENGTH or "@" in loc or _PLAIN_LOC(loc) is None:
        return None  # check_loc(loc) is None, the long way shorter: a plain loc without userinfo
    lastmod = obj.get("lastmod")
    changefreq = obj.get("changefreq")
    priority = obj.get("priority")
    images: Any = obj.get("images")
    try:
        if lastmod is not None:
            if lastmod.__class__ is not str:
                return None
            lastmod = W3CDate(lastmod)
        if changefreq is not None:
            changefreq = _CHANGEFREQS.get(changefreq)  # as the protocol spells it; unhashable: TypeError
            if changefreq is None:
                return None
        if priority is not None:
            if priority.__class__ is not Decimal:
                return None
            priority = _EXACT.get(priority)  # a fraction met before, exact and in range
            if priority is None:
                return None
    except (ValueError, TypeError):  # a lastmod that _entry repairs or reports; a list for a changefreq
        return None
    if images is None:
        images = ()
    elif images.__class__ is list:
        pictures = []
        for item in images:
            if item.__class__ is not dict or len(item) != 1 or (image_loc := item.get("loc")).__class__ is not str:
                return None
            image = _new_object(Image)  # blank_image(), inlined
            image.loc = image_loc
            image.caption = image.geo_location = image.title = image.license = None
            pictures.append(image)
        images = tuple(pictures)
    else:
        return None
    origin = _new_tuple(Position, (name, line))  # new_position, inlined
    return full_entry(loc, lastmod, changefreq, priority, None, None, (), None, images, (), {}, origin)


#: The long way of a line: (its bytes or None, its line) -> its entry or None, having said what it says.
LongWay = Callable[[bytes | None, int], "Entry | None"]
#: The loop over a file's lines: (its blocks, the line before them, the source's name, the long way) -> entries.
LinesLoop = Callable[[Iterable[Block], int, str, LongWay], Iterator[Entry]]


def _on(name: str) -> bool:
    return os.environ.get(name, "0") not in ("", "0")


def lines_loop() -> LinesLoop:
    """The loop to use now (read once per file): the compiled twin (``_jsonl_c.Lines``) where it is built, unless
    ``FEEDMAP_PURE`` is set (not to ``0``), else :func:`_lines`.  Both give the same entries and hand the same
    lines to the long way.  With ``FEEDMAP_REQUIRE_ACCEL=1`` (CI) a missing compiled twin, or one that cannot
    build its entries by direct slot stores (``_jsonl_c.DIRECT_BUILD`` off: Entry, Image or W3CDate grew), is an
    ImportError, as a missing compiled pass is (:mod:`feedmap.converters._pass`)."""
    if _on("FEEDMAP_PURE"):
        return _lines
    try:
        from feedmap.formats.lines import _jsonl_c
    except ImportError:
        if _on("FEEDMAP_REQUIRE_ACCEL"):
            raise
        return _lines
    if not _jsonl_c.DIRECT_BUILD and _on("FEEDMAP_REQUIRE_ACCEL"):
        raise ImportError(
            "feedmap's compiled jsonl reader cannot build entries by direct slot stores (DIRECT_BUILD is off: "
            "Entry, Image or W3CDate is not the shape _jsonl_c.pyx's builders know); FEEDMAP_REQUIRE_ACCEL is set"
        )
    return _jsonl_c.Lines


def accelerated() -> bool:
    """True when the reader's lines take the compiled twin (built and loaded, ``FEEDMAP_PURE`` not set) in full:
    building entries by direct slot stores (without them it runs, slower, and is not counted)."""
    try:
        loop = lines_loop()
    except ImportError:  # missing or without the direct build, with FEEDMAP_REQUIRE_ACCEL set
        return False
    if loop is _lines:
        return False
    from feedmap.formats.lines import _jsonl_c

    return bool(_jsonl_c.DIRECT_BUILD)


def _long_way(raw: bytes | None, line: int, ctx: Context) -> Entry | None:
    """The entry of a line that is not common (or None): every check of the line, then of its object."""
    obj = _object(raw, line, ctx)
    if obj is None:
        return None
    if "loc" not in obj:
        ctx.warning("loc-missing", "object without 'loc' (only the first line may be a header); skipped", line)
        return None
    return _checked(obj, ctx, line)


_PLAIN_LOC = _PLAIN_LOC_NO_USERINFO.fullmatch
_new_object = object.__new__


def _checked(obj: dict[str, Any], ctx: Context, line: int) -> Entry | None:
    try:
        return _entry(obj, ctx, line)
    except Bad as exc:
        ctx.warning("invalid-value", f"{exc}; line skipped", line)
        return None


def read(source: Source, *, ctx: Context) -> Document:
    return read_window(source.stream, ctx)


def read_window(stream: Readable, ctx: Context, line: int = 0, header: bool = True) -> Document:
    """The document of the lines of ``stream`` (all of a file, or the lines of a part of one), the first line
    numbered ``line + 1`` (a BOM is taken off only line 1); ``header``: no object came before them, so their
    first may be the file's header (its metadata, or a ReadError at once for a header that is invalid)."""
    blocks: Iterator[Block] = iter(bounded_line_blocks(stream, ctx.options.max_line_bytes))
    meta = DocMeta()
    first = None
    if header:
        first, line, rest = _first(blocks, ctx, line)
        meta, first = _header(first, line, ctx)
        blocks = itertools.chain((rest,), blocks)
    return Document(meta, _entries(first, line, blocks, ctx), diagnostics=ctx.reporter.diagnostics)


def _header(first: dict[str, Any] | None, line: int, ctx: Context) -> tuple[DocMeta, dict[str, Any] | None]:
    """The file's metadata and its first entry's object, from its first object (``first``, on line ``line``)."""
    if first is None or "loc" in first:
        return DocMeta(), first
    unknown = set(first) - _META_KEYS
    if unknown:
        ctx.warning("unknown-key", f"unknown header keys {', '.join(sorted(unknown))} ignored", line)
    try:
        return _meta(first), None
    except Bad as exc:
        raise ReadError(f"invalid header line: {exc}", source=ctx.name, line=line, code="invalid-value") from None


def first_object(stream: Readable, ctx: Context) -> tuple[DocMeta, int]:
    """The metadata of the JSON lines file ``stream`` and the line of its first object (0: it has none), read
    as :func:`read` reads them before its first entry (a header that is invalid is its ReadError): whether a
    part of the file may hold the header."""
    first, line, _ = _first(iter(bounded_line_blocks(stream, ctx.options.max_line_bytes)), ctx)
    meta, _ = _header(first, line, ctx)
    return meta, line if first is not None else 0


def _first_entry(obj: dict[str, Any] | None, line: int, ctx: Context) -> Iterator[Entry]:
    """The entry of the file's first object when it is one (not a header)."""
    entry = _checked(obj, ctx, line) if obj is not None else None
    if entry is not None:
        yield entry


FORMAT = FormatSpec(
    name="jsonl",
    title="JSON Lines (the feedmap IR, one object per entry)",
    extensions=(".jsonl", ".ndjson"),
    media_types=("application/jsonl", "application/x-ndjson", "application/x-jsonlines"),
    content="json",
    priority=0,
    reader=read,
    writer=write,
    fields=frozenset(ENTRY_FIELDS),
    description="lossless: every IR field; optional first header line with document metadata",
)
