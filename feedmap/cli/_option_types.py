"""The argparse types of option values: each checked when parsed, a usage error (exit 2) naming the option.

One job: turn an option's text into its value or an :class:`argparse.ArgumentTypeError`, by the rules of
:mod:`feedmap._core.option_values` (which ``Options`` and ``HttpSettings`` apply in the library too): numbers
finite and in range, sizes in bytes that print, header text an RFC 9110 §5.5 field value.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from feedmap._core.context import MAX_CONCURRENCY
from feedmap._core.field_values import assignment, field_value
from feedmap._core.http_settings import MAX_RETRIES
from feedmap._core.option_values import (
    MAX_SECONDS,
    header_text_problem,
    number_problem,
    web_url_problem,
    xml_text_problem,
)
from feedmap._core.option_values import parse_size as size_in_bytes
from feedmap._core.options import MAX_JOBS
from feedmap._core.scheduler import scheduler_problem

__all__ = [
    "concurrency_count",
    "field_assignment",
    "header_text",
    "job_count",
    "non_negative_int",
    "parse_size",
    "pause_seconds",
    "positive_int",
    "retry_count",
    "wait_seconds",
    "web_url",
    "xml_text",
]


def parse_size(text: str) -> int:
    """``--max-bytes 100M``, ``1.5GiB``, ``500000`` -> bytes (binary units), by the parser ``Options`` uses."""
    try:
        return size_in_bytes(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _number(
    kind: type[int] | type[float], minimum: float, *, above: bool = False, maximum: float | None = None
) -> Callable[[str], Any]:
    """An argparse type: a finite ``kind`` from ``minimum`` (excluded when ``above``) to ``maximum``."""

    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {'whole ' if kind is int else ''}number") from None
        problem = number_problem(value, minimum=minimum, maximum=maximum, integer=kind is int, above=above)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return value

    return convert


positive_int = _number(int, 1)
non_negative_int = _number(int, 0)
concurrency_count = _number(int, 1, maximum=MAX_CONCURRENCY)
#: ``--jobs``: worker processes, 0 (one per core) to MAX_JOBS.
job_count = _number(int, 0, maximum=MAX_JOBS)
retry_count = _number(int, 0, maximum=MAX_RETRIES)
#: ``--timeout``, ``--deadline``: finite seconds, more than 0, at most a day.
wait_seconds = _number(float, 0, above=True, maximum=MAX_SECONDS)
#: ``--delay``: finite seconds from 0, at most a day.
pause_seconds = _number(float, 0, maximum=MAX_SECONDS)


def scheduler_text(text: str) -> str:
    """``--dask``: ``local:N`` or the address of a Dask scheduler (``tcp://HOST:PORT``)."""
    problem = scheduler_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def header_text(text: str) -> str:
    """``--user-agent``: text an HTTP header can carry (RFC 9110 §5.5: visible ASCII and spaces)."""
    problem = header_text_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def web_url(text: str) -> str:
    """``--base-url``, ``--link``, ``--self-url``: an absolute http(s) URL with a host."""
    problem = web_url_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def xml_text(text: str) -> str:
    """``--title``, ``--description``: text XML 1.0 can hold (no control characters, no undecodable bytes)."""
    problem = xml_text_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def field_assignment(text: str) -> tuple[str, str]:
    """``--set FIELD=VALUE``, ``--set-missing FIELD=VALUE``: a field that can be set and a value a reader would read
    for it (:mod:`feedmap._core.field_values`); kept as text, the Options read it again."""
    try:
        name, value = assignment(text)
        field_value(name, value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name, value
