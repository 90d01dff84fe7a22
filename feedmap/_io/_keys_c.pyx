# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled twin of :class:`feedmap._io.seen_keys.SeenKeys`: the same mapping of keys to ints in first-seen
order, with a compact table between the dict and SQLite.

Three tiers, each past the budget of the one before: a dict (the keys as Python objects, as in the pure twin, up
to ``in_memory`` keys or ``text_budget`` characters of text), then an open-addressing hash table in C arrays
(linear probing; Knuth, TAOCP vol. 3, 6.4, algorithm L), then the pure twin's SQLite tier
(:class:`feedmap._io.seen_keys.DiskKeys`) past ``table_bytes``.  The dict's keys move into the table in their
order when it is full.

The table.  A slot is one 64-bit word: the upper 32 bits of the key's mixed hash (its tag, which also gives the
slot a probe starts at) and the key's index + 1 (0: an empty slot); the slots double when 7 in 10 are used.  By
index, in first-seen order: the key (an ``int`` of 64 bits as itself, a text as the offset of its stored form),
the stored form's size (``_INT`` for an int) and the value (an int of 64 bits; any other in ``_big``).  A key's
hash is Python's (``hash()``: a text's is cached in it) or, for an int, the int itself, run through MurmurHash3's
64-bit finaliser (``fmix64``) so that the tag and the slot take every bit of it; ``hash_mask`` narrows it first
(tests force collisions this way).  A tag says only "maybe": the key is then compared exactly, an int as an int,
a text by its stored form, which is the text itself (its kind byte, 1, 2 or 4, then CPython's compact code
units: one string has one such form, PEP 393), an int too big for 64 bits by its decimal digits (kind byte 0):
two keys are one only when they are equal, and an int never equals a text.

The stored forms of texts: in memory up to ``text_budget`` bytes, then appended to a scratch file
(``make_file()``: ``write(data)``, ``read(offset, size)``, ``close()``) through a buffer of ``write_bytes``, and read back only when a tag matches.  What a key costs: 20 bytes by index (key word, size, value) and
8 bytes a slot at 1.43 to 2.86 slots a key: 31 to 43 bytes, plus its text until the budget is spent.  The
table stops growing (``table_bytes``: its slots and arrays) and later keys go to SQLite.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.stdint cimport INT64_MIN, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcmp, memcpy


cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_ssize_t PyUnicode_GET_LENGTH(object text)
    long long PyLong_AsLongLongAndOverflow(object number, int* overflow) except? -1
    Py_hash_t PyObject_Hash(object key) except -1


cdef uint32_t _INT = 0xFFFFFFFFU  # the size of an int key
cdef int64_t _BIG = INT64_MIN  # a value held in _big
cdef Py_ssize_t _LONGEST = 0x7FFFFFF0  # the largest stored form (sizes are 32 bits)


cdef inline uint64_t _mix(uint64_t h) noexcept:
    h ^= h >> 33
    h *= 0xFF51AFD7ED558CCDULL
    h ^= h >> 33
    h *= 0xC4CEB9FE1A85EC53ULL
    h ^= h >> 33
    return h


cdef struct _Key:
    bint number  # an int of 64 bits
    int64_t word
    const char* data  # a text's code units (or digits)
    Py_ssize_t size  # bytes at data
    unsigned char kind
    uint64_t hash


