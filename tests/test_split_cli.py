"""``feedmap convert -o DIR/ --base-url URL``: splitting on the command line, its usage errors, and the hint
given when a single-file output passes the protocol's limits."""

from __future__ import annotations

import gzip
import io
import os
import re
import sys
from pathlib import Path

import pytest
from conftest import run
from localsite import LocalSite

from feedmap.formats import _output
from feedmap.formats.lines import _text as text

BASE = "https://example.com/maps/"


@pytest.fixture
def urls(tmp_path: Path) -> Path:
    """A sitemap of 25 URLs (whose reading warns of nothing)."""
    path = tmp_path / "urls.xml"
    body = "".join(f"<url><loc>https://example.com/page/{number}</loc></url>" for number in range(25))
    path.write_text(f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>')
    return path


def test_a_directory_output_is_split_and_summed_up(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    code, stdout, err = run(
        capsys, "convert", urls, "-t", "sitemap", "-o", f"{out}/", "--base-url", BASE, "--max-urls", "10"
    )
    assert code == 0 and stdout == ""
    assert sorted(os.listdir(out)) == ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml", "sitemap_index.xml"]
    last = err.splitlines()[-1]
    assert re.fullmatch(
        rf"feedmap: wrote 25 entries to 3 files and {re.escape(str(out))}/+sitemap_index\.xml: "
        r"\d files written, 0 unchanged, 0 removed",
        last,
    ), last
    assert BASE + "sitemap-3.xml" in (out / "sitemap_index.xml").read_text()


def test_gzip_name_and_byte_limit(capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()  # an existing directory needs no trailing slash
    code, _, _ = run(
        capsys,
        "convert",
        urls,
        "-o",
        out,
        "--base-url",
        BASE,
        "--gzip",
        "--name",
        "p-{n}.xml",
        "--max-file-bytes",
        "1K",
    )
    assert code == 0
    names = sorted(os.listdir(out), key=lambda name: (len(name), name))
    assert names[-1] == "sitemap_index.xml" and all(re.fullmatch(r"p-\d+\.xml\.gz", name) for name in names[:-1])
    assert all(len(gzip.decompress((out / name).read_bytes())) <= 1024 for name in names[:-1])
    assert len(names) > 2


def test_a_feed_is_split_when_asked(capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path) -> None:
    code, _, _ = run(
        capsys, "convert", urls, "-t", "ror", "-o", f"{tmp_path}/ror/", "--base-url", BASE, "--max-urls", "20"
    )
    assert code == 0
    assert sorted(os.listdir(tmp_path / "ror")) == ["ror-1.xml", "ror-2.xml", "sitemap_index.xml"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-o", "{out}/"], "needs --base-url"),
        (["-o", "{existing}"], "is a directory; writing numbered files and a sitemap index into it needs --base-url"),
        (["-o", "{out}/", "--base-url", "ftp://example.com/"], "not an absolute http(s) URL"),
        (["-o", "{out}/", "--base-url", BASE, "-t", "rss"], "--max-urls"),
        (["-o", "{out}/", "--base-url", BASE, "-t", "ror"], "--max-urls"),
        (["-o", "{out}/", "--base-url", BASE, "-t", "jsonl"], "cannot be split into files"),
        (["-o", "{out}/", "--base-url", BASE, "-t", "sitemapindex"], "cannot be split into files"),
        (["-o", "{file}", "--max-urls", "5"], "--max-urls: only for an output directory"),
        (["-o", "{file}", "--gzip", "--name", "a{n}.xml"], "--name, --gzip: only for an output directory"),
        (["-t", "text", "--max-file-bytes", "10K"], "only for an output directory"),
        (["-o", "{out}/", "--base-url", BASE, "--name", "sitemap.xml"], "holding {n}"),
        (["-o", "{out}/", "--base-url", BASE, "--name", "a/{n}.xml"], "without '/'"),
        (["-o", "{out}/", "--base-url", BASE, "--max-urls", "50001"], "1 to 50,000"),
        (["-o", "{out}/", "--base-url", BASE, "--max-urls", "0"], "1 to 50,000"),
        (["-o", "{out}/", "--base-url", BASE, "--max-file-bytes", "51M"], "at most 52,428,800 bytes"),
    ],
)
def test_usage_errors(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path, args: list[str], expected: str
) -> None:
    existing = tmp_path / "existing"
    existing.mkdir()
    places = {"out": tmp_path / "out", "existing": existing, "file": tmp_path / "single.xml"}
    code, _, err = run(
        capsys, "convert", urls, *(arg.format(**places) if "{" in arg and "{n}" not in arg else arg for arg in args)
    )
    assert code == 2, err
    assert expected in err and "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["existing", "urls.xml"] and os.listdir(existing) == []


def test_help_tells_of_directory_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "convert", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "--max-urls N" in text and "--gzip" in text and "-o public/sitemaps/ --base-url" in text
    assert "the URL the directory is served at" in text


# ------------------------------------------------------------------------- one file over the protocol's limits

HINT = "; write to a directory (-o DIR/ --base-url URL) to split it"


@pytest.fixture
def low_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The protocol's limits lowered (constants of feedmap's), so that 25 URLs pass them."""
    monkeypatch.setattr(_output, "MAX_URLS", 10)
    monkeypatch.setattr(text, "MAX_URLS", 10)


@pytest.mark.parametrize(
    ("target", "code_name"),
    [("sitemap", "too-many-entries"), ("text", "too-many-entries"), ("rss", "too-many-entries")],
)
def test_one_file_over_the_limit_hints_at_a_directory(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path, low_limits: None, target: str, code_name: str
) -> None:
    code, _, err = run(capsys, "convert", urls, "-t", target, "-o", tmp_path / "one")
    assert code == 0
    (line,) = [line for line in err.splitlines() if f"warning[{code_name}]" in line]
    assert line.endswith(HINT)


def test_one_file_over_the_byte_limit_hints_too(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_output, "MAX_BYTES", 500)
    monkeypatch.setattr(text, "MAX_BYTES", 500)
    for target in ("sitemap", "text"):
        code, _, err = run(capsys, "convert", urls, "-t", target, "-o", tmp_path / target)
        assert code == 0
        (line,) = [line for line in err.splitlines() if "warning[too-many-bytes]" in line]
        assert line.endswith(HINT)


@pytest.mark.parametrize("target", ["sitemap", "text"])
def test_strict_makes_one_file_over_the_limit_an_error(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path, low_limits: None, target: str
) -> None:
    code, _, err = run(capsys, "convert", urls, "-t", target, "-o", tmp_path / "one", "--strict")
    assert code == 1
    assert "error[too-many-entries]" in err and HINT in err and "strict mode" in err
    assert not (tmp_path / "one").exists()


def test_a_directory_output_within_the_limits_passes_strict(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path, low_limits: None
) -> None:
    code, _, err = run(
        capsys, "convert", urls, "-o", f"{tmp_path}/d/", "--base-url", BASE, "--max-urls", "10", "--strict"
    )
    assert code == 0, err


def test_a_long_input_read_gets_no_hint(capsys: pytest.CaptureFixture[str], tmp_path: Path, low_limits: None) -> None:
    """The reader's too-many-entries is about the input: no directory to write would change it."""
    lines = tmp_path / "urls.txt"
    lines.write_text("".join(f"https://example.com/page/{number}\n" for number in range(25)))
    code, _, err = run(capsys, "convert", lines, "-t", "jsonl")
    assert code == 0
    (line,) = [line for line in err.splitlines() if "warning[too-many-entries]" in line]
    assert HINT not in line


def test_a_file_in_the_way_is_said_before_the_missing_base_url(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path
) -> None:
    (tmp_path / "file.txt").write_text("kept")
    for extra in ([], ["--base-url", BASE]):
        code, _, err = run(capsys, "convert", urls, "-o", f"{tmp_path / 'file.txt'}/", *extra)
        assert code == 2 and "file.txt is not a directory" in err and "Traceback" not in err


def test_dash_is_standard_output_even_beside_a_folder_named_dash(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "-").mkdir()
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "convert", urls, "-t", "text", "-o", "-")
    assert code == 0 and out.count("\n") == 25 and os.listdir(tmp_path / "-") == []


