"""Reading and ``feedmap validate`` share one implementation of each check: they take and refuse the same
priorities (``xsd:decimal`` 0.0-1.0, XML blanks around it) and the same number of images per URL; the
sitemaps.org 0.9 XSD and Google's image extension are the rules (https://www.sitemaps.org/protocol.html)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from feedmap.cli import main

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"


def sitemap(tmp_path: Path, url_body: str) -> Path:
    path = tmp_path / "sitemap.xml"
    path.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:image="{IMAGE}">\n'
        f"<url><loc>https://example.com/a</loc>{url_body}</url>\n</urlset>\n",
        encoding="utf-8",
    )
    return path


def validated(path: Path, capsys: pytest.CaptureFixture[str]) -> set[str]:
    main(["validate", str(path), "--json"])
    return {finding["code"] for finding in json.loads(capsys.readouterr().out)["findings"]}


def converted(path: Path, capsys: pytest.CaptureFixture[str]) -> set[str]:
    assert main(["convert", str(path), "-t", "jsonl", "-o", str(path.with_suffix(".jsonl"))]) == 0
    return set(re.findall(r"(?:error|warning|info)\[([a-z-]+)\]", capsys.readouterr().err))


@pytest.mark.parametrize(
    ("priority", "valid"),
    [
        ("0.5", True),
        (" 0.5\n", True),  # XML blanks: xsd:decimal collapses them
        ("+.5", True),
        ("1.0", True),
        ("-0.0", True),
        ("1.00000000000000001", False),  # above 1.0, though the nearest float is 1.0
        ("0.5\u00a0", False),  # no-break space is no XML blank
        ("1e-1", False),
        ("high", False),
        ("", False),
        ("\u0661", False),  # an Arabic-Indic digit one
    ],
)
def test_reading_and_validate_take_the_same_priorities(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], priority: str, valid: bool
) -> None:
    path = sitemap(tmp_path, f"<priority>{priority}</priority>")
    assert ("priority-invalid" not in validated(path, capsys)) is valid
    assert ("priority-invalid" not in converted(path, capsys)) is valid


@pytest.mark.parametrize(("images", "too_many"), [(1000, False), (1001, True)])
def test_reading_and_validate_count_images_against_one_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], images: int, too_many: bool
) -> None:
    body = "".join(
        f"<image:image><image:loc>https://example.com/{n}.png</image:loc></image:image>" for n in range(images)
    )
    path = sitemap(tmp_path, body)
    assert ("too-many-images" in validated(path, capsys)) is too_many
    assert ("too-many-images" in converted(path, capsys)) is too_many


def written(path: Path, capsys: pytest.CaptureFixture[str]) -> set[str]:
    assert main(["convert", str(path), "-t", "sitemap", "-o", str(path.with_name("out.xml"))]) == 0
    return set(re.findall(r"(?:error|warning|info)\[([a-z-]+)\]", capsys.readouterr().err))


@pytest.mark.parametrize(
    ("lastmod", "not_xsd", "no_zone"),
    [
        ("2024", True, False),
        ("2024-06", True, False),
        ("2024-06-01", False, False),
        ("2024-06-01+02:00", False, True),  # a date with a zone: the XSD's, not the W3C note's
        ("2024-06-01T10:00Z", True, False),  # minutes: the note's, not the XSD's
        ("2024-06-01T10:00:00", False, True),  # a time without a zone
        ("2024-06-01T10:00:00.25-03:00", False, False),
        ("2016-12-31T23:59:60Z", True, False),  # a leap second: no xsd:dateTime
    ],
)
def test_writing_and_validate_read_lastmods_in_one_grammar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lastmod: str, not_xsd: bool, no_zone: bool
) -> None:
    """What validate says is no XSD form is what writing a sitemap changes (seconds added) or warns about."""
    path = sitemap(tmp_path, f"<lastmod>{lastmod}</lastmod>")
    found = validated(path, capsys)
    assert ("lastmod-not-xsd" in found, "lastmod-no-zone" in found) == (not_xsd, no_zone)
    assert bool({"lastmod-not-xsd", "lastmod-seconds-added"} & written(path, capsys)) is not_xsd