cdef class SeenKeys:
    """See :class:`feedmap._io.seen_keys.SeenKeys` (same methods, same results)."""

    cdef dict _memory
    cdef Py_ssize_t _memory_bytes, _cap, _text_budget, _table_bytes
    cdef uint64_t _hash_mask
    cdef object _make_disk, _make_file
    cdef object _disk  # past the table: the SQLite tier
    cdef bint _table  # past the dict
    cdef bint _full  # the table takes no more keys
    cdef uint64_t* _slots
    cdef Py_ssize_t _slot_mask, _used, _capacity
    cdef int64_t* _words
    cdef int64_t* _values
    cdef uint32_t* _sizes
    cdef dict _big
    cdef char* _text
    cdef Py_ssize_t _text_used, _text_capacity
    cdef bint _on_file
    cdef char* _pending
    cdef Py_ssize_t _pending_used, _write_bytes
    cdef int64_t _flushed
    cdef object _file

    def __init__(
        self,
        Py_ssize_t in_memory,
        Py_ssize_t text_budget,
        Py_ssize_t table_bytes,
        int hash_bits,
        Py_ssize_t write_bytes,
        object make_disk,
        object make_file,
    ):
        self._memory = {}
        self._big = {}
        self._cap = in_memory
        self._text_budget = text_budget
        self._table_bytes = table_bytes
        self._hash_mask = 0xFFFFFFFFFFFFFFFFULL if hash_bits >= 64 else (1ULL << max(hash_bits, 0)) - 1
        self._write_bytes = max(write_bytes, 1)
        self._make_disk = make_disk
        self._make_file = make_file

    def __dealloc__(self):
        self._release()

    # --------------------------------------------------------------------------------------- the methods

    def get(self, key):
        return self._get(key)

    cdef object _get(self, object key):
        cdef _Key k
        cdef Py_ssize_t where, index
        if not self._table:
            return self._memory.get(key)
        holder = self._read_key(key, &k)
        index = self._find(&k, &where)
        if index >= 0:
            return self._value(index)
        if self._disk is not None:
            return self._disk.get(key)
        return None

    def add(self, key, value):
        """A new key, placed after every other."""
        self._add(key, value)

    def add_block_new(self, list keys, Py_ssize_t first):
        """Each of ``keys`` added with the values ``first``, ``first + 1``, ... when none is held and none is
        there twice, and whether they were; else none is added."""
        cdef Py_ssize_t index, count = len(keys)
        for index in range(count):
            if self._get(keys[index]) is not None:
                return False
        if len(set(keys)) != count:
            return False
        for index in range(count):
            self._add(keys[index], first + index)
        return True

    cdef int _add(self, object key, object value) except -1:
        cdef _Key k
        cdef Py_ssize_t where, index
        if not self._table:
            self._memory[key] = value
            self._memory_bytes += PyUnicode_GET_LENGTH(key) if isinstance(key, str) else 8
            if len(self._memory) >= self._cap or self._memory_bytes >= self._text_budget:
                self._spill()
            return 0
        holder = self._read_key(key, &k)
        index = self._find(&k, &where)
        if index >= 0:  # a key get found: the dict's way, a new value in its place
            self._set_value(index, value)
        elif self._full:
            self._past(key, value)
        else:
            self._insert(key, &k, where, value)
        return 0

    def add_new(self, key, value):
        """:meth:`add` ``key`` if :meth:`get` would not find it: whether it was new."""
        return self._add_new(key, value) == 1

    def add_block(self, list keys, value):
        """:meth:`add_new` of each of ``keys`` in turn: None when each was new, else whether each was."""
        cdef Py_ssize_t index, count = len(keys)
        cdef list kept
        for index in range(count):
            if self._add_new(keys[index], value) == 0:
                kept = [True] * index
                kept.append(False)
                for index in range(index + 1, count):
                    kept.append(self._add_new(keys[index], value) == 1)
                return kept
        return None

    cdef int _add_new(self, object key, object value) except -1:
        cdef _Key k
        cdef Py_ssize_t where
        if not self._table:
            if key in self._memory:
                return 0
            self._add(key, value)
            return 1
        holder = self._read_key(key, &k)
        if self._find(&k, &where) >= 0:
            return 0
        if self._full:
            if self._disk is not None and self._disk.get(key) is not None:
                return 0
            self._past(key, value)
            return 1
        self._insert(key, &k, where, value)
        return 1

    def replace(self, key, value):
        """A new value for a key seen before; the key keeps its place."""
        cdef _Key k
        cdef Py_ssize_t where, index
        if not self._table:
            self._memory[key] = value
            return
        holder = self._read_key(key, &k)
        index = self._find(&k, &where)
        if index >= 0:
            self._set_value(index, value)
        elif self._disk is not None:
            self._disk.replace(key, value)
        else:  # a key never added: as the dict does, a new one
            self._insert(key, &k, where, value)

    def values(self):
        """The values in the keys' first-seen order."""
        cdef Py_ssize_t index
        if not self._table:
            yield from list(self._memory.values())
            return
        index = 0
        while index < self._used:
            yield self._value(index)
            index += 1
        if self._disk is not None:
            yield from self._disk.values()

    def close(self):
        """Forget every key; remove the scratch file and the database."""
        self._memory, self._big = {}, {}
        self._memory_bytes = 0
        self._release()
        self._table = self._full = False
        disk, self._disk = self._disk, None
        file, self._file = self._file, None
        try:
            if file is not None:
                file.close()
        finally:
            if disk is not None:
                disk.close()

    # ------------------------------------------------------------------------------------------ the tiers

    cdef _spill(self):
        """The dict is full: its keys move into the table, in their order (past its cap, to SQLite)."""
        cdef _Key k
        cdef Py_ssize_t where
        memory, self._memory = self._memory, {}
        self._memory_bytes = 0
        self._table = True
        if not self._grow_slots():
            self._full = True
        for key, value in memory.items():
            if self._full:
                self._past(key, value)
                continue
            holder = self._read_key(key, &k)
            self._find(&k, &where)
            self._insert(key, &k, where, value)

    cdef _past(self, key, value):
        """A key past the table, to the SQLite tier (made at the first)."""
        if self._disk is None:
            self._disk = self._make_disk()
        self._disk.add(key, value)

    cdef _insert(self, key, _Key* k, Py_ssize_t where, value):
        """A key not in the table at slot ``where`` (its probe's empty slot); to SQLite once the table is full."""
        cdef Py_ssize_t index = self._used
        if not self._full and index == self._capacity and not self._grow_entries():
            self._full = True
        if not self._full and (index + 1) * 10 > (self._slot_mask + 1) * 7:
            if self._grow_slots():
                where = self._empty_slot(k.hash)
            else:
                self._full = True
        if self._full:
            self._past(key, value)
            return
        if k.number:
            self._words[index] = k.word
            self._sizes[index] = _INT
        else:
            self._words[index] = self._store(k)
            self._sizes[index] = <uint32_t>(k.size + 1)
        self._used = index + 1
        self._set_value(index, value)
        self._slots[where] = ((k.hash >> 32) << 32) | <uint64_t>(index + 1)

    cdef object _value(self, Py_ssize_t index):
        cdef int64_t value = self._values[index]
        if value == _BIG:
            return self._big[index]
        return value

    cdef _set_value(self, Py_ssize_t index, value):
        cdef int overflow = 0
        cdef long long number = PyLong_AsLongLongAndOverflow(value, &overflow)
        if overflow or number == _BIG:
            self._values[index] = _BIG
            self._big[index] = value
        else:
            self._values[index] = number
            if self._big:
                self._big.pop(index, None)

    # ------------------------------------------------------------------------------------------ the table

    cdef object _read_key(self, key, _Key* k):
        """``k`` filled from ``key``; what holds the bytes it points at (keep it while ``k`` is used)."""
        cdef int overflow = 0
        if isinstance(key, str):
            k.number = False
            k.kind = <unsigned char>PyUnicode_KIND(key)
            k.data = <const char*>PyUnicode_DATA(key)
            k.size = PyUnicode_GET_LENGTH(key) * k.kind
            k.hash = _mix(<uint64_t>PyObject_Hash(key) & self._hash_mask)
            holder = key
        elif isinstance(key, int):
            k.word = PyLong_AsLongLongAndOverflow(key, &overflow)
            if not overflow:
                k.number = True
                k.hash = _mix(<uint64_t>k.word & self._hash_mask)
                return None
            holder = str(int(key)).encode("ascii")
            k.number = False
            k.kind = 0
            k.data = PyBytes_AS_STRING(holder)
            k.size = len(holder)
            k.hash = _mix(<uint64_t>PyObject_Hash(key) & self._hash_mask)
        else:
            raise TypeError(f"a key is an int or a str, not {type(key).__name__}")
        if k.size + 1 > _LONGEST:
            raise OverflowError("a key of more than 2 GB")
        return holder

    cdef Py_ssize_t _find(self, _Key* k, Py_ssize_t* where) except -2:
        """The index of ``k`` in the table, or -1 with ``where`` its probe's empty slot."""
        cdef uint64_t tag = k.hash >> 32
        cdef Py_ssize_t slot = <Py_ssize_t>(tag & <uint64_t>self._slot_mask)
        cdef uint64_t word
        cdef Py_ssize_t index
        if self._slots == NULL:  # a table of no room
            where[0] = 0
            return -1
        while True:
            word = self._slots[slot]
            if word == 0:
                where[0] = slot
                return -1
            if (word >> 32) == tag:
                index = <Py_ssize_t>(word & 0xFFFFFFFFULL) - 1
                if self._same(index, k):
                    return index
            slot = (slot + 1) & self._slot_mask

    cdef Py_ssize_t _empty_slot(self, uint64_t hash) noexcept:
        cdef Py_ssize_t slot = <Py_ssize_t>((hash >> 32) & <uint64_t>self._slot_mask)
        while self._slots[slot] != 0:
            slot = (slot + 1) & self._slot_mask
        return slot

    cdef int _same(self, Py_ssize_t index, _Key* k) except -1:
        cdef uint32_t size = self._sizes[index]
        cdef int64_t offset, in_file
        cdef const char* stored
        if k.number:
            return size == _INT and self._words[index] == k.word
        if size == _INT or size != <uint32_t>(k.size + 1):
            return 0
        offset = self._words[index]
        if offset < self._text_used:
            stored = self._text + offset
        else:
            in_file = offset - self._text_used
            if in_file >= self._flushed:
                stored = self._pending + (in_file - self._flushed)
            else:
                read = self._file.read(in_file, size)
                if len(read) != size:
                    return 0
                stored = PyBytes_AS_STRING(read)
                return stored[0] == <char>k.kind and memcmp(stored + 1, k.data, k.size) == 0
        return stored[0] == <char>k.kind and memcmp(stored + 1, k.data, k.size) == 0

    cdef int64_t _store(self, _Key* k) except -1:
        """The offset of ``k``'s stored form, kept in memory until the budget is spent, then in the file."""
        cdef Py_ssize_t size = k.size + 1
        cdef Py_ssize_t capacity
        cdef char* grown
        cdef int64_t offset
        if not self._on_file and self._text_used + size <= self._text_budget:
            if self._text_used + size > self._text_capacity:
                capacity = max(self._text_capacity * 2, self._text_used + size, 1 << 16)
                capacity = min(capacity, max(self._text_budget, self._text_used + size))
                grown = <char*>realloc(self._text, capacity)
                if grown == NULL:
                    raise MemoryError()
                self._text, self._text_capacity = grown, capacity
            offset = self._text_used
            self._text[offset] = <char>k.kind
            memcpy(self._text + offset + 1, k.data, k.size)
            self._text_used += size
            return offset
        if not self._on_file:
            self._file = self._make_file()
            self._pending = <char*>realloc(NULL, self._write_bytes)
            if self._pending == NULL:
                raise MemoryError()
            self._on_file = True
        offset = self._text_used + self._flushed + self._pending_used
        if self._pending_used + size > self._write_bytes:
            self._flush()
        if size > self._write_bytes:  # a text longer than the buffer: written as it is
            self._file.write(bytes([k.kind]) + PyBytes_FromStringAndSize(k.data, k.size))
            self._flushed += size
            return offset
        self._pending[self._pending_used] = <char>k.kind
        memcpy(self._pending + self._pending_used + 1, k.data, k.size)
        self._pending_used += size
        return offset

    cdef _flush(self):
        if self._pending_used:
            self._file.write(PyBytes_FromStringAndSize(self._pending, self._pending_used))
            self._flushed += self._pending_used
            self._pending_used = 0

    cdef bint _grow_entries(self) except -1:
        """Room for half as many keys again, unless the table would pass its bytes."""
        cdef Py_ssize_t capacity = max(self._capacity + self._capacity // 2, 16)
        if capacity * 20 + (self._slot_mask + 1) * 8 > self._table_bytes or capacity >= 0xFFFFFFFE:
            return False
        cdef int64_t* words = <int64_t*>realloc(self._words, capacity * sizeof(int64_t))
        if words == NULL:
            raise MemoryError()
        self._words = words
        cdef int64_t* values = <int64_t*>realloc(self._values, capacity * sizeof(int64_t))
        if values == NULL:
            raise MemoryError()
        self._values = values
        cdef uint32_t* sizes = <uint32_t*>realloc(self._sizes, capacity * sizeof(uint32_t))
        if sizes == NULL:
            raise MemoryError()
        self._sizes = sizes
        self._capacity = capacity
        return True

    cdef bint _grow_slots(self) except -1:
        """Twice the slots (16 at first), every key placed again, unless the table would pass its bytes."""
        cdef Py_ssize_t count = (self._slot_mask + 1) * 2 if self._slots != NULL else 16
        cdef Py_ssize_t old = self._slot_mask + 1 if self._slots != NULL else 0
        cdef Py_ssize_t slot, place
        cdef uint64_t word
        if self._capacity * 20 + count * 8 > self._table_bytes:
            return False
        cdef uint64_t* slots = <uint64_t*>calloc(count, sizeof(uint64_t))
        if slots == NULL:
            raise MemoryError()
        for slot in range(old):
            word = self._slots[slot]
            if word != 0:
                place = <Py_ssize_t>((word >> 32) & <uint64_t>(count - 1))
                while slots[place] != 0:
                    place = (place + 1) & (count - 1)
                slots[place] = word
        free(self._slots)
        self._slots = slots
        self._slot_mask = count - 1
        return True

    cdef void _release(self) noexcept:
        free(self._slots)
        free(self._words)
        free(self._values)
        free(self._sizes)
        free(self._text)
        free(self._pending)
        self._slots = NULL
        self._words = self._values = NULL
        self._sizes = NULL
        self._text = self._pending = NULL
        self._slot_mask = self._used = self._capacity = 0
        self._text_used = self._text_capacity = self._pending_used = 0
        self._flushed = 0
        self._on_file = False
