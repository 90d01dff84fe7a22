"""``Options.dask`` (``--dask SCHEDULER``): which Dask cluster reads an index's children, as text checked at once.

Dask's distributed scheduler (https://distributed.dask.org/en/stable/client.html) is named by an address of a
protocol it speaks; feedmap takes ``tcp://HOST:PORT`` (TLS, which needs certificates configured, is not
offered).  ``local:N`` asks for a cluster of N worker processes of this machine (``distributed.LocalCluster`` on
127.0.0.1; ``local`` alone: one a core), started for the run and stopped after it.  The value is only parsed
here; :mod:`feedmap._web.cluster` connects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_LOCAL_WORKERS", "Scheduler", "parse_scheduler", "scheduler_problem"]

#: The most worker processes ``local:N`` may ask for (as ``--jobs``).
MAX_LOCAL_WORKERS = 256

_LOCAL = re.compile(r"local(?::(\d{1,4}))?")
_ADDRESS = re.compile(r"tcp://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})")


@dataclass(frozen=True, slots=True)
class Scheduler:
    """A parsed ``--dask`` value: ``address`` of a running scheduler, or ``local`` workers to start."""

    address: str | None
    local: int


def scheduler_problem(text: object) -> str | None:
    """What is wrong with ``text`` as a ``--dask`` value, or None."""
    if not isinstance(text, str):
        return f"give the scheduler as text (local:N or tcp://HOST:PORT), not {text!r}"
    local = _LOCAL.fullmatch(text)
    if local is not None:
        if local.group(1) is not None and not 1 <= int(local.group(1)) <= MAX_LOCAL_WORKERS:
            return f"{text!r}: local:N takes 1 to {MAX_LOCAL_WORKERS} worker processes"
        return None
    address = _ADDRESS.fullmatch(text)
    if address is None:
        return f"{text!r} is no scheduler: give local:N (N worker processes here) or tcp://HOST:PORT"
    if not 1 <= int(address.group(2)) <= 65535:
        return f"{text!r}: a port is 1 to 65535"
    return None


def parse_scheduler(text: str, cores: int) -> Scheduler:
    """``text`` (checked by :func:`scheduler_problem`) as a :class:`Scheduler`; ``local`` alone asks for
    ``cores`` workers."""
    local = _LOCAL.fullmatch(text)
    if local is not None:
        return Scheduler(None, int(local.group(1)) if local.group(1) else max(1, cores))
    return Scheduler(text, 0)
