"""``--jobs N`` / ``Options(jobs=N)``: an index's children read by worker processes, the output that of ``--jobs 1``.

Every comparison runs the same command twice, in two directories (so the output's own name in the messages is
the same), once with ``--jobs 1`` and once with ``--jobs 2`` (or 0), and compares everything: the files written
(every file of a split directory), standard output, standard error and the exit code.  The index's children are
broken in the ways reading reports (a truncated file, a missing one, an HTML page, bad dates and priorities, a
relative URL, a nested index, a gzip child) and repeat URLs across children, so merges and their diagnostics
span partitions.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import index_xml, run, run_in
from jobsite import SITE, descendants
from jobsite import jobs_site as _site
from jobsite import urlset as _urlset
from localsite import LocalSite

import feedmap
from feedmap import Diagnostic, Options, SourceError


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    _site(folder)
    return folder


Outcome = tuple[int, str, str, dict[str, bytes]]


def _same_with_jobs(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], jobs: str = "2") -> Outcome:
    """The outcome of ``argv`` with ``--jobs 1``, asserted equal to that with ``--jobs JOBS``."""
    tmp_path.mkdir(exist_ok=True)
    one = run_in(capsys, tmp_path / "one", [*argv, "--jobs", "1"])
    many = run_in(capsys, tmp_path / f"jobs-{jobs}", [*argv, "--jobs", jobs])
    assert many[0] == one[0]
    assert many[2] == one[2]
    assert many[1] == one[1]
    assert many[3] == one[3]
    return one


def _mapped(site: Path) -> list[str]:
    return [str(site / "index.xml"), "--map", f"{SITE}={site}"]


@pytest.mark.parametrize("target", ["sitemap", "text", "jsonl", "rss", "ror", "sitemapindex"])
def test_convert_to_each_format_is_the_same_with_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, target: str
) -> None:
    code, _out, err, files = _same_with_jobs(capsys, tmp_path, ["convert", *_mapped(site), "-t", target, "-o", "out"])
    assert code == 0
    assert files["out"]
    for seen in ("xml-not-well-formed", "child-unreadable", "lastmod-invalid", "relative-url-resolved"):
        assert seen in err  # the broken children are read and reported, not passed over


def test_merges_of_urls_repeated_across_children_are_the_same(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path
) -> None:
    code, out, err, _files = _same_with_jobs(capsys, tmp_path, ["convert", *_mapped(site), "-t", "sitemap"])
    assert code == 0
    assert "duplicates-merged" in err and "loc-duplicate" in err
    assert out.count("<loc>") == len(set(out.split("<loc>")[1:]))  # each URL once


@pytest.mark.parametrize("flags", [[], ["--dedupe", "last"], ["--sort", "-lastmod", "--limit", "700"]])
def test_selection_is_the_same_with_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, flags: list[str]
) -> None:
    argv = ["convert", *_mapped(site), "-t", "jsonl", "--since", "2024-03-01", *flags]
    assert _same_with_jobs(capsys, tmp_path, argv)[0] == 0


@pytest.mark.parametrize("target", ["sitemap", "text"])
def test_split_directories_are_the_same_with_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, target: str
) -> None:
    argv = ["convert", *_mapped(site), "-t", target, "-o", "out/", "--base-url", SITE, "--max-urls", "150"]
    code, _out, _err, files = _same_with_jobs(capsys, tmp_path, argv)
    assert code == 0
    assert len(files) > 5  # several files and the index


def test_strict_stops_at_the_same_warning(capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path) -> None:
    code, _out, err, files = _same_with_jobs(capsys, tmp_path, ["convert", *_mapped(site), "--strict", "-o", "out.xml"])
    assert code == 1
    assert "strict mode stops" in err
    assert not files  # nothing half-written


def test_jobs_0_uses_every_core_and_writes_the_same(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path
) -> None:
    assert _same_with_jobs(capsys, tmp_path, ["convert", *_mapped(site), "-t", "text"], jobs="0")[0] == 0


@pytest.mark.parametrize("flags", [[], ["--json"]])
def test_validate_is_the_same_with_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, flags: list[str]
) -> None:
    code, out, _err, _files = _same_with_jobs(capsys, tmp_path, ["validate", *_mapped(site), *flags])
    assert code == 1
    assert "c3.xml" in out


@pytest.mark.parametrize("flags", [[], ["--json"]])
def test_info_is_the_same_with_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, flags: list[str]
) -> None:
    code, out, _err, _files = _same_with_jobs(capsys, tmp_path, ["info", *_mapped(site), *flags])
    assert code == 0
    assert out


def test_diff_is_the_same_with_workers(capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path) -> None:
    new = tmp_path / "new"
    files = _site(new)
    (new / "c1.xml").write_bytes(files["c0.xml"].replace(b"2024-", b"2023-"))
    (new / "c0.xml").write_bytes(files["c0.xml"].replace(b"page-1", b"moved-1"))
    clean = index_xml(*(f"{SITE}{name}" for name in ["c0.xml", "c1.xml", "c2.xml", "inner.xml", "c5.xml.gz"]))
    for side in (site, new):
        (side / "clean.xml").write_bytes(clean)
    argv = ["diff", "--old-map", f"{SITE}={site}", "--new-map", f"{SITE}={new}"]
    code, out, _err, _files = _same_with_jobs(
        capsys, tmp_path, [*argv, str(site / "clean.xml"), str(new / "clean.xml")]
    )
    assert code == 1
    assert "moved-1" in out
    broken = [*argv, "--json", str(site / "index.xml"), str(new / "index.xml")]
    code, out, err, _files = _same_with_jobs(capsys, tmp_path / "broken", broken)
    assert code == 2  # an input read incompletely
    assert "input-incomplete" in err


def test_a_remote_index_is_the_same_with_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, web: LocalSite
) -> None:
    files = _site(tmp_path / "site", count=200)
    for name, body in files.items():
        web.add(f"/{name}", body.replace(SITE.encode(), web.url("/").encode()))
    web.add("/missing.xml", b"gone", status=410)
    web.add("/elsewhere.xml", b"", status=301, headers={"Location": "http://127.0.0.2:9/x.xml"})
    index = index_xml(*(web.url(f"/{name}") for name in ["c0.xml", "elsewhere.xml", "c3.xml", "inner.xml", "c2.xml"]))
    web.add("/index.xml", index)
    argv = ["convert", web.url("/index.xml"), "-t", "jsonl", "-o", "out", "--retries", "0"]
    code, _out, err, _files = _same_with_jobs(capsys, tmp_path, argv)
    assert code == 0
    assert "child-off-site" in err and "xml-not-well-formed" in err


def test_the_library_reads_the_same_with_workers(site: Path) -> None:
    def read(jobs: int) -> tuple[list[feedmap.Entry], list[Diagnostic]]:
        seen: list[Diagnostic] = []
        options = Options(jobs=jobs, maps=((SITE, site),))
        with feedmap.read(str(site / "index.xml"), options=options, on_diagnostic=seen.append) as doc:
            return list(doc.entries), seen

    entries, diagnostics = read(1)
    assert read(2) == (entries, diagnostics)
    assert [entry.origin for entry in read(2)[0]] == [entry.origin for entry in entries]


def _killing_workers() -> Callable[[Diagnostic], None]:
    """A diagnostic handler that kills this process's worker processes (the forkserver's children) once."""
    done: list[int] = []

    def handle(diagnostic: Diagnostic) -> None:
        if done:
            return
        for pid in descendants(os.getpid()):
            if Path(f"/proc/{pid}/stat").exists() and _parent(pid) != os.getpid():  # a worker, not the server
                os.kill(pid, signal.SIGKILL)
                done.append(pid)

    return handle


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the worker processes in /proc")
def ours(scratch: Path) -> list[Path]:
    """What the run left in the temporary folder ``scratch``: not the ``pymp-*`` folder of multiprocessing's
    forkserver, which the first pool of the test process makes there and Python removes at its exit."""
    return [path for path in scratch.iterdir() if not path.name.startswith("pymp-")]


def test_a_killed_worker_is_an_error_naming_its_child_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the workers' spills go
    folder = tmp_path / "site"
    children = []
    for child in range(8):
        (folder / f"c{child}.xml").parent.mkdir(parents=True, exist_ok=True)
        (folder / f"c{child}.xml").write_text(_urlset(child, 20_000 if child else 50))
        children.append(f"{SITE}c{child}.xml")
    (folder / "index.xml").write_bytes(index_xml(*children))
    out = tmp_path / "out.xml"
    options = Options(jobs=2, maps=((SITE, folder),), concurrency=8)
    with pytest.raises(SourceError, match=r"https://example\.com/c\d\.xml: the worker process .* stopped"):
        feedmap.convert(str(folder / "index.xml"), out, "sitemap", options, on_diagnostic=_killing_workers())
    assert not out.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["site", "tmp"]  # no output, not even a temporary
    assert not ours(scratch)  # the spills removed
    with pytest.raises(SourceError, match=r"https://example\.com/c\d\.xml: the worker process .* stopped"):
        feedmap.validate(str(folder / "index.xml"), options=options, on_diagnostic=_killing_workers())
    assert not ours(scratch)


@pytest.mark.parametrize(
    ("value", "message"), [("-1", "-1"), ("x", "'x' is not a whole number"), ("1.5", "1.5"), ("257", "257")]
)
def test_bad_jobs_are_usage_errors(capsys: pytest.CaptureFixture[str], site: Path, value: str, message: str) -> None:
    for command in ("convert", "validate", "info"):
        code, _out, err = run(capsys, command, str(site / "index.xml"), "--jobs", value)
        assert code == 2
        assert "--jobs" in err and message in err


@pytest.mark.parametrize("value", [-1, 1.0, "2", True, 257])
def test_options_refuse_bad_jobs_by_name(value: object) -> None:
    with pytest.raises(ValueError, match=r"^jobs: "):
        Options(jobs=value)  # type: ignore[arg-type]


def test_calls_that_read_no_index_refuse_jobs(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"write\(\) cannot use jobs"):
        feedmap.write([], tmp_path / "out.xml", "sitemap", Options(jobs=2))
    with pytest.raises(ValueError, match=r"cannot use jobs"):
        feedmap.sitemap_tree(str(tmp_path / "none.xml"), Options(jobs=2))


@pytest.mark.parametrize("target", ["sitemap", "jsonl"])
def test_several_inputs_are_the_same_with_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path, target: str
) -> None:
    inputs = [str(site / name) for name in ("c0.xml", "c3.xml", "c5.xml.gz", "index.xml", "c2.xml", "c1.xml")]
    argv = ["convert", *inputs, "--map", f"{SITE}={site}", "-t", target, "-o", "out"]
    code, _out, err, _files = _same_with_jobs(capsys, tmp_path, argv)
    assert code == 0
    assert "xml-not-well-formed" in err


def test_an_input_that_cannot_be_read_stops_the_run_the_same_with_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site: Path
) -> None:
    inputs = [str(site / name) for name in ("c0.xml", "c1.xml", "nothing-here.xml", "c2.xml")]
    code, _out, err, files = _same_with_jobs(capsys, tmp_path, ["convert", *inputs, "-t", "text", "-o", "out"])
    assert code == 2
    assert "nothing-here.xml: no such file" in err
    assert not files
