"""What every writer shares: the sitemaps.org size limits, batched output, and URLs as they are written.

Spec: https://www.sitemaps.org/protocol.html ("Sitemap file location" and "Using Sitemap index files": at
most 50,000 URLs and 50 MiB (52,428,800 bytes) uncompressed per file, for XML and text sitemaps alike);
URLs are written as URIs (RFC 3986), an IRI converted per RFC 3987 §3.1 by :func:`feedmap._core.urls.encode_url`.
"""

from __future__ import annotations

import bisect
import itertools
from typing import BinaryIO

from feedmap._core.context import Context
from feedmap._core.entry_checks import where
from feedmap._core.limits import PROTOCOL_MAX_BYTES, PROTOCOL_MAX_URLS
from feedmap._core.model import Entry
from feedmap._core.urls import encode_url_checked, is_uri, not_in_iris
from feedmap.formats._registry import Rendered

__all__ = [
    "BATCH_CHARACTERS",
    "MAX_BYTES",
    "MAX_URLS",
    "BlockBatches",
    "SizeWatch",
    "encoded_url",
    "output_url",
    "write_batch",
    "write_blocks",
]

MAX_URLS = PROTOCOL_MAX_URLS
MAX_BYTES = PROTOCOL_MAX_BYTES

#: Characters of rendered blocks gathered before they are written, whatever their count: a batch of big
#: entries (900 KB descriptions) is written as soon as it holds this much.
BATCH_CHARACTERS = 1 << 20


class SizeWatch:
    """Counts what is written; warns once when the file passes the protocol's URL-count or uncompressed-size
    limit (unless ``warn`` is False: the format says it its own way)."""

    def __init__(self, ctx: Context, what: str, *, warn: bool = True) -> None:
        self.ctx = ctx
        self.warn = warn
        self.what = what
        self.count = 0
        self.size = 0
        self._warned_count = False
        self._warned_size = False

    def add(self, entries: int, size: int) -> None:
        self.count += entries
        self.size += size
        if not self.warn:
            return
        if self.count > MAX_URLS and not self._warned_count:
            self._warned_count = True
            self.ctx.warning(
                "too-many-entries",
                f"more than {MAX_URLS:,} {self.what} in one file; the protocol asks to split it",
            )
        if self.size > MAX_BYTES and not self._warned_size:
            self._warned_size = True
            self.ctx.warning(
                "too-many-bytes",
                f"output passes {MAX_BYTES:,} bytes uncompressed; the protocol asks to split it",
            )


def write_blocks(sink: BinaryIO, rendered: Rendered, watch: SizeWatch, *, batch: int = 512) -> int:
    """Write a rendered document (header, blocks, footer) in batches of ``batch`` blocks or
    :data:`BATCH_CHARACTERS`, whichever comes first; returns the number of blocks.

    The header goes out with the first batch of blocks (or with the footer), so that a run stopping before
    its first entry (an input that fails, ``--strict``) leaves no half document on a stream that cannot be
    taken back, such as standard output.  No block written: the format's ``empty-document`` warning, said
    before anything is written.
    """
    head = rendered.header.encode("utf-8")
    pending: list[str] = []
    count = characters = 0
    for _entry, block in rendered.items:
        pending.append(block)
        characters += len(block)
        if len(pending) >= batch or characters >= BATCH_CHARACTERS:
            write_batch(sink, watch, head, pending)
            head = b""
            count += len(pending)
            pending.clear()
            characters = 0
    if pending:
        write_batch(sink, watch, head, pending)
        head = b""
        count += len(pending)
    if count == 0:
        watch.ctx.warning("empty-document", rendered.empty)
    data = head + rendered.footer.encode("utf-8")
    sink.write(data)
    watch.add(0, len(data))
    return count


def write_batch(sink: BinaryIO, watch: SizeWatch, head: bytes, blocks: list[str]) -> None:
    """Write ``head`` (the header, before the first batch; else empty) and a batch of blocks."""
    data = head + "".join(blocks).encode("utf-8")
    sink.write(data)
    watch.add(len(blocks), len(data))


