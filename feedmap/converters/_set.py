"""The step behind :func:`feedmap.converters.set_fields`: a value given for every entry (``--set FIELD=VALUE``).

One job: put the values of ``options.set`` on each entry, replacing what was read (an empty value clears the
field), and those of ``options.set_missing`` on each entry that has none, streaming (one entry at a time).  The
values were checked when the options were made, as readers check what they read
(:mod:`feedmap._core.field_values`).  What was changed is said once at the end (INFO ``fields-set``): how many
entries each field was set on, and how many values read it replaced, so that no value read is lost unsaid.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from feedmap._core.context import Context
from feedmap._core.field_values import FieldValue
from feedmap._core.model import Entry
from feedmap._core.wording import counted

__all__ = ["set_fields"]


def set_fields(entries: Iterable[Entry], ctx: Context) -> Iterator[Entry]:
    """The entries with ``ctx.options.set`` put on each (replacing what was read) and ``set_missing`` on each
    without a value for the field; INFO ``fields-set`` at the end (or when closed before it)."""
    options = ctx.options
    replaced, missing = options.set, options.set_missing
    seen = 0
    changed = dict.fromkeys((name for name, _ in (*replaced, *missing)), 0)  # values replaced, or filled in
    try:
        for entry in entries:
            seen += 1
            changes: dict[str, FieldValue] = {}
            for name, value in replaced:
                held = getattr(entry, name)
                if held != value:
                    changes[name] = value
                    if held is not None and held != ():
                        changed[name] += 1
            for name, value in missing:
                held = getattr(entry, name)
                if (held is None or held == ()) and held != value:
                    changes[name] = value
                    changed[name] += 1
            yield dataclasses.replace(entry, **changes) if changes else entry  # type: ignore[arg-type]
    finally:
        _report(seen, changed, options.set, ctx)


def _report(seen: int, changed: dict[str, int], replaced: tuple[tuple[str, FieldValue], ...], ctx: Context) -> None:
    """INFO ``fields-set``: each field, on how many entries, and the values read it replaced."""
    if not seen:
        return
    said: list[str] = []
    given = dict(replaced)
    for name, count in changed.items():
        if name not in given:
            said.append(f"{name} filled in on {counted(count, 'entry', 'entries')} without one")
            continue
        cleared = given[name] is None or given[name] == ()
        done = f"{name} {'cleared' if cleared else 'set'} on {counted(seen, 'entry', 'entries')}"
        values = counted(count, "value") if cleared else counted(count, "other value")
        said.append(f"{done}, {'removing' if cleared else 'replacing'} {values} read" if count else done)
    ctx.reporter.info("fields-set", "; ".join(said), ctx.name)
