"""Which fields of :class:`~feedmap._core.options.Options` each call of the library uses, and the refusal of the others.

One job: :data:`CALL_FIELDS` names the fields each call (``read``, ``write``, ``split``, ``convert``, ``validate``,
...) takes; :func:`refuse_unused` raises ValueError for a field given (other than its default) that the call would
silently ignore, :func:`refuse_splitting` and :func:`refuse_csv_options` for the fields of an output the call does
not write, and :func:`used_by` gives the options a call makes on the way to another (``diff`` reading each side).
"""

from __future__ import annotations

from dataclasses import fields, replace

from feedmap._core.errors import FormatError
from feedmap._core.options import Options

__all__ = ["CALL_FIELDS", "refuse_csv_options", "refuse_splitting", "refuse_unused", "used_by"]

#: How an input is read (and, with ``enrich``, how pages are fetched).
_READING = ("max_bytes", "max_line_bytes", "follow", "follow_child", "max_depth", "concurrency", "http", "maps")
#: Which entries are kept, in which order: the steps between reader and writer.
_SELECTING = (
    *("set", "set_missing"),
    *("since", "until", "require_lastmod", "include", "exclude", "limit", "dedupe", "sort"),
)
#: Pages fetched to fill titles and descriptions (and the fields of reading that say how they are fetched).
_ENRICHING = ("enrich", "overwrite", "page_max_bytes")
_FETCHING = ("max_bytes", "concurrency", "http", "maps")
#: How the output is written.
_WRITING = (
    "schema_location",
    "encode_urls",
    "keep_urls",
    "keep_feed_extras",
    "channel_title",
    "channel_link",
    "channel_description",
    "self_url",
    "channel_author",
    "channel_updated",
)
#: Writing into a directory: files, their names and the index.
_SPLITTING = ("max_urls", "max_file_bytes", "name", "gzip", "index_name", "rebalance")
#: How a CSV file is laid out: ``excel_safe`` is read too; ``explode`` only written (reading takes the header's).
_CSV = ("explode", "excel_safe")

#: The fields each call of the library uses (``strict`` every call uses); a call given another, with a value
#: other than its default, raises ValueError (:func:`refuse_unused`).  ``base_url`` is the base of relative
#: URLs when reading, and the URL the directory is served at when splitting.  Without ``enrich``, no call
#: uses the fields of enrichment, and ``write`` and ``split`` (which read nothing else) those of fetching.
CALL_FIELDS: dict[str, frozenset[str]] = {
    "read": frozenset({"strict", *_READING, "jobs", "dask", "base_url", *_SELECTING, *_ENRICHING, "excel_safe"}),
    # feedmap.dask.read_bag: the workers read; what spans partitions is the writing call's (write_split)
    "read_bag": frozenset({"strict", *_READING, "base_url"}),
    "dask.entries": frozenset({"strict"}),
    # feedmap.to_dataframe reads as read() does; feedmap.dask.to_dataframe's partitions were read by read_bag
    "to_dataframe": frozenset(
        {"strict", *_READING, "jobs", "dask", "base_url", *_SELECTING, *_ENRICHING, "excel_safe"}
    ),
    "dask.to_dataframe": frozenset({"strict"}),
    "to_jsonl": frozenset({"strict"}),
    "write": frozenset({"strict", *_SELECTING, *_ENRICHING, *_FETCHING, *_WRITING, *_CSV}),
    "split": frozenset({"strict", *_SELECTING, *_ENRICHING, *_FETCHING, *_WRITING, "base_url", *_SPLITTING}),
    "convert": frozenset(one.name for one in fields(Options)),
    "enrich": frozenset({"strict", *_ENRICHING, *_FETCHING}),
    "dask.enrich": frozenset({"strict", *_ENRICHING, *_FETCHING}),
    "diff": frozenset({"strict", *_READING, "jobs", "dask", "base_url", "index_name", *_SELECTING}),
    "validate": frozenset({"strict", *_READING, "jobs", "dask", "base_url"}),
    # feedmap.report reads (and validates) each input: the fields of validate
    "report": frozenset({"strict", *_READING, "jobs", "dask", "base_url"}),
    "info": frozenset({"strict", *_READING, "jobs", "dask", "base_url"}),
    "find_sitemaps": frozenset({"strict", *_FETCHING}),
    "sitemap_tree": frozenset({"strict", *_READING}),
}