class BlockBatches:
    """What :func:`write_blocks` writes, for writers that hand over blocks one by one or lines in runs: blocks in
    batches of ``batch`` blocks or :data:`BATCH_CHARACTERS`, whichever comes first, the ``head`` with the first
    (the same writes, so that a stream that cannot be taken back holds the same when a run stops)."""

    def __init__(self, sink: BinaryIO, watch: SizeWatch, batch: int, head: bytes = b"") -> None:
        self.sink, self.watch, self.batch, self.head = sink, watch, batch, head
        self.pending: list[str] = []
        self.blocks = 0  # in pending
        self.characters = 0  # in pending
        self.count = 0  # written

    def add(self, block: str) -> None:
        self.pending.append(block)
        self.blocks += 1
        self.characters += len(block)
        if self.blocks >= self.batch or self.characters >= BATCH_CHARACTERS:
            self.flush()

    def add_lines(self, locs: list[str], text: str | None = None) -> None:
        """The blocks ``loc + LF`` of ``locs``, each written as :meth:`add` would (``text``: ``locs`` joined by
        LF, when the caller has it)."""
        if text is None:
            text = "\n".join(locs)
        while locs:
            room = self.batch - self.blocks
            characters = len(text) + 1
            if len(locs) < room and self.characters + characters < BATCH_CHARACTERS:
                self.pending.append(text + "\n")
                self.blocks += len(locs)
                self.characters += characters
                return
            taken = min(room, len(locs))
            if self.characters + characters >= BATCH_CHARACTERS:  # the batch may fill by its characters first
                ends = list(itertools.accumulate(len(loc) + 1 for loc in locs))
                taken = min(taken, bisect.bisect_left(ends, BATCH_CHARACTERS - self.characters) + 1)
            head = locs[:taken]
            self.pending.append("\n".join(head) + "\n")
            self.blocks += taken
            self.characters += sum(map(len, head)) + taken
            if self.blocks >= self.batch or self.characters >= BATCH_CHARACTERS:
                self.flush()
            locs = locs[taken:]
            text = "\n".join(locs)

    def flush(self) -> None:
        data = self.head + "".join(self.pending).encode("utf-8")
        self.head = b""
        self.sink.write(data)
        self.watch.add(self.blocks, len(data))
        self.count += self.blocks
        self.pending.clear()
        self.blocks = self.characters = 0

    def finish(self, footer: str, empty: str) -> int:
        """The last batch, then the footer (the ``empty-document`` warning ``empty`` first when no block was
        written), as :func:`write_blocks` ends; the number of blocks written."""
        if self.pending:
            self.flush()
        if self.count == 0:
            self.watch.ctx.warning("empty-document", empty)
        data = self.head + footer.encode("utf-8")
        self.head = b""
        self.sink.write(data)
        self.watch.add(0, len(data))
        return self.count


def output_url(url: str, ctx: Context, entry: Entry | None = None) -> str:
    """The URL as an XML output writes it: an IRI becomes a URI (each change reported, ``url-encoded``),
    unless ``--keep-urls`` (then a URL holding blanks or characters no URI holds is reported, ``url-not-encoded``).
    ``entry``: the entry the URL belongs to, whose source and line a host kept as read is reported at."""
    options = ctx.options
    if options.keep_urls and not options.encode_urls:
        bad = not_in_iris(url)
        if bad:
            message = f"{url!r} holds {bad}, which no URI or IRI may; written as read (URLs kept as read)"
            ctx.warning("url-not-encoded", message)
        return url
    return encoded_url(url, ctx, entry)


def encoded_url(url: str, ctx: Context, entry: Entry | None = None) -> str:
    """``url`` as a URI (:func:`feedmap._core.urls.encode_url`); a change is reported (``url-encoded``), and so is
    a host that has no IDNA form, kept as read (WARNING ``host-not-encoded``, at ``entry``'s source and line)."""
    if is_uri(url):
        return url  # nearly every URL: nothing to encode, one regex call
    encoded, problem = encode_url_checked(url)
    if problem is not None:
        source, line = where(entry, ctx) if entry is not None else (ctx.name, 0)
        ctx.reporter.warning("host-not-encoded", f"{url!r}: {problem}", source, line)
    if encoded != url:
        ctx.info("url-encoded", f"{url!r} written as {encoded}")
    return encoded
