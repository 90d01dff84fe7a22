"""The ``feedmap`` command line: exit codes, messages on stderr, and what each option does to the output.

Most tests call :func:`feedmap.cli.main` in-process (with ``capsys``); two run the real entry points
(``python -m feedmap`` and the installed ``feedmap`` script) in a subprocess.  Exit codes (see
feedmap/cli/__init__.py): 0 ok, 1 unusable input or a warning under --strict, 2 usage or I/O error.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import run
from localsite import LocalSite
from lxml import etree

from feedmap.cli._common import PER_CODE, parse_size

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
BUILTIN_FORMATS = ("sitemap", "sitemapindex", "text", "jsonl")

LOCS = [
    "https://www.example.com/",
    "https://www.example.com/a?x=1&y=2",
    "https://www.example.com/b",
]
SITEMAP = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="{SITEMAP_NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>{LOCS[0]}</loc><lastmod>2021-06-30</lastmod><changefreq>daily</changefreq><priority>0.8</priority>
    <image:image><image:loc>https://www.example.com/i.png</image:loc></image:image></url>
  <url><loc>{LOCS[1].replace("&", "&amp;")}</loc><lastmod>2020-01-01</lastmod></url>
  <url><loc>{LOCS[2]}</loc></url>
</urlset>
""".encode()


# ------------------------------------------------------------------------------------------------ helpers


def write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def locs_of(output: str, fmt: str) -> list[str]:
    """The URLs in a converted output, read by an independent parser (lxml, json, splitlines)."""
    if fmt in ("sitemap", "sitemapindex"):
        root = etree.fromstring(output.encode())
        return [str(loc.text) for loc in root.iter(f"{{{SITEMAP_NS}}}loc")]
    if fmt == "text":
        return output.splitlines()
    if fmt == "jsonl":
        return [json.loads(line)["loc"] for line in output.splitlines() if "loc" in json.loads(line)]
    raise AssertionError(fmt)


def diagnostic_lines(stderr: str, code: str) -> list[str]:
    return [line for line in stderr.splitlines() if f"[{code}]:" in line]


def no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr


@pytest.fixture
def sitemap(tmp_path: Path) -> Path:
    """A small sitemap (3 URLs, one image, two lastmods) in its own folder."""
    folder = tmp_path / "in"
    folder.mkdir()
    return write(folder / "sitemap.xml", SITEMAP)


# -------------------------------------------------------------------------------------------- convert


@pytest.mark.parametrize("fmt", BUILTIN_FORMATS)
def test_convert_to_each_format_on_stdout(capsys: pytest.CaptureFixture[str], sitemap: Path, fmt: str) -> None:
    code, out, err = run(capsys, "convert", sitemap, "-t", fmt)
    assert code == 0, err
    assert locs_of(out, fmt) == LOCS
    # pages written as an index's children are reported (issue 9), nothing else
    expected = ["kind-changed"] if fmt == "sitemapindex" else []
    assert re.findall(r"warning\[([a-z-]+)\]", err) == expected


@pytest.mark.parametrize("fmt", BUILTIN_FORMATS)
def test_convert_with_output_file_writes_what_stdout_gets(
    capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path, fmt: str
) -> None:
    _, stdout_version, _ = run(capsys, "convert", sitemap, "-t", fmt)
    target = tmp_path / f"out.{fmt}"
    code, out, err = run(capsys, "convert", sitemap, "-t", fmt, "-o", target)
    assert code == 0, err
    assert out == ""  # nothing on stdout when -o is given
    assert target.read_bytes() == stdout_version.encode()
    assert re.search(r"\b3 entries\b", err)  # the summary line counts the entries written


