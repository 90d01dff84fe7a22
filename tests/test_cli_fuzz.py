"""No traceback is reachable from the command line: hostile and mutated inputs through ``feedmap convert``.

A fixed corpus, built in a temporary folder, of what breaks naive readers and writers (truncated XML,
surrogate bytes, control characters, a bare ``&``, extras that are not one element, an undeclared prefix,
priorities no decimal holds, a DTD with entities, lines over the cap, ...) plus the repository's samples
with bytes flipped, inserted and deleted (a fixed random seed, so every run sees the same files).

Each input is converted to every writable format by ``feedmap.cli.main`` in one child process (a small
driver; starting an interpreter per case would take minutes), once recognising the format and once
naming it; a few cases also go through real ``python -m feedmap convert`` processes.  Passing means:
no ``Traceback`` on standard error, exit codes 0, 1 or 2 only, and every output written with exit 0
parses in its format (XML without DTD, entities or network; JSON objects; UTF-8 text).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree
from test_fuzz import SAMPLES, SEED_FILES  # the same seeds as the in-process fuzz test

from feedmap.formats._registry import all_formats

WRITERS = [spec.name for spec in all_formats() if spec.writer is not None]
READERS = [spec.name for spec in all_formats() if spec.reader is not None]
SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
INJECTION = '<x:y xmlns:x="urn:x"/></url><url><loc>https://injected.example/</loc>'
BIG = 2 << 20  # past the default --max-line-bytes


def _jsonl(*objects: object) -> bytes:
    return "".join(json.dumps(obj) + "\n" for obj in objects).encode()


def _urlset(body: str, extra: str = "") -> bytes:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}"{extra}>\n{body}\n</urlset>\n'.encode()


def hostile_inputs(folder: Path) -> dict[str, bytes]:
    """Inputs that each hit a known trap; the index refers to files in ``folder`` only."""
    basic = (SAMPLES / "sitemap" / "basic.xml").read_bytes()
    entries = (SAMPLES / "jsonl" / "entries.jsonl").read_bytes()
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY x SYSTEM "file:///nonexistent/x">]>'
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.com/&c;&x;</loc></url></urlset>'
    )
    return {
        "truncated.xml": basic[: len(basic) // 2],
        "truncated.jsonl": entries[: len(entries) // 2 + 7],
        "surrogate-bytes.jsonl": b'{"loc":"https://e.com/\xed\xa0\x80"}\n{"loc":"https://e.com/ok"}\n',
        "surrogate-escapes.jsonl": b'{"kind":"feed","title":"\\ud800"}\n{"loc":"https://e.com/\\udfff"}\n',
        "surrogate-header.jsonl": b'{"kind":"feed","extras":{"ror:about":"\\udc00"}}\n{"loc":"https://e.com/"}\n',
        "controls.jsonl": _jsonl(
            {
                "loc": "https://e.com/ctl\u0001x\r",
                "title": "t\u0000\ufffe\uffff\r\n",
                "images": [{"loc": "https://e.com/\u0002.png", "caption": "\u001b[31m"}],
                "alternates": [{"hreflang": "d\ne\tf\r", "href": "https://e.com/\u000b"}],
                "keywords": ["\u0007", "a,b"],
            }
        ),
        "extras.jsonl": _jsonl(
            {"loc": "0", "extras": {"{": "<"}},
            {"loc": "https://e.com/1", "extras": {"{urn:x}y": INJECTION}},
            {"loc": "https://e.com/2", "extras": {"{}xhtml:link": '<xhtml:link href="x"/>'}},
            {"loc": "https://e.com/3", "extras": {"{}foo": "<foo><bar/></foo>", "ror:a b": "x", "ror:\u00b2": "y"}},
            {"loc": "https://e.com/4", "extras": {"{urn:x}y": '<!DOCTYPE y [<!ENTITY e "e">]><x:y xmlns:x="urn:x"/>'}},
            {"loc": "https://e.com/5", "extras": {"{urn:x}y": '<x:y xmlns:x="urn:x">&e;</x:y>'}},
            {"loc": "https://e.com/6", "extras": {"{urn:x}y": '<?xml version="1.0"?><x:y xmlns:x="urn:x"/>'}},
        ),
        "header-extras.jsonl": _jsonl(
            {"kind": "feed", "extras": {"ror:a b": "1", "ror:<x>": "2", "header:title": "<&>", "{urn:x}y": "<"}},
            {"loc": "https://e.com/"},
        ),
        "priorities.jsonl": b"".join(
            b'{"loc":"https://e.com/%d","priority":%s}\n' % (n, p)
            for n, p in enumerate([b"5e-324", b"1e308", b"1e400", b"-1e400", b"0.12345678901234567890", b"-0.0", b"1"])
        ),
        "deep.jsonl": b"[" * 100_000 + b"\n" + b'{"loc":' * 10_000 + b"\n",
        "long-line.jsonl": b'{"loc":"https://e.com/' + b"x" * BIG + b'"}\n{"loc":"https://e.com/after"}\n',
        "long-line.txt": b"https://e.com/" + b"y" * BIG + b"\nhttps://e.com/after\n",
        "text-hostile.txt": b"https://e.com/\xed\xa0\x80\nhttps://e.com/\x01\rhttps://e.com/cr\r\n\xff\xfe\n&<>\n",
        "bare-amp-controls.xml": _urlset(
            "<url><loc>https://e.com/?a=1&b=2&#0;\x01</loc><priority>5e-324</priority></url>"
        ),
        "laughs.xml": laughs,
        "undeclared-prefix.xml": _urlset(
            "<url><loc>https://e.com/</loc><xhtml:link rel='alternate' hreflang='de' href='https://e.com/de'/>"
            "<image:image><image:loc>https://e.com/i.png</image:loc></image:image><news:news/></url>"
        ),
        "no-namespace.xml": (
            b"<urlset><url><loc>https://e.com/</loc><colour>blue</colour><a:b xmlns:a='urn:a'/></url></urlset>"
        ),
        "priority-forms.xml": _urlset(
            "".join(
                f"<url><loc>https://e.com/{n}</loc><priority>{p}</priority></url>"
                for n, p in enumerate(["5e-324", "0.12345678901234567890", "1e-300", "NaN", "inf", "0x1p-3", " .5 "])
            )
        ),
        "deep-elements.xml": _urlset("<url><loc>https://e.com/</loc>" + "<a>" * 3000 + "</a>" * 3000 + "</url>"),
        "utf16.xml": _urlset("<url><loc>https://e.com/\u00e9</loc></url>")
        .decode()
        .replace("UTF-8", "UTF-16")
        .encode("utf-16"),
        "bogus-encoding.xml": b'<?xml version="1.0" encoding="bogus"?><urlset/>',
        "cdata.rss": (
            b'<rss version="2.0"><channel><title>\x01<![CDATA[x]]></title><item><link>https://e.com/&amp;a</link>'
            b"<title><![CDATA[<b>bold</b> ]]&gt;]]></title><description>\r\n\x0b</description></item></channel></rss>"
        ),
        "index.xml": (
            f'<sitemapindex xmlns="{SM}"><sitemap><loc>{(folder / "index.xml").as_uri()}</loc></sitemap>'
            f"<sitemap><loc>{(folder / 'missing.xml').as_uri()}</loc></sitemap>"
            f"<sitemap><loc>{(folder / 'truncated.xml').as_uri()}</loc></sitemap></sitemapindex>"
        ).encode(),
        # issue 17: recovery of a cut first entry, an entry undeclaring the namespace, an unclosed <sitemap>
        # holding several <loc>, a run of blanks past the parser's text limit, an escaped emoji beside a priority
        "cut-first-url.xml": _urlset("").replace(b"</urlset>", b"<url><loc>https://e.com/a</loc><lastmod>20"),
        "no-namespace-entry.xml": _urlset('<url xmlns=""><loc>https://e.com/a</loc></url>'),
        "unclosed-sitemap.xml": (
            f'<sitemapindex xmlns="{SM}"><sitemap><loc>{(folder / "index.xml").as_uri()}</loc>'
            f"<loc>{(folder / 'missing.xml').as_uri()}</loc></sitemapindex>"
        ).encode(),
        "blank-run.xml.gz": gzip.compress(_urlset("<url><loc>https://e.com/a</loc></url>" + " " * (11 << 20)), mtime=0),
        "emoji-priority.jsonl": b'{"loc":"https://e.com/a","title":"\\ud83d\\ude00","priority":0.5}\n',
        "empty.xml": b"",
        "bom-only.txt": b"\xef\xbb\xbf",
        "garbage.bin": bytes(range(256)) * 4,
        "truncated.gz": gzip.compress(basic, mtime=0)[:200],
    }


INSERTS = [b"&", b"<", b"]]>", b"\x00", b"\xed\xa0\x80", b"<x:y>", b'"\\ud800"']


def mutated_inputs(count: int) -> dict[str, bytes]:
    """The samples with a few bytes flipped, inserted, deleted or duplicated (a fixed seed)."""
    rng = random.Random(20240601)
    seeds = [path.read_bytes() for path in SEED_FILES]
    out: dict[str, bytes] = {}
    for number in range(count):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 8)):
            position = rng.randrange(max(len(data), 1))
            operation = rng.choice(["flip", "insert", "delete", "duplicate"])
            if operation == "flip" and data:
                data[position] ^= 1 << rng.randrange(8)
            elif operation == "insert":
                data[position:position] = rng.choice([*INSERTS, bytes([rng.randrange(256)])])
            elif operation == "delete":
                del data[position : position + rng.randint(1, 16)]
            else:
                data[position:position] = data[position : position + rng.randint(1, 64)]
        out[f"mutated-{number:03d}"] = bytes(data)
    return out


DRIVER = r'''
"""Run feedmap.cli.main on each case of a manifest; check what it wrote; say what went wrong on stderr."""
import contextlib, csv, io, json, sys, traceback
from lxml import etree
from feedmap.cli import main

SAFE = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


XML = {"sitemap", "sitemapindex", "rss", "ror", "atom"}


def check(target, path):
    data = open(path, "rb").read()
    if target == "jsonl":
        for line in data.decode("utf-8").split("\n")[:-1]:
            assert isinstance(json.loads(line), dict), line
    elif target == "text":
        data.decode("utf-8")
    elif target in XML:
        etree.fromstring(data, SAFE)
    elif target == "csv":  # RFC 4180 the csv module reads strictly, under its header
        records = list(csv.reader(io.StringIO(data.decode("utf-8"), newline=""), strict=True))
        assert records[0][0] == "loc" and all(len(one) == len(records[0]) for one in records), records[:3]
    elif target == "parquet":
        import pyarrow.parquet
        assert pyarrow.parquet.read_table(path).column_names[0] == "loc"
    else:  # a format with no check of its own here: feedmap reads it back, with no error
        import feedmap
        with feedmap.read(path, format=target, options=feedmap.Options(strict=False)) as doc:
            for _ in doc:
                pass


codes = []
for argv, target, out in json.load(open(sys.argv[1])):
    print("=== " + " ".join(argv), file=sys.stderr)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
    except SystemExit as exc:  # only argparse may exit; main returns its code
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:
        traceback.print_exc()
        code = 99
    if code == 0:
        try:
            check(target, out)
        except BaseException:
            print("BAD OUTPUT " + out, file=sys.stderr)
            traceback.print_exc()
            code = 98
    codes.append(code)
json.dump(codes, sys.stdout)
'''


def _cases(folder: Path, inputs: dict[str, bytes]) -> list[tuple[list[str], str, str]]:
    cases: list[tuple[list[str], str, str]] = []
    out_dir = folder / "out"
    out_dir.mkdir()
    for number, (name, data) in enumerate(inputs.items()):
        path = folder / name
        path.write_bytes(data)
        named = READERS[number % len(READERS)]
        for target in WRITERS:
            for reading in ([], ["-f", named], ["--strict"]) if number % 3 == 0 else ([], ["-f", named]):
                out = str(out_dir / f"{name}.{len(cases)}.{target}")
                cases.append((["convert", "-q", str(path), *reading, "-t", target, "-o", out], target, out))
    return cases


def _failures(stderr: str) -> list[str]:
    """The stderr sections (one per case) that hold a traceback or a bad output."""
    sections = stderr.split("=== ")
    return [section[:3000] for section in sections if "Traceback" in section or "BAD OUTPUT" in section]


@pytest.mark.timeout(660)  # its driver runs up to 600 s
def test_no_traceback_from_hostile_or_mutated_inputs(tmp_path: Path) -> None:
    inputs = {**hostile_inputs(tmp_path), **mutated_inputs(60)}
    cases = _cases(tmp_path, inputs)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(cases))
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    result = subprocess.run(
        [sys.executable, str(driver), str(manifest)], capture_output=True, text=True, timeout=600, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-5000:]
    assert _failures(result.stderr) == []
    assert "Traceback" not in result.stderr
    codes = json.loads(result.stdout)
    assert len(codes) == len(cases)
    assert set(codes) <= {0, 1, 2}, [case[0] for case, code in zip(cases, codes, strict=True) if code not in (0, 1, 2)]
    assert 0 in codes and 1 in codes  # the corpus holds inputs that convert and inputs that cannot be used


def check_output(target: str, data: bytes) -> None:
    """What a writer wrote parses in its format."""
    if target == "jsonl":
        assert all(isinstance(json.loads(line), dict) for line in data.decode("utf-8").split("\n")[:-1])
    elif target == "text":
        data.decode("utf-8")
    else:
        etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False))


@pytest.mark.parametrize(
    ("name", "target", "code"),
    [
        ("surrogate-bytes.jsonl", "text", "invalid-json"),
        ("surrogate-bytes.jsonl", "jsonl", "invalid-json"),
        ("extras.jsonl", "sitemap", "invalid-extra"),
        ("undeclared-prefix.xml", "sitemapindex", "invalid-extra"),
        ("controls.jsonl", "rss", "character-dropped"),
        ("priorities.jsonl", "sitemap", "priority-rounded"),
        ("long-line.jsonl", "ror", "line-too-long"),
    ],
)
def test_no_traceback_from_a_real_feedmap_process(tmp_path: Path, name: str, target: str, code: str) -> None:
    """The issue's reproducers through ``python -m feedmap``: exit 0, output that parses, the problem reported."""
    source = tmp_path / name
    source.write_bytes(hostile_inputs(tmp_path)[name])
    out = tmp_path / f"out.{target}"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    result = subprocess.run(
        [sys.executable, "-m", "feedmap", "convert", str(source), "-t", target, "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    assert f"warning[{code}]" in result.stderr
    check_output(target, out.read_bytes())
