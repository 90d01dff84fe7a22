"""Numbers read from outside text (issue 17, point 7, the siblings of ``Retry-After: ²``).

``str.isdigit`` and ``\\d`` take ``²`` and Arabic-Indic digits, which ``int`` refuses or reads as another
number; a number of twenty digits fits no C long, which ``datetime`` needs.  Each is read as what it is (no
number, or no date), never a traceback: an RSS ``pubDate`` in every command, a ``pubDate`` that ``validate``
checks, an output path that looks like ``/dev/fd/N``.  (``Retry-After`` and the cache are in test_http.py
and test_http_cache.py.)
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import feedmap
from feedmap.cli import main


def rss(pub_date: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>t</title>'
        "<link>https://www.example.com/</link><description>d</description>"
        f"<item><title>a</title><link>https://www.example.com/a</link><pubDate>{pub_date}</pubDate></item>"
        "</channel></rss>\n"
    ).encode()


HUGE_DATES = [
    "Mon, 01 Jan 99999999999999999999 00:00:00 GMT",
    "Mon, 99999999999999999999 Jan 2024 00:00:00 GMT",
    "Mon, 01 Jan 2024 99999999999999999999:00:00 GMT",
    "Mon, 01 Jan 2024 00:00:00 +99999999999999999999",
]


@pytest.mark.parametrize("pub_date", HUGE_DATES)
@pytest.mark.parametrize("command", ["convert", "info", "validate", "diff"])
def test_a_pub_date_of_huge_numbers_is_no_date_in_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, pub_date: str
) -> None:
    source = tmp_path / "feed.rss"
    source.write_bytes(rss(pub_date))
    copy = tmp_path / "copy.rss"  # diff refuses one file on both sides (same-files)
    copy.write_bytes(rss(pub_date))
    argv = {
        "convert": ["convert", str(source), "-t", "text"],
        "info": ["info", str(source)],
        "validate": ["validate", str(source)],
        "diff": ["diff", str(source), str(copy)],
    }[command]
    code = main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "OverflowError" not in captured.err
    assert code in (0, 1), captured.err  # read: valid or not, never a crash
    if command == "convert":
        assert captured.out.split() == ["https://www.example.com/a"]
        assert "lastmod-invalid" in captured.err


def test_a_pub_date_of_huge_numbers_is_no_date_for_the_library(tmp_path: Path) -> None:
    source = tmp_path / "feed.rss"
    source.write_bytes(rss(HUGE_DATES[0]))
    with feedmap.read(source) as doc:
        entries = list(doc)
    assert [(entry.loc, entry.lastmod) for entry in entries] == [("https://www.example.com/a", None)]
    assert "lastmod-invalid" in [diagnostic.code for diagnostic in doc.diagnostics]


@pytest.mark.parametrize("digits", ["\u0660\u0661", "\u0661\u0665"])  # Arabic-Indic 01 and 15
def test_validate_takes_only_ascii_digits_in_a_pub_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], digits: str
) -> None:
    source = tmp_path / "feed.rss"
    source.write_bytes(rss(f"Mon, {digits} Jan 2024 00:00:00 GMT"))
    assert main(["validate", str(source)]) == 1
    assert "error[rss-date]" in capsys.readouterr().out


def test_an_output_path_like_dev_fd_with_a_superscript_is_a_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "²".isdigit() is True: int("²") raised ValueError where /dev/fd/N outputs are recognised
    source = tmp_path / "urls.txt"
    source.write_text("https://www.example.com/a\n", "utf-8")
    descriptors = tmp_path / "fd"
    os.symlink("/proc/self/fd", descriptors)  # only resolved, never written: the name below does not exist
    code = main(["convert", str(source), "-t", "text", "-o", str(descriptors / "\u00b2")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and "ValueError" not in err