def test_each_written_format_reads_back(capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path) -> None:
    for fmt in ("sitemap", "text", "jsonl"):
        target = tmp_path / f"out.{fmt}"
        assert run(capsys, "convert", sitemap, "-t", fmt, "-o", target)[0] == 0
        code, out, err = run(capsys, "convert", target, "-t", "text")
        assert code == 0, err
        assert out.splitlines() == LOCS


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("urls.txt", "text"), ("urls.TXT", "text"), ("out.jsonl", "jsonl"), ("out.ndjson", "jsonl"), ("s.xml", "sitemap")],
)
def test_target_format_is_inferred_from_output_extension(
    capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path, name: str, fmt: str
) -> None:
    target = tmp_path / name
    code, _, err = run(capsys, "convert", sitemap, "-o", target)
    assert code == 0, err
    assert locs_of(target.read_text(encoding="utf-8"), fmt) == LOCS
    if fmt == "sitemap":
        assert etree.fromstring(target.read_bytes()).tag == f"{{{SITEMAP_NS}}}urlset"


def test_explicit_target_format_beats_the_extension(
    capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path
) -> None:
    target = tmp_path / "really-text.xml"
    assert run(capsys, "convert", sitemap, "-t", "text", "-o", target)[0] == 0
    assert target.read_text(encoding="utf-8").splitlines() == LOCS


def test_missing_target_format_without_output_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], sitemap: Path
) -> None:
    code, out, err = run(capsys, "convert", sitemap)
    assert code == 2
    assert out == ""
    assert "-t" in err
    for name in BUILTIN_FORMATS:
        assert name in err
    no_traceback(err)


def test_output_extension_that_names_no_format_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path
) -> None:
    target = tmp_path / "out.dat"
    code, _, err = run(capsys, "convert", sitemap, "-o", target)
    assert code == 2
    assert not target.exists()
    no_traceback(err)


def test_unknown_target_format_is_a_usage_error(capsys: pytest.CaptureFixture[str], sitemap: Path) -> None:
    code, out, err = run(capsys, "convert", sitemap, "-t", "no-such-format")
    assert code == 2
    assert out == ""
    assert "no-such-format" in err
    assert "sitemap" in err  # names the formats that exist
    no_traceback(err)


def test_unknown_source_format_is_a_usage_error(capsys: pytest.CaptureFixture[str], sitemap: Path) -> None:
    code, _, err = run(capsys, "convert", sitemap, "-f", "no-such-format", "-t", "text")
    assert code == 2
    no_traceback(err)


def test_missing_input_is_an_io_error_without_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "missing.xml"
    code, out, err = run(capsys, "convert", missing, "-t", "text")
    assert code == 2
    assert out == ""
    assert str(missing) in err
    no_traceback(err)


def test_directory_as_input_is_an_io_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "convert", tmp_path, "-t", "text")
    assert code == 2
    no_traceback(err)


def test_output_into_missing_directory_is_an_io_error(
    capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path
) -> None:
    code, _, err = run(capsys, "convert", sitemap, "-t", "text", "-o", tmp_path / "nowhere" / "out.txt")
    assert code == 2
    no_traceback(err)


def test_several_inputs_are_concatenated_in_order(
    capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path
) -> None:
    second = write(tmp_path / "more.txt", "https://two.example/1\nhttps://two.example/2\n")
    third = write(tmp_path / "last.jsonl", '{"loc": "https://three.example/"}\n')
    code, out, err = run(capsys, "convert", second, sitemap, third, "-t", "jsonl")
    assert code == 0, err
    assert locs_of(out, "jsonl") == [
        "https://two.example/1",
        "https://two.example/2",
        *LOCS,
        "https://three.example/",
    ]


def test_stdin_dash(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # feedmap._io.sources reads sys.stdin.buffer: give it real bytes behind a text wrapper
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SITEMAP)))
    code, out, err = run(capsys, "convert", "-", "-t", "text")
    assert code == 0, err
    assert out.splitlines() == LOCS


def test_stdin_gzip_is_recognised_by_content(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gzip

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(SITEMAP))))
    code, out, err = run(capsys, "convert", "-", "-t", "text")
    assert code == 0, err
    assert out.splitlines() == LOCS


def test_stdin_diagnostics_are_named_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"https://a.example/\nnot a url\n")))
    code, out, err = run(capsys, "convert", "-", "-t", "text")
    assert code == 0
    assert out.splitlines() == ["https://a.example/"]
    assert diagnostic_lines(err, "loc-not-absolute") == [
        line for line in err.splitlines() if line.startswith("<stdin>:2: ")
    ]


