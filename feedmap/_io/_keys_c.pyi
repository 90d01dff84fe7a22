"""Type stub of the compiled twin (``_keys_c.pyx``) of :class:`feedmap._io.seen_keys.SeenKeys`."""

from collections.abc import Callable, Iterator

from feedmap._io.key_texts import TextFile
from feedmap._io.seen_keys import DiskKeys

class SeenKeys:
    def __init__(
        self,
        in_memory: int,
        text_budget: int,
        table_bytes: int,
        hash_bits: int,
        write_bytes: int,
        make_disk: Callable[[], DiskKeys],
        make_file: Callable[[], TextFile],
    ) -> None: ...
    def get(self, key: int | str) -> int | None: ...
    def add(self, key: int | str, value: int) -> None: ...
    def add_new(self, key: int | str, value: int) -> bool: ...
    def replace(self, key: int | str, value: int) -> None: ...
    def values(self) -> Iterator[int]: ...
    def close(self) -> None: ...
