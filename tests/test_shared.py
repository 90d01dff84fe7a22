"""What the contexts of one run share (:class:`feedmap._core.context.Shared`): one HTTP fetcher, made on first use
by the layer that fetches (:func:`feedmap._io.http.shared_fetcher`) and kept by the run without the context
knowing what it is, shared by every thread, closed when the run ends."""

from __future__ import annotations

import threading

from feedmap import HttpSettings
from feedmap._core.context import Shared
from feedmap._io.http import Fetcher, shared_fetcher


class _Resource:
    def __init__(self, name: str, closed: list[str]) -> None:
        self.name = name
        self.closed = closed

    def close(self) -> None:
        self.closed.append(self.name)


class _Other(_Resource):
    pass


def test_a_run_has_one_fetcher_shared_by_its_threads() -> None:
    shared = Shared()
    first = HttpSettings(user_agent="first/1.0")
    start = threading.Barrier(8)
    seen: list[Fetcher] = []

    def ask(settings: HttpSettings) -> None:
        start.wait()
        seen.append(shared_fetcher(shared, settings))

    threads = [threading.Thread(target=ask, args=(first if n == 0 else HttpSettings(),)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert len(seen) == 8
        assert len({id(fetcher) for fetcher in seen}) == 1
        assert shared_fetcher(shared, HttpSettings()) is seen[0]
    finally:
        shared.close()


def test_the_settings_of_the_first_request_make_the_fetcher() -> None:
    shared = Shared()
    settings = HttpSettings(user_agent="mine/2.0")
    try:
        assert shared_fetcher(shared, settings).settings is settings
        assert shared_fetcher(shared, HttpSettings()).settings is settings
    finally:
        shared.close()


def test_a_closed_run_makes_a_new_fetcher() -> None:
    shared = Shared()
    before = shared_fetcher(shared, HttpSettings())
    shared.close()
    after = shared_fetcher(shared, HttpSettings())
    shared.close()
    assert after is not before


def test_what_a_run_keeps_is_made_once_per_kind_and_closed_last_made_first() -> None:
    closed: list[str] = []
    made: list[str] = []
    shared = Shared()

    def make(name: str) -> _Resource:
        made.append(name)
        return _Resource(name, closed)

    def make_other() -> _Other:
        made.append("other")
        return _Other("other", closed)

    one = shared.keep(_Resource, lambda: make("one"))
    assert shared.keep(_Resource, lambda: make("again")) is one
    other = shared.keep(_Other, make_other)
    assert other is not one
    shared.pool(2).submit(lambda: None).result()
    shared.close()
    assert made == ["one", "other"]
    assert closed == ["other", "one"]
    shared.close()  # closing twice closes nothing twice
    assert closed == ["other", "one"]
