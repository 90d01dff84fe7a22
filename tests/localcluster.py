"""A Dask ``LocalCluster`` for the tests: two single-threaded worker processes on 127.0.0.1, every port free."""

from __future__ import annotations

import logging

import dask
import distributed


def local_cluster(**config: object) -> distributed.LocalCluster:
    """A new cluster, Dask's ``config`` set while it starts (the scheduler reads ``allowed-failures`` then)."""
    with dask.config.set(config):
        return distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            scheduler_port=0,
            dashboard_address=":0",  # its HTTP server on a free port (8787 may be taken)
            worker_dashboard_address=None,
            silence_logs=logging.ERROR,
        )
