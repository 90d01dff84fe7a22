"""The ``distributed.LocalCluster`` the Dask benchmarks start before the clock: ``workers`` worker processes of one
thread on 127.0.0.1, its HTTP server on a free port (8787 may be taken on a shared machine), Dask's logs quiet."""

from __future__ import annotations

import logging
from typing import Any


def local_cluster(workers: int, **more: Any) -> Any:
    import distributed

    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        scheduler_port=0,
        dashboard_address=":0",
        worker_dashboard_address=None,
        silence_logs=logging.ERROR,
        **more,
    )