def test_stdin_between_files(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = write(tmp_path / "first.txt", "https://first.example/\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"https://stdin.example/\n")))
    code, out, _ = run(capsys, "convert", first, "-", "-t", "text")
    assert code == 0
    assert out.splitlines() == ["https://first.example/", "https://stdin.example/"]


def test_stdin_twice_is_a_usage_error(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"https://a.example/\n")))
    code, _, err = run(capsys, "convert", "-", "-", "-t", "text")
    assert code == 2
    no_traceback(err)


# ------------------------------------------------------------------------------ diagnostics and --strict

BAD_TEXT = "https://ok.example/1\nnot a url\nhttps://ok.example/2\n"


def test_lenient_warnings_are_printed_with_file_and_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "urls.txt", BAD_TEXT)
    code, out, err = run(capsys, "convert", source, "-t", "text")
    assert code == 0
    assert out.splitlines() == ["https://ok.example/1", "https://ok.example/2"]
    pattern = re.compile(rf"^{re.escape(str(source))}:2: warning\[loc-not-absolute\]: \S.*$", re.MULTILINE)
    assert len(pattern.findall(err)) == 1


def test_lenient_xml_repair_reports_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(
        tmp_path / "s.xml",
        f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}">\n<url><loc>https://a.example/?a=1&b=2</loc>'
        "<changefreq>Daily</changefreq></url>\n</urlset>\n",
    )
    code, out, err = run(capsys, "convert", source, "-t", "jsonl")
    assert code == 0
    assert json.loads(out) == {"loc": "https://a.example/?a=1&b=2", "changefreq": "daily"}
    assert re.search(rf"^{re.escape(str(source))}:3: warning\[bare-ampersand\]: ", err, re.MULTILINE)
    assert re.search(rf"^{re.escape(str(source))}:3: warning\[changefreq-case\]: ", err, re.MULTILINE)


def test_strict_stops_at_the_first_problem(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "urls.txt", BAD_TEXT + "also not a url\n")
    code, _, err = run(capsys, "convert", source, "--strict", "-t", "jsonl")
    assert code == 1
    problems = [line for line in err.splitlines() if "[loc-not-absolute]" in line]
    assert len(problems) == 1  # stopped at the first
    assert problems[0].startswith(f"{source}:2: ")
    no_traceback(err)


def test_strict_on_clean_input_succeeds(capsys: pytest.CaptureFixture[str], sitemap: Path) -> None:
    code, out, err = run(capsys, "convert", sitemap, "--strict", "-t", "text")
    assert code == 0, err
    assert out.splitlines() == LOCS


def test_strict_ignores_notes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # blanks around a loc and IRIs rewritten by --encode-urls are notes, which --strict lets through
    source = write(
        tmp_path / "s.xml", f'<urlset xmlns="{SITEMAP_NS}"><url><loc> https://a.example/\u00e9 </loc></url></urlset>'
    )
    code, out, err = run(capsys, "convert", source, "--strict", "--encode-urls", "-t", "text")
    assert code == 0, err
    assert out.splitlines() == ["https://a.example/%C3%A9"]
    assert len(diagnostic_lines(err, "whitespace-trimmed")) == 1
    assert len(diagnostic_lines(err, "url-encoded")) == 1


