"""``feedmap.report``: one self-contained HTML page describing inputs (counts, dates, hosts, problems).

The parts, one job each: :mod:`feedmap._report.tally` counts the entries as they stream (bounded structures
only), :mod:`feedmap._report.findings` keeps the validation findings by code with their first examples,
:mod:`feedmap._report.charts` draws the charts with matplotlib when the ``report`` extra is installed,
:mod:`feedmap._report.page` writes the HTML, and :mod:`feedmap._report.run` is the library call.
"""
