"""The start of a ``local:N`` cluster's worker, a Dask worker preload
(https://docs.dask.org/en/stable/how-to/customize-initialization.html): Ctrl-C in a terminal reaches the whole
process group, and the run stops its cluster itself, so the worker ignores it (else each worker prints a
traceback of its own)."""

import signal


def dask_setup(worker: object) -> None:
    """Called by Dask in the worker process when it starts."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