@pytest.mark.parametrize("good_before", [0, 2_000])
def test_strict_failure_leaves_earlier_output_untouched(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, good_before: int
) -> None:
    """With 2,000 good URLs first, the writer has already flushed to its temporary file when it fails."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    outputs = tmp_path / "out"
    outputs.mkdir()
    lines = [f"https://ok.example/{i}" for i in range(good_before)] + ["not a url", "https://ok.example/end"]
    source = write(inputs / "urls.txt", "\n".join(lines) + "\n")
    target = write(outputs / "sitemap.xml", b"<previous output/>\n")
    before = target.read_bytes()
    code, _, err = run(capsys, "convert", source, "--strict", "-t", "sitemap", "-o", target)
    assert code == 1
    assert f"{source}:{good_before + 1}: " in err
    assert target.read_bytes() == before
    assert sorted(p.name for p in outputs.iterdir()) == ["sitemap.xml"]  # no temporary file left


def test_lenient_run_replaces_earlier_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "urls.txt", BAD_TEXT)
    outputs = tmp_path / "out"
    outputs.mkdir()
    target = write(outputs / "urls.txt", b"old\n")
    assert run(capsys, "convert", source, "-o", target)[0] == 0
    assert target.read_text(encoding="utf-8").splitlines() == ["https://ok.example/1", "https://ok.example/2"]
    assert sorted(p.name for p in outputs.iterdir()) == ["urls.txt"]


def test_repeated_diagnostics_are_cut_after_the_limit_per_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    extra = 5
    lines = ["https://ok.example/"]
    lines += [f"bad line {i}" for i in range(PER_CODE + extra)]  # loc-not-absolute, over the limit
    lines += [f"https://ok.example/{i} with space" for i in range(3)]  # loc-not-escaped, under the limit
    source = write(tmp_path / "urls.txt", "\n".join(lines) + "\n")
    code, out, err = run(capsys, "convert", source, "-t", "text")
    assert code == 0
    assert len(out.splitlines()) == 4
    assert PER_CODE == 20
    shown = diagnostic_lines(err, "loc-not-absolute")
    assert len(shown) == PER_CODE
    assert shown[0].startswith(f"{source}:2: ") and shown[-1].startswith(f"{source}:{PER_CODE + 1}: ")
    assert len(diagnostic_lines(err, "loc-not-escaped")) == 3
    summary = [line for line in err.splitlines() if "not shown" in line]
    assert len(summary) == 1
    assert re.search(rf"\b{extra} loc-not-absolute\b", summary[0])
    assert "loc-not-escaped" not in summary[0]


def test_quiet_hides_notes_but_not_warnings(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "urls.txt", "https://b\u00fccher.example/\u00fc\nnot a url\n")
    code, _, err = run(capsys, "convert", source, "-t", "text", "--encode-urls", "-q")
    assert code == 0
    assert diagnostic_lines(err, "url-encoded") == []
    assert len(diagnostic_lines(err, "loc-not-absolute")) == 1


# ------------------------------------------------------------------------------------ size limits


def test_max_bytes_smaller_than_the_input_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # on standard input: a local regular file is read whole (issue 17), what has no size up front is capped
    data = "".join(f"https://example.com/{i:04d}\n" for i in range(200)).encode()
    assert len(data) > 1024
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, err = run(capsys, "convert", "-", "-t", "text", "--max-bytes", "1K")
    assert code == 1
    assert re.search(r"^<stdin>: error\[too-large\]: ", err, re.MULTILINE)
    no_traceback(err)
    assert len(out.splitlines()) < 200


def test_max_bytes_applies_to_decompressed_size(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import gzip

    data = "".join(f"https://example.com/{i:04d}\n" for i in range(2_000)).encode()
    source = write(tmp_path / "urls.txt.gz", gzip.compress(data))
    assert source.stat().st_size < 16 * 1024 < len(data)
    code, _, err = run(capsys, "convert", source, "-t", "text", "--max-bytes", "16K")
    assert code == 1
    assert "[too-large]" in err


def test_max_bytes_boundary(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    data = "".join(f"https://example.com/{i:04d}\n" for i in range(100)).encode()
    for cap, expected in ((len(data), 0), (len(data) - 1, 1)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        assert run(capsys, "convert", "-", "-t", "text", "--max-bytes", str(cap))[0] == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("500000", 500_000),
        ("1K", 1024),
        ("1k", 1024),
        ("2M", 2 * 1024**2),
        ("1.5G", int(1.5 * 1024**3)),
        ("100MiB", 100 * 1024**2),
        ("2KB", 2048),
    ],
)
def test_size_suffixes(text: str, value: int) -> None:
    assert parse_size(text) == value


@pytest.mark.parametrize("size", ["1K", "2M", "1.5G"])
def test_size_suffixes_are_accepted_on_the_command_line(
    capsys: pytest.CaptureFixture[str], sitemap: Path, size: str
) -> None:
    code, out, err = run(capsys, "convert", sitemap, "-t", "text", "--max-bytes", size)
    assert code == 0, err
    assert out.splitlines() == LOCS


@pytest.mark.parametrize("size", ["garbage", "", "12Q", "-5", "0", "1.2.3K"])
def test_bad_sizes_are_usage_errors(capsys: pytest.CaptureFixture[str], sitemap: Path, size: str) -> None:
    code, out, err = run(capsys, "convert", sitemap, "-t", "text", "--max-bytes", size)
    assert code == 2
    assert out == ""
    assert "--max-bytes" in err
    no_traceback(err)


# ------------------------------------------------------------------------------ indexes: follow and map


def make_site(root: Path) -> tuple[Path, list[str]]:
    """A build directory with an index of two child sitemaps (one gzipped); returns (index, page locs)."""
    import gzip

    site = root / "public"
    site.mkdir()
    pages_a = ["https://example.com/a1", "https://example.com/a2"]
    pages_b = ["https://example.com/b1"]

    def urlset(locs: Sequence[str]) -> bytes:
        body = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
        return f'<?xml version="1.0"?><urlset xmlns="{SITEMAP_NS}">{body}</urlset>'.encode()

    write(site / "sitemap-a.xml", urlset(pages_a))
    write(site / "sitemap-b.xml.gz", gzip.compress(urlset(pages_b)))
    index = write(
        site / "sitemap_index.xml",
        f'<?xml version="1.0"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n'
        "<sitemap><loc>https://example.com/sitemap-a.xml</loc><lastmod>2024-01-01</lastmod></sitemap>\n"
        "<sitemap><loc>https://example.com/sitemap-b.xml.gz</loc></sitemap>\n"
        "</sitemapindex>\n",
    )
    return index, pages_a + pages_b


def test_map_reads_index_children_from_a_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    index, pages = make_site(tmp_path)
    code, out, err = run(capsys, "convert", index, "--map", f"https://example.com/={index.parent}", "-t", "text")
    assert code == 0, err
    assert out.splitlines() == pages
    assert "warning[" not in err


def test_no_follow_yields_the_index_entries(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    index, _ = make_site(tmp_path)
    code, out, err = run(
        capsys, "convert", index, "--no-follow", "--map", f"https://example.com/={index.parent}", "-t", "jsonl"
    )
    assert code == 0, err
    assert [json.loads(line) for line in out.splitlines()] == [
        {"kind": "index"},
        {"loc": "https://example.com/sitemap-a.xml", "lastmod": "2024-01-01"},
        {"loc": "https://example.com/sitemap-b.xml.gz"},
    ]


def test_no_follow_index_to_sitemapindex(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    index, _ = make_site(tmp_path)
    code, out, err = run(capsys, "convert", index, "--no-follow", "-t", "sitemapindex")
    assert code == 0, err
    root = etree.fromstring(out.encode())
    assert root.tag == f"{{{SITEMAP_NS}}}sitemapindex"
    assert locs_of(out, "sitemapindex") == ["https://example.com/sitemap-a.xml", "https://example.com/sitemap-b.xml.gz"]


def test_map_to_a_missing_directory_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path
) -> None:
    code, out, err = run(capsys, "convert", sitemap, "--map", f"https://example.com/={tmp_path / 'nope'}", "-t", "text")
    assert code == 2
    assert out == ""
    assert "--map" in err
    no_traceback(err)


@pytest.mark.parametrize("value", ["no-equals-sign", "=dir", "https://example.com/="])
def test_malformed_map_is_a_usage_error(capsys: pytest.CaptureFixture[str], sitemap: Path, value: str) -> None:
    assert run(capsys, "convert", sitemap, "--map", value, "-t", "text")[0] == 2


@pytest.mark.parametrize("remote", [False, True], ids=["file-input", "url-input"])
def test_cache_that_is_a_file_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path, web: LocalSite, remote: bool
) -> None:
    source = web.add("/sitemap.xml", SITEMAP) if remote else str(sitemap)
    not_a_directory = write(tmp_path / "cache", "I am a file")
    code, out, err = run(capsys, "convert", source, "-t", "text", "--cache", not_a_directory)
    assert code == 2
    assert out == ""
    assert "--cache" in err
    assert err.startswith("usage:")
    assert web.hits("/sitemap.xml") == 0
    assert not_a_directory.read_text() == "I am a file"
    no_traceback(err)


# ------------------------------------------------------------------------------ writing options


def test_schema_location(capsys: pytest.CaptureFixture[str], sitemap: Path) -> None:
    code, out, _ = run(capsys, "convert", sitemap, "-t", "sitemap", "--schema-location")
    assert code == 0
    root = etree.fromstring(out.encode())
    assert root.get(f"{{{XSI_NS}}}schemaLocation") == f"{SITEMAP_NS} {SITEMAP_NS}/sitemap.xsd"
    _, plain, _ = run(capsys, "convert", sitemap, "-t", "sitemap")
    assert etree.fromstring(plain.encode()).get(f"{{{XSI_NS}}}schemaLocation") is None
    assert "xsi" not in plain


def test_schema_location_on_an_index(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    index, _ = make_site(tmp_path)
    code, out, _ = run(capsys, "convert", index, "--no-follow", "-t", "sitemapindex", "--schema-location")
    assert code == 0
    root = etree.fromstring(out.encode())
    assert root.get(f"{{{XSI_NS}}}schemaLocation") == f"{SITEMAP_NS} {SITEMAP_NS}/siteindex.xsd"


def test_encode_urls(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "urls.txt", "https://www.example.com/\u00fcmlat.html?q=a b\nhttps://plain.example/\n")
    code, out, err = run(capsys, "convert", source, "-t", "sitemap", "--encode-urls")
    assert code == 0
    assert locs_of(out, "sitemap") == ["https://www.example.com/%C3%BCmlat.html?q=a%20b", "https://plain.example/"]
    notes = diagnostic_lines(err, "url-encoded")
    assert len(notes) == 1  # one per changed URL; the ASCII one is not reported
    assert "warning[url-encoded]" not in notes[0]  # a note, not a warning


def test_encode_urls_idna_host(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "urls.txt", "https://b\u00fccher.example/\n")
    code, out, _ = run(capsys, "convert", source, "-t", "text", "--encode-urls")
    assert code == 0
    assert out.splitlines() == ["https://xn--bcher-kva.example/"]


def test_without_encode_urls_iris_are_kept(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "urls.txt", "https://www.example.com/\u00fcmlat.html\n")
    code, out, err = run(capsys, "convert", source, "-t", "text")
    assert code == 0
    assert out.splitlines() == ["https://www.example.com/\u00fcmlat.html"]
    assert diagnostic_lines(err, "url-encoded") == []


def test_field_dropped_note(capsys: pytest.CaptureFixture[str], sitemap: Path) -> None:
    code, _, err = run(capsys, "convert", sitemap, "-t", "text")
    assert code == 0
    dropped = diagnostic_lines(err, "field-dropped")
    assert len(dropped) == 1  # one line (issue 9) naming lastmod, changefreq, priority, images
    assert "cannot hold lastmod, changefreq, priority, images; they are not written" in dropped[0]


# ------------------------------------------------------------------------------ unknown input


def test_unrecognised_input_names_the_formats(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    junk = write(tmp_path / "junk.bin", bytes(range(256)) * 4)
    code, out, err = run(capsys, "convert", junk, "-t", "text")
    assert code == 1
    assert out == ""
    assert str(junk) in err
    for name in BUILTIN_FORMATS:
        assert name in err
    no_traceback(err)


def test_unrecognised_xml_root(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "other.xml", '<?xml version="1.0"?><catalog xmlns="urn:x"><item/></catalog>')
    code, _, err = run(capsys, "convert", source, "-t", "text")
    assert code == 1
    assert "catalog" in err
    no_traceback(err)


def test_empty_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "empty.xml", b"")
    code, _, err = run(capsys, "convert", source, "-t", "text")
    assert code == 1
    no_traceback(err)


def test_forcing_the_source_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "list.dat", '{"loc": "https://a.example/"}\n')
    code, out, _ = run(capsys, "convert", source, "-t", "text")
    assert code == 0
    assert out.splitlines() == ["https://a.example/"]  # recognised as JSON lines
    code, out, err = run(capsys, "convert", source, "-f", "text", "-t", "text")
    assert code == 0
    assert out == ""  # read as a text sitemap: the line is not a URL
    assert len(diagnostic_lines(err, "loc-not-absolute")) == 1


# ------------------------------------------------------------------------------ formats and info


def test_formats_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats")
    assert code == 0
    names = {line.split()[0] for line in out.splitlines() if line and not line[0].isspace()}
    assert set(BUILTIN_FORMATS) <= names


def test_formats_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats", "--json")
    assert code == 0
    rows = {row["name"]: row for row in json.loads(out)}
    assert set(BUILTIN_FORMATS) <= set(rows)
    for name in BUILTIN_FORMATS:
        row = rows[name]
        assert {"name", "title", "read", "write", "extensions", "fields"} <= set(row)
        assert row["read"] is True and row["write"] is True
        assert "loc" in row["fields"]
    assert rows["text"]["fields"] == ["loc"]
    assert set(rows["sitemapindex"]["fields"]) >= {"loc", "lastmod"}
    assert "images" in rows["sitemap"]["fields"] and "images" not in rows["sitemapindex"]["fields"]
    assert ".txt" in rows["text"]["extensions"] and ".jsonl" in rows["jsonl"]["extensions"]


def test_formats_say_which_can_be_split_into_a_directory(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats", "--json")
    assert code == 0
    split = {row["name"] for row in json.loads(out) if row.get("split")}
    assert split == {"sitemap", "text", "rss", "ror", "atom"}
    code, out, _ = run(capsys, "formats")
    modes = {line.split()[0]: line.split()[1] for line in out.splitlines() if line and not line[0].isspace()}
    assert modes["sitemap"] == "read/write/split"
    assert modes["jsonl"] == "read/write"
    assert "split: written into numbered files and an index" in out


def test_info_text(capsys: pytest.CaptureFixture[str], sitemap: Path) -> None:
    code, out, _ = run(capsys, "info", sitemap)
    assert code == 0
    assert re.search(r"^\s*format:\s+sitemap$", out, re.MULTILINE)
    assert re.search(r"^\s*entries:\s+3$", out, re.MULTILINE)
    assert re.search(r"^\s*images:\s+1$", out, re.MULTILINE)
    assert re.search(r"^\s*lastmod:\s+2020-01-01 \.\. 2021-06-30\b", out, re.MULTILINE)
    assert re.search(r"^\s*diagnostics:\s+none$", out, re.MULTILINE)


def test_info_text_counts_diagnostics(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "urls.txt", BAD_TEXT + "again not\n")
    code, out, err = run(capsys, "info", source)
    assert code == 0
    assert re.search(r"^\s*entries:\s+2$", out, re.MULTILINE)
    line = next(line for line in out.splitlines() if "diagnostics:" in line)
    assert "2 warnings" in line and "loc-not-absolute 2" in line
    assert len(diagnostic_lines(err, "loc-not-absolute")) == 2


def test_info_json(capsys: pytest.CaptureFixture[str], sitemap: Path, tmp_path: Path) -> None:
    source = write(tmp_path / "urls.txt", BAD_TEXT)
    code, out, _ = run(capsys, "info", "--json", sitemap, source)
    assert code == 0
    first, second = (json.loads(line) for line in out.splitlines())
    assert set(first) == {
        "input",
        "format",
        "kind",
        "followed",  # issue 9: a followed index says so
        "children",  # issue 21: each child sitemap of an index followed (none here)
        "entries",
        "images",
        "with_lastmod",
        "lastmod_min",
        "lastmod_max",
        "errors",
        "warnings",
        "notes",
        "diagnostics",
    }
    assert first["input"] == str(sitemap)
    assert (first["format"], first["kind"], first["entries"], first["images"]) == ("sitemap", "urlset", 3, 1)
    assert (first["with_lastmod"], first["lastmod_min"], first["lastmod_max"]) == (2, "2020-01-01", "2021-06-30")
    assert (first["warnings"], first["diagnostics"]) == (0, {})
    assert (second["format"], second["entries"], second["lastmod_min"]) == ("text", 2, None)
    assert second["warnings"] == 1 and second["diagnostics"] == {"loc-not-absolute": 1}
    assert first["children"] == second["children"] == []


def test_info_lastmod_range_compares_instants_not_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(
        tmp_path / "s.xml",
        f'<urlset xmlns="{SITEMAP_NS}">'
        "<url><loc>https://a.example/1</loc><lastmod>2024-05-01T23:30:00-05:00</lastmod></url>"
        "<url><loc>https://a.example/2</loc><lastmod>2024-05-02T01:00:00Z</lastmod></url>"
        "<url><loc>https://a.example/3</loc><lastmod>2024-05-02T03:00:00+01:00</lastmod></url>"
        "</urlset>",
    )
    code, out, _ = run(capsys, "info", "--json", source)
    assert code == 0
    summary = json.loads(out)
    # 01:00Z < 02:00Z (03:00+01:00) < 04:30Z (23:30-05:00): the text order would differ
    assert (summary["lastmod_min"], summary["lastmod_max"]) == ("2024-05-02T01:00:00Z", "2024-05-01T23:30:00-05:00")


def test_info_strict_and_missing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = write(tmp_path / "urls.txt", BAD_TEXT)
    assert run(capsys, "info", "--strict", source)[0] == 1
    code, _, err = run(capsys, "info", tmp_path / "missing.txt")
    assert code == 2
    no_traceback(err)


# ------------------------------------------------------------------------------ help and usage


@pytest.mark.parametrize("command", [[], ["convert"], ["info"], ["formats"], ["codes"]])
def test_help_exits_0_and_shows_examples(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, _ = run(capsys, *command, "--help")
    assert code == 0
    assert "usage: feedmap" in out
    assert "examples:" in out
    assert re.search(r"^\s+feedmap \S+", out[out.index("examples:") :], re.MULTILINE)


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert code == 2
    assert out == ""
    assert "usage: feedmap" in err


def test_unknown_command_and_option_are_usage_errors(capsys: pytest.CaptureFixture[str], sitemap: Path) -> None:
    assert run(capsys, "frobnicate")[0] == 2
    assert run(capsys, "convert", sitemap, "-t", "text", "--no-such-option")[0] == 2
    assert run(capsys, "convert", "-t", "text")[0] == 2  # no INPUT


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import feedmap

    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert feedmap.__version__ in out


# ------------------------------------------------------------------------------ real entry points


def test_python_dash_m_feedmap(sitemap: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "feedmap", "convert", str(sitemap), "-t", "text"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == LOCS


def test_installed_console_script(sitemap: Path, tmp_path: Path) -> None:
    script = shutil.which("feedmap", path=str(Path(sys.executable).parent)) or shutil.which("feedmap")
    if script is None:
        pytest.skip("the feedmap console script is not installed (pip install -e .)")
    ok = subprocess.run(
        [script, "convert", str(sitemap), "-t", "jsonl"], capture_output=True, text=True, timeout=120, check=False
    )
    assert ok.returncode == 0, ok.stderr
    assert locs_of(ok.stdout, "jsonl") == LOCS
    # main()'s return value is the process exit status
    missing = subprocess.run(
        [script, "convert", str(tmp_path / "missing.xml"), "-t", "text"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert missing.returncode == 2
    assert "Traceback" not in missing.stderr
