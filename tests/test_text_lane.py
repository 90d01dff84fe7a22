"""The text lane: a text sitemap written as a text sitemap or split into sitemap files, its plain URLs in blocks.

Random text sitemaps (plain URLs, repeats, IRIs, ``&`` and ``'``, blanks, lines that are no URL or another
scheme's, CSV rows, lone ``%`` and second ``#``, long lines, CR / CRLF / LF, a BOM, blank lines, URLs in and out of
the split's scope, enough lines for several read blocks) are converted twice in-process through
``feedmap.cli.main``: with the lane, and with ``FEEDMAP_NO_LANE=1`` (the plan's steps, entry by entry).  The
files written, stdout, stderr and the exit code must be the same, for ``-t text`` (to a file, to stdout, gzip)
and for a split into sitemap files (``--max-urls``, ``--max-file-bytes``, ``--gzip``, ``--keep-urls``,
``--strict``).  A profile of the run checks that the lane did run where it should.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feedmap.cli import main

BASE = "https://example.com/maps/"
OFF = "FEEDMAP_NO_LANE"

PLAIN = st.builds(
    lambda host, path, query: f"https://{host}/{path}{query}",
    st.sampled_from(["example.com", "example.com/maps", "other.example", "EXAMPLE.com/maps"]),
    st.text(alphabet="abc/-._~", min_size=1, max_size=12),
    st.sampled_from(["", "?a=1&b=2", "?q='x'", "#top", "?x=%41"]),
)
ODD = st.sampled_from(
    [
        "https://example.com/maps/caf\u00e9",
        "https://b\u00fccher.example/x",
        "https://example.com/a b",
        "  https://example.com/maps/padded  ",
        "not a url",
        "/relative/path",
        "ftp://example.com/maps/f",
        "javascript://example.com/x",
        "mailto:someone@example.com",
        "https://example.com/maps/a,2024-01-01",
        "https://example.com/maps/50%",
        "https://example.com/maps/x#a#b",
        "https://example.com/maps/../up",
        "https://example.com/maps/%7Eme",
        "HTTPS://EXAMPLE.COM/maps/upper",
        "https://example.com:443/maps/port",
        "http://example.com/maps/http",
        "https://example.com/maps/<tag>",
        "https://example.com/" + "long/" * 450,
        "https://example.com/maps/" + "x" * 300,
        "",
        "\t",
    ]
)
#: Lines of the reader's plain form that a step reports or changes: another scheme, no URI as written, out of
#: scope in the ways the scope check's short cut does not see.
PLAIN_ODD = st.sampled_from(
    [
        "https://example.com/maps/50%",
        "https://example.com/maps/x#a#b",
        "ftp://example.com/maps/f",
        "javascript://example.com/x",
        "HTTPS://EXAMPLE.COM/maps/upper",
        "Http://example.com/maps/mixed",
        "https://example.com:443/maps/port",
        "https://example.com/maps/../up",
        "https://example.com/maps/%7Eme",
        "https://example.com/maps/a'b",
        "https://example.com",
        "https://example.com?q",
    ]
)
RAW = st.sampled_from([b"\xe9t\xe9 https://example.com/maps/cp1252\xe9", b"https://example.com/maps/\xff"])


@st.composite
def documents(draw: st.DrawFn, most: int = 1500) -> bytes:
    """A text sitemap's bytes (at most ``most`` plain lines added in bulk, enough for several 64 KiB reads)."""
    lines: list[bytes] = []
    plain_only = draw(st.booleans())  # every line of the reader's plain form: blocks of them
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.integers(0, 9))
        if kind < 5:
            lines.append(draw(PLAIN).encode("utf-8"))
        elif kind < 7 and lines:
            lines.append(draw(st.sampled_from(lines)))  # a repeat
        elif kind < 9:
            lines.append(draw(PLAIN_ODD if plain_only else ODD).encode("utf-8"))
        elif not plain_only:
            lines.append(draw(RAW))
    bulk = draw(st.sampled_from([0, 0, most // 10, most]))
    if bulk:
        start = draw(st.integers(0, len(lines)))
        repeat_every = draw(st.sampled_from([0, 7, 997]))
        made = [
            f"https://example.com/{'maps' if number % 3 else 'other'}/item-{number % (repeat_every or bulk)}"
            f"/details?ref=bench&n={number % 97}".encode()
            for number in range(bulk)
        ]
        lines[start:start] = made
    end = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]) if not plain_only else st.just(b"\n"))
    body = end.join(lines) + (end if draw(st.booleans()) else b"")
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + body


