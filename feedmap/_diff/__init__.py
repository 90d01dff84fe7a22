"""The ``diff`` command: two snapshots of a site compared URL by URL (added, removed, changed fields)."""
