"""The keys a dedupe has seen, each with an int, in first-seen order: in a dict, a compact table, then SQLite.

One job: :class:`SeenKeys`, the memory of :mod:`feedmap.converters._duplicates`, of validate's repeats and of the
text lane.  Up to :data:`IN_MEMORY` keys (and :data:`IN_MEMORY_BYTES` of key text: a key may be a long URL) live
in a dict (about 100-150 bytes a key).  Past it, in the compiled twin (:mod:`feedmap._io._keys_c`, built by
``pip install`` where Cython and a C compiler are found), they move into an open-addressing table of C arrays:
31 to 43 bytes a key (its 64-bit hash's tag and index, its value, its text's place), the texts themselves in
memory up to :data:`IN_MEMORY_BYTES` and then in a scratch file (:mod:`feedmap._io.key_texts`), read back only
when a hash matches; the table grows up to :data:`TABLE_BYTES`.  Past that (the pure twin: past the dict) they
go into a temporary SQLite database (https://www.sqlite.org/, the standard library's :mod:`sqlite3`, DB-API
2.0, PEP 249) in a temporary directory (:func:`feedmap._io.scratch.scratch_folder`), so memory stops growing
with the input.  The database is a scratch file: no journal (``PRAGMA journal_mode=OFF``), no syncing
(``PRAGMA synchronous=OFF``), a page cache of :data:`CACHE_KIB` KiB, and changes written in batches of
:data:`BATCH` keys or :data:`BATCH_BYTES` of key text with ``executemany``.  A row's ``seq`` (its rowid) keeps
the first-seen order: a key changed later keeps its row.  A key is an ``int`` or a ``str``: the column has no
type affinity, so SQLite stores either as given and an integer never equals a text, as in the dict.  A key is
its own identity: a text key is compared whole (by the dict, the table, then SQLite's ``UNIQUE`` index); the
table's hash tags and the Bloom filter in front of the database only say "maybe", which the key's text then
answers.  The scratch file and the database's directory are removed by :meth:`SeenKeys.close`.

The twin in use: the compiled one where it is built and loads, unless ``FEEDMAP_PURE`` is set (not to ``0``),
read each time a :class:`SeenKeys` is made (:func:`compiled_keys`).  Both give the same results for every key.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING, cast

from feedmap._core.errors import SourceError
from feedmap._io.key_texts import TextFile
from feedmap._io.scratch import remove_scratch_folder, scratch_error, scratch_folder

if TYPE_CHECKING:
    import sqlite3

__all__ = [
    "BATCH",
    "BATCH_BYTES",
    "CACHE_KIB",
    "HASH_BITS",
    "IN_MEMORY",
    "IN_MEMORY_BYTES",
    "TABLE_BYTES",
    "TEXT_WRITE_BYTES",
    "DiskKeys",
    "SeenKeys",
    "compiled_keys",
]

#: Keys held in a dict before they move on (to the table, or to SQLite), so that a dedupe's memory stops growing
#: with its URLs (a million URLs with and without the cap: benchmarks/README.md, ``bench_scale.py
#: --compare-in-memory``).
IN_MEMORY = 250_000

#: Characters of text keys held in the dict before they move on (URLs of 100 characters: 160,000); bytes of the
#: texts the compiled table holds in memory before the rest go to its scratch file.
IN_MEMORY_BYTES = 16 << 20

#: Bytes of the compiled table's slots and arrays (the texts aside) past which keys go to SQLite: about 1.5
#: million keys; 0: no table.
TABLE_BYTES = 64 << 20

#: Bits of each key's hash used (64: all); fewer make keys collide (tests use it to prove keys stay exact).
HASH_BITS = 64

#: Bytes of key texts gathered past :data:`IN_MEMORY_BYTES` before one write to the compiled table's scratch file.
TEXT_WRITE_BYTES = 1 << 20

#: Keys added or changed held in memory past the cap before they are written with one ``executemany``.
BATCH = 20_000

#: Characters of text keys held in such a batch before it is written.
BATCH_BYTES = 4 << 20

#: SQLite's page cache, in KiB (``PRAGMA cache_size`` takes a negative number for KiB).
CACHE_KIB = 4096

Key = int | str

_BLOOM_BITS = 1 << 24
_BLOOM_MASK = _BLOOM_BITS - 1
_BLOOM_KEYS = _BLOOM_BITS // 16

_SCHEMA = "CREATE TABLE seen (seq INTEGER PRIMARY KEY, key UNIQUE NOT NULL, value INTEGER NOT NULL)"


class _Bloom:
    """A Bloom filter (Bloom, 1970) over the keys past the cap, given by their hashes: most keys never seen are
    answered without asking the database.  Filters of :data:`_BLOOM_KEYS` keys, 2 MiB each (16 bits a key, three
    probes taken from the key's 64-bit hash: about one false "maybe" in 200), one more each time one fills."""

    def __init__(self) -> None:
        self._filters: list[bytearray] = []
        self._count = _BLOOM_KEYS

    def add(self, h: int) -> None:
        if self._count >= _BLOOM_KEYS:
            self._filters.append(bytearray(_BLOOM_BITS >> 3))
            self._count = 0
        self._count += 1
        bits = self._filters[-1]
        for spot in (h & _BLOOM_MASK, (h >> 20) & _BLOOM_MASK, (h >> 40) & _BLOOM_MASK):
            bits[spot >> 3] |= 1 << (spot & 7)

    def __contains__(self, h: int) -> bool:
        one, two, three = h & _BLOOM_MASK, (h >> 20) & _BLOOM_MASK, (h >> 40) & _BLOOM_MASK
        for bits in self._filters:  # a loop, not any(): no generator made per key asked
            if bits[one >> 3] >> (one & 7) & bits[two >> 3] >> (two & 7) & bits[three >> 3] >> (three & 7) & 1:
                return True
        return False


def _stored(key: Key) -> int | bytes:
    """A key as the database holds it: a text as its UTF-8 bytes, a lone surrogate (a loc built in Python)
    too (``surrogatepass``: SQLite's text is UTF-8 and refuses it), so every text has its own stored form."""
    return key.encode("utf-8", "surrogatepass") if isinstance(key, str) else key


class _Database:
    """The keys past the cap: the ``seen`` table of a database in a temporary directory.  SQLite's errors
    are :class:`SourceError` (:func:`_trouble`)."""

    db: sqlite3.Connection

    def __init__(self) -> None:
        import sqlite3  # at the first spill: ``import feedmap`` and a dedupe within the cap never load SQLite

        self._error: type[Exception] = sqlite3.Error
        self.folder = scratch_folder("feedmap-dedupe-", _WHAT)
        try:
            # one generator uses it at a time, but its consumer may advance it from another thread
            self.db = sqlite3.connect(self.folder / "seen.sqlite3", isolation_level=None, check_same_thread=False)
            for pragma in ("journal_mode=OFF", "synchronous=OFF", f"cache_size=-{CACHE_KIB}", "temp_store=MEMORY"):
                self.db.execute(f"PRAGMA {pragma}")
            self.db.execute(_SCHEMA)
        except BaseException as exc:
            self.close()
            if isinstance(exc, sqlite3.Error):
                raise _trouble(exc) from exc
            raise

    def get(self, key: Key) -> int | None:
        try:
            row = self.db.execute("SELECT value FROM seen WHERE key = ?", (_stored(key),)).fetchone()
        except self._error as exc:
            raise _trouble(exc) from exc
        return None if row is None else int(row[0])

    def write(self, added: dict[Key, int], changed: dict[Key, int]) -> None:
        """Append ``added`` (in their order) and update ``changed``, in one transaction."""
        db = self.db
        try:
            db.execute("BEGIN")
            db.executemany("INSERT INTO seen (key, value) VALUES (?, ?)", ((_stored(k), v) for k, v in added.items()))
            db.executemany("UPDATE seen SET value = ? WHERE key = ?", ((v, _stored(k)) for k, v in changed.items()))
            db.execute("COMMIT")
        except self._error as exc:
            raise _trouble(exc) from exc

    def values(self) -> Iterator[int]:
        try:
            for (value,) in self.db.execute("SELECT value FROM seen ORDER BY seq"):
                yield int(value)
        except self._error as exc:
            raise _trouble(exc) from exc

    def close(self) -> None:
        with contextlib.suppress(AttributeError, self._error):
            self.db.close()
        remove_scratch_folder(self.folder)


_WHAT = "database for repeated URLs"


def _trouble(exc: Exception) -> SourceError:
    return scratch_error(_WHAT, exc)


def _text_file() -> TextFile:
    """The compiled table's scratch file of texts: its errors are said as the database's."""
    return TextFile(_WHAT)


def _hash_mask() -> int:
    return (1 << HASH_BITS) - 1 if HASH_BITS < 64 else -1


def _size(key: Key) -> int:
    """What a key counts against the byte budgets: its characters (an int: 8)."""
    return len(key) if isinstance(key, str) else 8


class DiskKeys:
    """The keys past the memory tiers: a Bloom filter, batches and the database (made here, at the spill).

    The last tier of both twins of :class:`SeenKeys`: :meth:`add` a key it does not hold, :meth:`get`,
    :meth:`replace` one it holds, :meth:`values` once, :meth:`close` always."""

    def __init__(self) -> None:
        try:
            self._db = _Database()  # looked up here: tests count the databases made
        # scratch_folder raises its own SourceError, _Database SQLite's as one; a Python without sqlite3 shows here
        except (OSError, ImportError) as exc:
            raise _trouble(exc) from exc
        self._hash_mask = _hash_mask()
        self._batch_bytes = 0
        self._added: dict[Key, int] = {}  # keys not yet in the database, in order
        self._changed: dict[Key, int] = {}  # new values of keys in the database
        self._bloom = _Bloom()  # every key

    def get(self, key: Key) -> int | None:
        if hash(key) & self._hash_mask not in self._bloom:
            return None
        value = self._added.get(key)
        if value is None:
            value = self._changed.get(key)
        if value is None:
            value = self._db.get(key)
        return value

    def add(self, key: Key, value: int) -> None:
        self._added[key] = value
        self._bloom.add(hash(key) & self._hash_mask)
        self._batch_bytes += _size(key)
        self._batch_done()

    def take(self, keys: dict[Key, int]) -> None:
        """Every key of ``keys`` (none held yet), in its order, written at once."""
        for key in keys:
            self._bloom.add(hash(key) & self._hash_mask)
        self._added = keys
        self.write()

    def replace(self, key: Key, value: int) -> None:
        if key in self._added:
            self._added[key] = value
        else:
            self._changed[key] = value
            self._batch_bytes += _size(key)
            self._batch_done()

    def values(self) -> Iterator[int]:
        self.write()
        yield from self._db.values()

    def close(self) -> None:
        self._added, self._changed = {}, {}
        self._db.close()

    def _batch_done(self) -> None:
        if len(self._added) + len(self._changed) >= BATCH or self._batch_bytes >= BATCH_BYTES:
            self.write()

    def write(self) -> None:
        self._db.write(self._added, self._changed)
        self._added, self._changed = {}, {}
        self._batch_bytes = 0


class SeenKeys:
    """A mapping of keys to ints in first-seen order (a key set again keeps its place), bounded in memory.

    Use :meth:`get` for a key, :meth:`add` for a key :meth:`get` did not find (or :meth:`add_new` for both),
    :meth:`replace` for one it found, :meth:`values` once at the end, and :meth:`close` always.

    ``SeenKeys()`` makes the compiled twin (:mod:`feedmap._io._keys_c`: the same methods and results, with a
    compact table between the dict and the database) where it is built and ``FEEDMAP_PURE`` is not set
    (:func:`compiled_keys`); this class is the pure twin.
    """

    def __new__(cls, in_memory: int | None = None) -> SeenKeys:
        if cls is SeenKeys and compiled_keys():
            assert _compiled is not None
            cap = IN_MEMORY if in_memory is None else in_memory
            made = _compiled.SeenKeys(
                cap, IN_MEMORY_BYTES, TABLE_BYTES, HASH_BITS, TEXT_WRITE_BYTES, DiskKeys, _text_file
            )
            return cast("SeenKeys", made)  # the same methods: a twin, not a subclass (Cython's classes are not)
        return super().__new__(cls)

    def __init__(self, in_memory: int | None = None) -> None:
        self._cap = IN_MEMORY if in_memory is None else in_memory
        self._memory: dict[Key, int] = {}
        self._memory_bytes = 0
        self._disk: DiskKeys | None = None

    def get(self, key: Key) -> int | None:
        if self._disk is None:
            return self._memory.get(key)
        return self._disk.get(key)

    def add(self, key: Key, value: int) -> None:
        """A new key, placed after every other."""
        if self._disk is None:
            memory = self._memory
            memory[key] = value
            self._memory_bytes += len(key) if isinstance(key, str) else 8  # _size, inlined: once per URL
            if len(memory) >= self._cap or self._memory_bytes >= IN_MEMORY_BYTES:
                self._spill()
            return
        self._disk.add(key, value)

    def add_new(self, key: Key, value: int) -> bool:
        """:meth:`add` ``key`` if :meth:`get` would not find it: whether it was new (one call per key
        where only that matters, a streamed dedupe's set of locs)."""
        if self._disk is None:
            if key in self._memory:
                return False
        elif self._disk.get(key) is not None:
            return False
        self.add(key, value)
        return True

    def add_block(self, keys: list[str], value: int) -> list[bool] | None:
        """:meth:`add_new` of each of ``keys`` in turn: None when each was new, else whether each was (one call
        for a block of keys, a batch of locs)."""
        kept = [self.add_new(key, value) for key in keys]
        return None if all(kept) else kept

    def add_block_new(self, keys: list[str], first: int) -> bool:
        """Each of ``keys`` added with the values ``first``, ``first + 1``, ... when none is held and none is
        there twice, and whether they were; else none is added (a text lane's block of URLs and their lines)."""
        get = self.get
        if any(get(key) is not None for key in keys) or len(set(keys)) != len(keys):
            return False
        for value, key in enumerate(keys, first):
            self.add(key, value)
        return True

    def replace(self, key: Key, value: int) -> None:
        """A new value for a key seen before; the key keeps its place."""
        if self._disk is None:
            self._memory[key] = value
        else:
            self._disk.replace(key, value)

    def values(self) -> Iterator[int]:
        """The values in the keys' first-seen order."""
        if self._disk is None:
            yield from list(self._memory.values())
            return
        yield from self._disk.values()

    def close(self) -> None:
        """Forget every key; remove the database and its directory."""
        self._memory = {}
        self._memory_bytes = 0
        if self._disk is not None:
            self._disk.close()
            self._disk = None

    def _spill(self) -> None:
        self._disk = DiskKeys()
        memory, self._memory = self._memory, {}
        self._memory_bytes = 0
        self._disk.take(memory)


def _load_compiled() -> ModuleType | None:
    """The compiled twin, where it was built and loads (it imports nothing but the standard library)."""
    try:
        from feedmap._io import _keys_c
    except ImportError:  # not built: the pure twin does the same
        return None
    return _keys_c


def compiled_keys() -> bool:
    """True when :class:`SeenKeys` makes its compiled twin (built and loaded, and ``FEEDMAP_PURE`` not set)."""
    return _compiled is not None and os.environ.get("FEEDMAP_PURE", "0") in ("", "0")


_compiled = _load_compiled()