@contextlib.contextmanager
def lane(on: bool) -> Iterator[None]:
    before = os.environ.get(OFF)
    if on:
        os.environ.pop(OFF, None)
    else:
        os.environ[OFF] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(OFF, None)
        else:
            os.environ[OFF] = before


@contextlib.contextmanager
def watched() -> Iterator[LaneCalls]:
    """Whether the lane runs in the block (a profile hook on every call: slow, for the few tests that ask)."""
    calls = LaneCalls()
    sys.setprofile(calls)
    try:
        yield calls
    finally:
        sys.setprofile(None)


class LaneCalls:
    """Whether the text lane looked at a block of plain URLs (a profile hook: which code objects were called)."""

    def __init__(self) -> None:
        self.ran = False

    def __call__(self, frame: FrameType, event: str, arg: object) -> None:
        code = frame.f_code
        if event == "call" and code.co_name == "passes" and code.co_filename.endswith("text_lane.py"):
            self.ran = True  # a block was looked at


def converted(
    data: bytes, argv: list[str], capsys: pytest.CaptureFixture[str], on: bool, watch: bool = False
) -> tuple[object, ...]:
    """Exit code, stdout, stderr and every file written, of ``feedmap convert in.txt ARGV`` in a new folder, and
    (``watch``) whether the lane ran."""
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder), lane(on):
        Path("in.txt").write_bytes(data)
        with watched() if watch else contextlib.nullcontext(LaneCalls()) as calls:
            code = main(["convert", "in.txt", *argv])
        captured = capsys.readouterr()
        files = {
            str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(Path(folder).rglob("*"))
            if path.is_file() and path.name != "in.txt"
        }
    return code, captured.out, captured.err, files, calls.ran


TEXT_OPTIONS = st.sampled_from(
    [
        ["-t", "text", "-o", "out.txt"],
        ["-t", "text", "-o", "-"],
        ["-t", "text", "-o", "out.txt.gz"],
        ["-t", "text", "-o", "out.txt", "--encode-urls"],
        ["-t", "text", "-o", "out.txt", "--strict"],
        ["-t", "text", "-o", "-", "--strict"],
        ["-t", "text", "-o", "out.txt", "--max-line-bytes", "200"],
    ]
)
SPLIT_OPTIONS = st.builds(
    lambda urls, size, extra: ["-t", "sitemap", "--base-url", BASE, "-o", "d/", *urls, *size, *extra],
    st.sampled_from([[], ["--max-urls", "3"], ["--max-urls", "700"]]),
    st.sampled_from([[], ["--max-file-bytes", "400"], ["--max-file-bytes", "30000"]]),
    st.sampled_from([[], ["--gzip"], ["--keep-urls"], ["--strict"], ["--max-line-bytes", "200"]]),
)
#: Small files take few URLs each: fewer lines, not hundreds of files (each one synced).
SMALL_FILES = ("3", "400")

SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@pytest.mark.timeout(600)
@SETTINGS
@given(data=documents(), argv=TEXT_OPTIONS)
def test_text_to_text_is_the_plans_output(data: bytes, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    *laned, _ = converted(data, argv, capsys, on=True)
    *planned, _ = converted(data, argv, capsys, on=False)
    assert laned == planned


@pytest.mark.timeout(600)
@SETTINGS
@given(argv=SPLIT_OPTIONS, data=st.data())
def test_split_is_the_plans_output(argv: list[str], data: st.DataObject, capsys: pytest.CaptureFixture[str]) -> None:
    document = data.draw(documents(60 if any(value in argv for value in SMALL_FILES) else 1500))
    *laned, _ = converted(document, argv, capsys, on=True)
    *planned, _ = converted(document, argv, capsys, on=False)
    assert laned == planned


PLAIN_DOCUMENT = b"".join(b"https://example.com/maps/p%d?a=1&b='2'\n" % number for number in range(3000))


@pytest.mark.parametrize(
    "argv",
    [
        ["-t", "text", "-o", "out.txt"],
        ["-t", "sitemap", "--base-url", BASE, "-o", "d/", "--max-urls", "1000"],
        ["-t", "sitemap", "--base-url", BASE, "-o", "d/", "--max-file-bytes", "20000"],
    ],
)
def test_plain_urls_take_the_lane(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A text sitemap of plain URLs takes the lane (and writes what the plan writes)."""
    *laned, ran = converted(PLAIN_DOCUMENT, argv, capsys, on=True, watch=True)
    *planned, ran_off = converted(PLAIN_DOCUMENT, argv, capsys, on=False, watch=True)
    assert laned == planned
    assert laned[0] == 0
    assert ran and not ran_off


@pytest.mark.parametrize(
    "argv",
    [
        ["-t", "text", "-o", "out.txt", "--dedupe", "first"],
        ["-t", "text", "-o", "out.txt", "--limit", "5"],
        ["-t", "text", "-o", "out.txt", "--include", "*p1*"],
        ["-t", "sitemap", "-o", "out.xml"],
        ["-t", "jsonl", "-o", "out.jsonl"],
        ["-t", "sitemap", "--base-url", BASE, "-o", "d/", "--sort", "loc"],
        ["-t", "text", "--base-url", BASE, "-o", "d/"],
    ],
)
def test_other_plans_take_the_plans_steps(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A plan the lane does not know (a filter, a limit, another target, ...) runs its own steps."""
    *_, ran = converted(PLAIN_DOCUMENT, argv, capsys, on=True, watch=True)
    assert not ran


def test_repeats_report_the_first_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A repeat merged into sitemap files names the line the URL was first read at; the text target's drop, the
    line of the repeat."""
    data = b"https://example.com/maps/a\nhttps://example.com/maps/b\nhttps://example.com/maps/a\n"
    argv = ["-t", "sitemap", "--base-url", BASE, "-o", "d/"]
    code, _, err, files, ran = converted(data, argv, capsys, on=True, watch=True)
    assert ran and code == 0
    assert "in.txt:1: info[loc-duplicate]: https://example.com/maps/a appears 2 times (first here)" in str(err)
    assert str(files["d/sitemap-1.xml"]).count("<url>") == 2  # type: ignore[index]
    code, _, err, files, _ = converted(data, ["-t", "text", "-o", "out.txt"], capsys, on=True)
    assert "in.txt:3: info[loc-duplicate]: https://example.com/maps/a appears 2 times (first repeated here)" in str(err)


#: Plain URLs, then a line that is no URL, then more: under --strict the run stops there, after writing the
#: batches before it to a stream that cannot be taken back.
STOPPING = (
    b"".join(b"https://example.com/maps/p%d?a=1\n" % number for number in range(5000))
    + b"not a url\n"
    + b"https://example.com/maps/after\n"
)
#: Long plain URLs: a batch fills by its characters before its count.
LONG_LINES = b"".join(b"https://example.com/maps/%d/%s\n" % (number, b"x" * 1500) for number in range(900)) + b"nope\n"


@pytest.mark.parametrize("data", [STOPPING, LONG_LINES])
def test_a_stopped_run_wrote_the_same_batches(data: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    """What standard output holds when --strict stops a run is what the plan's writer had written."""
    argv = ["-t", "text", "-o", "-", "--strict"]
    *laned, ran = converted(data, argv, capsys, on=True, watch=True)
    *planned, _ = converted(data, argv, capsys, on=False)
    assert laned == planned
    assert laned[0] == 1 and laned[1] and ran


def test_an_output_that_cannot_be_opened_reads_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """An output that cannot be written fails before the input is read: no reader diagnostic after the error."""
    data = b"not a url\nhttps://example.com/maps/a\n"
    for on in (True, False):
        with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder), lane(on):
            Path("in.txt").write_bytes(data)
            Path("taken").write_bytes(b"a file")
            code = main(["convert", "in.txt", "-t", "text", "-o", "taken/out.txt"])
            err = capsys.readouterr().err
        assert code == 2
        assert "loc-not-absolute" not in err


def _long_urls() -> bytes:
    """12,000 URLs of some 1,500 characters (past the 16 M characters a dedupe holds in memory before it spills
    to disk, short of 2,048: plain), repeats of early and late ones on both sides of that point, a few not plain."""
    pad = "x" * 1480
    lines = [f"https://example.com/maps/{number}/{pad}" for number in range(12_000)]
    for at in (50, 5_000, 11_500):
        lines[at : at + 1] = [lines[at], lines[3], lines[at - 1], lines[11_000], "not a url"]
    lines += [lines[10], lines[11_999], lines[11_999], "https://example.com/maps/caf\u00e9", lines[7]]
    return "\n".join(lines).encode()


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    "argv", [["-t", "text", "-o", "out.txt"], ["-t", "sitemap", "--base-url", BASE, "-o", "d/", "--max-urls", "5000"]]
)
def test_repeats_past_the_memory_budget(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Past the URLs a dedupe holds in memory, repeats are found and reported as the plan's steps find them."""
    data = _long_urls()
    *laned, _ = converted(data, argv, capsys, on=True)
    *planned, _ = converted(data, argv, capsys, on=False)
    assert laned == planned
    assert "loc-duplicate" in str(laned[2])