def test_zero_padded_and_gz_names(capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["convert", urls, "-o", f"{out}/", "--base-url", BASE, "--max-urls", "10", "--name", "p-{n:04d}.xml.gz"]
    code, _, err = run(capsys, *args)
    assert code == 0, err
    assert sorted(os.listdir(out)) == ["p-0001.xml.gz", "p-0002.xml.gz", "p-0003.xml.gz", "sitemap_index.xml"]
    assert gzip.decompress((out / "p-0003.xml.gz").read_bytes()).count(b"<url>") == 5
    code, _, err = run(capsys, *args[:-1], "p-{n:4d}.xml")
    assert code == 2 and "{n} or {n:0Wd}" in err and "Traceback" not in err


def test_a_fetched_input_and_standard_input_split_alike(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path, web: LocalSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = web.add("/urls.xml", urls.read_bytes())
    code, _, err = run(capsys, "convert", remote, "-o", f"{tmp_path / 'a'}/", "--base-url", BASE, "--max-urls", "10")
    assert code == 0, err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(urls.read_bytes())))
    code, _, err = run(capsys, "convert", "-", "-o", f"{tmp_path / 'b'}/", "--base-url", BASE, "--max-urls", "10")
    assert code == 0, err
    for name in ("sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml", "sitemap_index.xml"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_name_change_removes_the_old_set_and_says_which_files(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path
) -> None:
    out = f"{tmp_path / 'out'}/"
    assert run(capsys, "convert", urls, "-o", out, "--base-url", BASE, "--max-urls", "10")[0] == 0
    again = ["convert", urls, "-o", out, "--base-url", BASE, "--max-urls", "10", "--name", "p-{n}.xml"]
    code, _, err = run(capsys, *again)
    assert code == 0, err
    (note,) = [line for line in err.splitlines() if "[stale-files-removed]" in line]
    assert "sitemap-1.xml, sitemap-2.xml, sitemap-3.xml" in note
    assert err.splitlines()[-1].endswith("4 files written, 0 unchanged, 3 removed")
    assert sorted(os.listdir(tmp_path / "out")) == ["p-1.xml", "p-2.xml", "p-3.xml", "sitemap_index.xml"]
    code, _, err = run(capsys, *again[:-1], "q-{n}.xml", "-q", "--strict")  # a note: -q hides it, --strict passes
    assert code == 0 and err == ""
    assert sorted(os.listdir(tmp_path / "out")) == ["q-1.xml", "q-2.xml", "q-3.xml", "sitemap_index.xml"]


def test_files_feedmap_did_not_write_are_never_removed(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path
) -> None:
    """Issue 17: a first run beside sitemap-2024.xml, --name '{n}.xml' beside 404.xml, --gzip beside the
    plain set of another index name: each run removes only what its own previous index named."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "sitemap-2024.xml").write_text("the site's own")
    (out / "404.xml").write_text("the site's error page")
    common = ["convert", urls, "-o", out, "--base-url", BASE]
    for args in (
        [],
        ["--name", "{n}.xml", "--index-name", "numbers.xml", "--max-urls", "5"],
        ["--name", "{n}.xml", "--index-name", "numbers.xml", "--max-urls", "9", "--rebalance"],  # 3 files, not 5
        ["--gzip", "--index-name", "zipped.xml", "--max-urls", "5"],
        ["--max-urls", "5"],
    ):
        code, _, err = run(capsys, *common, *args)
        assert code == 0 and "Traceback" not in err, err
        assert (out / "sitemap-2024.xml").read_text() == "the site's own"
        assert (out / "404.xml").read_text() == "the site's error page"
    assert err.splitlines()[-1].endswith("6 files written, 0 unchanged, 0 removed")
    for index in ("sitemap_index.xml", "numbers.xml", "zipped.xml"):  # every index names files that are there
        named = re.findall(r"<loc>https://example\.com/maps/([^<]+)</loc>", (out / index).read_text())
        assert named and all((out / name).is_file() for name in named), (index, named)
    assert sorted(name for name in os.listdir(out) if re.fullmatch(r"\d+\.xml", name)) == [
        "1.xml",
        "2.xml",
        "3.xml",
        "404.xml",
    ]


def test_a_byte_limit_below_a_files_start_and_end_is_refused_before_anything_is_made(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path
) -> None:
    out = f"{tmp_path / 'out'}/"
    code, _, err = run(capsys, "convert", urls, "-o", out, "--base-url", BASE, "--max-file-bytes", "100")
    assert code == 1 and "at most 100 bytes, less than its own start and end take" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_two_sets_share_a_directory_with_their_own_index_names(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path
) -> None:
    """--index-name: products and blog sitemaps side by side, each set with its index (the library's
    index_name); an index name the pattern could give is a usage error."""
    out = f"{tmp_path / 'out'}/"
    common = ["-o", out, "--base-url", BASE, "--max-urls", "10"]
    assert run(capsys, "convert", urls, *common, "--name", "products-{n}.xml", "--index-name", "products.xml")[0] == 0
    code, _, err = run(capsys, "convert", urls, *common, "--name", "blog-{n}.xml", "--index-name", "blog.xml")
    assert code == 0 and "stale-files-left" not in err
    assert sorted(os.listdir(tmp_path / "out")) == sorted(
        [f"products-{n}.xml" for n in (1, 2, 3)] + [f"blog-{n}.xml" for n in (1, 2, 3)] + ["products.xml", "blog.xml"]
    )
    assert BASE + "blog-3.xml" in (tmp_path / "out" / "blog.xml").read_text()
    code, _, err = run(capsys, "convert", urls, *common, "--name", "b{n}.xml", "--index-name", "b2.xml")
    assert code == 2 and "index name" in err and "Traceback" not in err
    code, _, err = run(capsys, "convert", urls, "-o", str(tmp_path / "one.xml"), "--index-name", "x.xml")
    assert code == 2 and "--index-name: only for an output directory" in err


@pytest.mark.parametrize(
    ("pattern", "index"), [("b{n}.xml", "B2.XML"), ("café-{n}.xml", "cafe\u0301-1.xml"), ("b{n}.xml", "b1.xml.GZ")]
)
def test_an_index_name_a_file_name_in_another_case_or_unicode_form_is_refused(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path, pattern: str, index: str
) -> None:
    """Where the file system folds case or Unicode forms (macOS, Windows), ``B2.XML`` is the file ``b2.xml``:
    the index would replace a file it names.  Refused before anything is written, as the name itself is."""
    out = tmp_path / "out"
    argv = ["-o", f"{out}/", "--base-url", BASE, "--max-urls", "10", "--name", pattern, "--index-name", index]
    code, _, err = run(capsys, "convert", urls, *argv)
    assert code == 2 and "index name" in err and not out.exists()


def test_names_a_url_must_encode_and_gz_in_capitals(
    capsys: pytest.CaptureFixture[str], urls: Path, tmp_path: Path
) -> None:
    """--name 'a#{n}.xml': the index names a%231.xml (the file), not a fragment of 'a'; --name '{n}.xml.GZ'
    writes gzip under that very name; a name with a control character is a usage error, nothing made."""
    out = tmp_path / "out"
    common = ["convert", urls, "-o", f"{out}/", "--base-url", BASE, "--max-urls", "10"]
    code, _, err = run(capsys, *common, "--name", "a#{n}.xml")
    assert code == 0, err
    assert f"<loc>{BASE}a%231.xml</loc>" in (out / "sitemap_index.xml").read_text() and (out / "a#1.xml").is_file()
    code, _, err = run(capsys, *common, "--name", "{n}.xml.GZ")
    assert code == 0, err
    assert sorted(os.listdir(out)) == ["1.xml.GZ", "2.xml.GZ", "3.xml.GZ", "sitemap_index.xml"]
    assert gzip.decompress((out / "3.xml.GZ").read_bytes()).count(b"<url>") == 5
    for option, value in (("--name", "a\n{n}.xml"), ("--index-name", "index\x1b[2J.xml")):
        code, _, err = run(capsys, "convert", urls, "-o", f"{tmp_path / 'new'}/", "--base-url", BASE, option, value)
        assert code == 2 and "control character" in err and "Traceback" not in err
        assert not (tmp_path / "new").exists()


@pytest.fixture(scope="module")
def over_the_limit(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A text list and a sitemap of 50,001 URLs: one more than one file may hold."""
    folder = tmp_path_factory.mktemp("big")
    lines = [f"https://example.com/maps/p/{number}" for number in range(50_001)]
    (folder / "urls.txt").write_text("".join(line + "\n" for line in lines))
    body = "".join(f"<url><loc>{line}</loc></url>\n" for line in lines)
    (folder / "urls.xml").write_text(f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</urlset>\n')
    return {"text": folder / "urls.txt", "sitemap": folder / "urls.xml"}


@pytest.mark.parametrize("read", ["text", "sitemap"])
def test_strict_splits_an_input_over_the_limit_of_one_file(
    capsys: pytest.CaptureFixture[str], over_the_limit: dict[str, Path], tmp_path: Path, read: str
) -> None:
    """Issue 17: the 50,000 URLs of the protocol are a limit of one file; split into files, an input over it
    is what -o DIR/ is for: a note (not a warning that --strict stops on) about the input."""
    source = over_the_limit[read]
    target = "sitemap" if read == "text" else "text"
    out = tmp_path / target
    code, _, err = run(capsys, "convert", source, "-t", target, "-o", f"{out}/", "--base-url", BASE, "--strict")
    assert code == 0, err
    assert "info[too-many-entries]" in err and "warning[too-many-entries]" not in err
    assert err.splitlines()[-1].startswith("feedmap: wrote 50,001 entries to 2 files")
    code, _, err = run(capsys, "convert", source, "-t", "jsonl", "-o", tmp_path / "one.jsonl", "--strict")
    assert code == 1 and "error[too-many-entries]" in err  # into one file, it still is the input's fault
