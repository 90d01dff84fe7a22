"""What the fetching parts of one run share (:class:`feedmap._io.http.Shared`): one HTTP fetcher and one pool of
download threads, each made on first use, the same for every thread of the run, closed when the run ends; the run
passes it to what fetches (the reader and writer context carries none of it)."""

from __future__ import annotations

import threading

import pytest

from feedmap import HttpSettings
from feedmap._io.http import Fetcher, Shared


def test_a_run_has_one_fetcher_shared_by_its_threads() -> None:
    shared = Shared()
    first = HttpSettings(user_agent="first/1.0")
    start = threading.Barrier(8)
    seen: list[Fetcher] = []

    def ask(settings: HttpSettings) -> None:
        start.wait()
        seen.append(shared.fetcher(settings))

    threads = [threading.Thread(target=ask, args=(first if n == 0 else HttpSettings(),)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert len(seen) == 8
        assert len({id(fetcher) for fetcher in seen}) == 1
        assert shared.fetcher(HttpSettings()) is seen[0]
    finally:
        shared.close()


def test_the_settings_of_the_first_request_make_the_fetcher() -> None:
    shared = Shared()
    settings = HttpSettings(user_agent="mine/2.0")
    try:
        assert shared.fetcher(settings).settings is settings
        assert shared.fetcher(HttpSettings()).settings is settings
    finally:
        shared.close()


def test_a_closed_run_makes_a_new_fetcher() -> None:
    shared = Shared()
    before = shared.fetcher(HttpSettings())
    shared.close()
    after = shared.fetcher(HttpSettings())
    shared.close()
    assert after is not before


def test_a_run_has_one_pool_stopped_when_it_closes() -> None:
    shared = Shared()
    pool = shared.pool(2)
    assert shared.pool(5) is pool
    assert pool.submit(lambda: 41 + 1).result() == 42
    shared.close()
    with pytest.raises(RuntimeError):  # shut down: it takes no more work
        pool.submit(lambda: None)
    again = shared.pool(2)
    assert again is not pool
    shared.close()
    shared.close()  # closing twice closes nothing twice