def _used(options: Options, call: str) -> frozenset[str]:
    """The fields ``call`` uses with these options (:data:`CALL_FIELDS`, less those of enrichment without it)."""
    used = CALL_FIELDS[call]
    if not options.enrich:
        used = used - {"overwrite", "page_max_bytes"} - (set(_FETCHING) if call in ("write", "split") else set())
    if call in ("enrich", "dask.enrich"):  # enrich() is enrichment: it sets enrich itself
        used = CALL_FIELDS[call]
    return used


def refuse_unused(options: Options, call: str) -> None:
    """ValueError naming the fields of ``options`` given a value (other than the default) that ``call``
    cannot use, and the calls that use them: a setting is never silently ignored."""
    used = _used(options, call)
    given = [one.name for one in fields(Options) if getattr(options, one.name) != _DEFAULTS[one.name]]
    unused = [name for name in given if name not in used]
    if not unused:
        return
    listed = ", ".join(unused)
    them = "it is" if len(unused) == 1 else "they are"
    if all(name in CALL_FIELDS[call] for name in unused):  # used only with enrich
        raise ValueError(f"{call}() uses {listed} only with enrich=True: give enrich=True, or leave {listed} out")
    users = sorted({other for name in unused for other, names in CALL_FIELDS.items() if name in names})
    raise ValueError(
        f"{call}() cannot use {listed} (given in its options): {them} used by "
        f"{', '.join(f'{one}()' for one in users)}; leave {listed} out of these options "
        "(dataclasses.replace(options, ...) makes a copy without them)"
    )


def refuse_splitting(options: Options, call: str) -> None:
    """ValueError naming the splitting fields ``options`` gives a value when ``call`` writes one output (no
    directory): they would be silently ignored."""
    given = [name for name in _SPLITTING if getattr(options, name) != _DEFAULTS[name]]
    if given:
        listed = ", ".join(given)
        raise ValueError(
            f"{call}() writes one output here, which cannot use {listed}: they are for writing into a directory "
            f"(give a directory, or split=True); leave {listed} out of these options"
        )


def refuse_csv_options(options: Options, written: str | None, read: str | None = None) -> None:
    """FormatError naming the CSV fields ``options`` gives when no CSV file is written (``explode``), or none is
    read or written (``excel_safe``): ``written`` and ``read`` are the formats written and read (None: none)."""
    if options.explode is not None and written != "csv":
        what = f"the output is {written}" if written is not None else "nothing is written"
        raise FormatError(
            f"explode={options.explode!r} says how a CSV file is written, and {what}: "
            "write CSV, or leave explode out (a CSV file read says its layout in its header)"
        )
    if options.excel_safe and "csv" not in (written, read):
        done = [f"{name} {what}" for what, name in (("read", read), ("written", written)) if name]
        here = f": here {' and '.join(done)}" if done else ""
        raise FormatError(f"excel_safe is for a CSV file read or written{here}; leave it out")


def used_by(options: Options, call: str) -> Options:
    """``options`` with the fields ``call`` cannot use set back to their defaults: for a call the library makes
    on the way to another (``diff`` reading each side), whose caller's fields are not all the inner call's."""
    used = _used(options, call)
    unused = {
        name: _DEFAULTS[name]
        for name in (one.name for one in fields(Options))
        if name not in used and getattr(options, name) != _DEFAULTS[name]
    }
    return replace(options, **unused) if unused else options  # type: ignore[arg-type]


_DEFAULTS: dict[str, object] = {one.name: getattr(Options(), one.name) for one in fields(Options)}
