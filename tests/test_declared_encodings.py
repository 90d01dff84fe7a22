"""Encodings an XML input declares (``<?xml ... encoding="..."?>``) that Python or libxml2 cannot use for text.

A page declaring ``idna``, ``punycode`` or ``undefined`` made the HTML decoding raise (tests/test_html.py);
these are the same labels in the XML inputs, read by lxml (libxml2) and feedparser, which decide on the
encoding themselves.  Whatever they make of it, ``feedmap convert`` and ``feedmap info`` end with a
diagnostic or a clean error message and exit 0 or 1, never with a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from feedmap.cli import main

LABELS = [
    "idna",
    "punycode",
    "undefined",
    "utf-7",
    "unicode_escape",
    "rot13",
    "x-user-defined",
    "replacement",
    "utf-16",
    "utf-32",
    "no-such-encoding",
]
BODIES = {
    "sitemap": '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{loc}</loc></url></urlset>',
    "sitemapindex": '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    "<sitemap><loc>{loc}</loc></sitemap></sitemapindex>",
    "rss": '<rss version="2.0"><channel><title>t</title><item><title>+ADw-b+AD4-</title>'
    "<link>{loc}</link></item></channel></rss>",
    "atom": '<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><title>x</title>'
    '<link href="{loc}"/></entry></feed>',
}
#: How a message from the command line starts: a located diagnostic or the tool's own error line.
MESSAGE = r"^(feedmap: error: |\S+: (info|warning|error)\[[a-z0-9-]+\]: )"


@pytest.mark.parametrize("kind", sorted(BODIES))
@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("command", ["convert", "info"])
def test_an_unusable_declared_encoding_is_a_message_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, label: str, command: str
) -> None:
    path = tmp_path / f"{kind}.xml"
    body = BODIES[kind].format(loc="http://127.0.0.1:9/a")
    path.write_bytes(f'<?xml version="1.0" encoding="{label}"?>\n{body}\n'.encode("ascii"))
    argv = [command, str(path), "--no-follow"] + (["-t", "jsonl"] if command == "convert" else [])  # no network
    code = main(argv)
    err = capsys.readouterr().err
    assert code in (0, 1), err
    assert all(re.match(MESSAGE, line) for line in err.splitlines()), err
    if code == 1:
        assert err, "an unusable input is said so"
