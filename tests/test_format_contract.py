"""The contract a third-party format or extension relies on (``feedmap.formats``): ``accept(head)`` claims an
input, in a documented order against the built-in detection; ``register`` refuses a taken name or media
type unless ``replace=True``; an entry point named like a format or extension registered before it is
reported (``format-name-taken``, ``extension-name-taken``, and in ``feedmap formats``); ``registry()`` is a
read-only view.

What registers formats or installs entry points runs in a fresh interpreter (a distribution installed as pip
installs one: a ``.dist-info`` folder beside its module), so that no test leaves a format behind for another.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import feedmap
from feedmap.cli import main
from feedmap.formats import FormatSpec, Registry, register, registry

#: What the scripts below share: a reader that says it was used, and the name of the format read.
PRELUDE = """
import gzip, io, feedmap
from feedmap import DocMeta, Document, Entry
from feedmap.formats import Detection, FormatSpec, register, registry

def reader(source, *, ctx):
    source.stream.read()
    return Document(DocMeta(), iter([Entry(loc="https://e.com/plugin")]))

def detected(data, name=None):
    if name is not None:
        open(name, "wb").write(data)
    diagnostics = []
    try:
        with feedmap.read(name or io.BytesIO(data), on_diagnostic=diagnostics.append) as doc:
            list(doc.entries)
    except feedmap.UnknownFormatError as exc:
        return exc.code
    codes = sorted({d.code for d in diagnostics if d.code.startswith(("format-", "extension-"))})
    return " ".join([doc.format or "", *codes])
"""

SITEMAP = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.com/</loc></url></urlset>'
RSS_ROR = b'<rss version="2.0" xmlns:ror="http://rorweb.com/0.1/"><channel><title>t</title></channel></rss>'


def python(folder: Path, code: str) -> list[str]:
    """Run ``code`` (after the prelude) in a fresh interpreter in ``folder`` (on its path): the lines printed."""
    script = PRELUDE + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=folder, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def install(folder: Path, distribution: str, entry_points: str, module: str = "", source: str = "") -> None:
    """A distribution as pip installs it: ``NAME-0.dist-info`` (METADATA, entry_points.txt) and a module."""
    info = folder / f"{distribution}-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    if module:
        (folder / f"{module}.py").write_text(PRELUDE + textwrap.dedent(source))


# ------------------------------------------------------------------------------------------ accept


def test_accept_claims_what_the_text_format_would_read_and_leaves_it_the_rest(tmp_path: Path) -> None:
    """The README's TSV case: URL<TAB>title lines are lines of URLs to the text format too; a format's
    accept claims them (at the same priority as text, a claim by accept wins)."""
    printed = python(
        tmp_path,
        """
        register(FormatSpec(name="tsv", title="t", reader=reader, accept=lambda head: b"\\t" in head.split(b"\\n")[0]))
        print(detected(b"https://e.com/a\\tPage A\\n"))
        print(detected(b"https://e.com/a\\n"))
        print(detected(b'{"loc": "https://e.com/a"}\\n'))
        print(detected(SITEMAP))
        """.replace("SITEMAP", repr(SITEMAP)),
    )
    assert printed == ["tsv", "text", "jsonl", "sitemap"]


def test_priority_orders_accept_against_the_built_in_detection(tmp_path: Path) -> None:
    """A claim by accept is ordered by priority with the declared ones: at 0 it cannot take a sitemap (10)
    or a feed (5); at 11 it takes a sitemap but not ROR (20); on a tie the first name wins among claims."""
    printed = python(
        tmp_path,
        f"""
        register(FormatSpec(name="greedy", title="g", reader=reader, accept=lambda head: True))
        print(detected({SITEMAP!r}), detected({RSS_ROR!r}), detected(b"https://e.com/a\\n"))
        register(FormatSpec(name="greedy", title="g", reader=reader, accept=lambda head: True, priority=11),
                 replace=True)
        print(detected({SITEMAP!r}), detected({RSS_ROR!r}))
        register(FormatSpec(name="also-greedy", title="g", reader=reader, accept=lambda head: True, priority=11))
        print(detected({SITEMAP!r}))
        """,
    )
    assert printed == ["sitemap ror greedy", "greedy ror", "also-greedy"]


def test_accept_is_given_the_decompressed_head_of_the_input(tmp_path: Path) -> None:
    printed = python(
        tmp_path,
        """
        heads = []
        register(FormatSpec(name="seen", title="s", reader=reader, accept=lambda head: heads.append(head) or False))
        body = b"https://e.com/a\\n" * 10000
        print(detected(gzip.compress(body), "urls.txt.gz"))
        print(heads[0] == body[: 64 * 1024], len(heads))
        print(detected(b""), len(heads))  # an empty input is nobody's: accept is not asked
        """,
    )
    assert printed == ["text", "True 1", "unknown-format 1"]


def test_a_format_whose_accept_refused_the_content_is_not_chosen_by_its_extension(tmp_path: Path) -> None:
    printed = python(
        tmp_path,
        """
        register(FormatSpec(name="picky", title="p", extensions=(".pk",), reader=reader, accept=lambda head: False))
        register(FormatSpec(name="loose", title="l", extensions=(".lo",), reader=reader))
        print(detected(b"\\x00\\x01binary", "data.pk"), detected(b"\\x00\\x01binary", "data.lo"))
        """,
    )
    assert printed == ["unknown-format loose"]


def test_an_accept_that_raises_is_passed_over_and_reported(tmp_path: Path) -> None:
    printed = python(
        tmp_path,
        """
        register(FormatSpec(name="buggy", title="b", reader=reader, accept=lambda head: 1 / 0))
        print(detected(b"https://e.com/a\\n"))
        """,
    )
    assert printed == ["text format-accept-failed"]


def test_a_lazy_registration_recognises_by_its_declared_accept_without_importing(tmp_path: Path) -> None:
    (tmp_path / "lazy_tsv.py").write_text(PRELUDE + 'FORMAT = FormatSpec(name="tsv", title="t", reader=reader)\n')
    printed = python(
        tmp_path,
        """
        import sys
        tab = lambda head: b"\\t" in head
        register("lazy_tsv:FORMAT", "tsv", detection=Detection(accept=tab))
        print(detected(b"https://e.com/a\\n"), "lazy_tsv" in sys.modules)
        print(detected(b"https://e.com/a\\tA\\n"), "lazy_tsv" in sys.modules)
        """,
    )
    assert printed == ["text False", "tsv True"]


# ------------------------------------------------------------------------------------ registration


@pytest.mark.parametrize("name", ["sitemap", "text", "jsonl", "rss", "ror", "sitemapindex"])
def test_register_refuses_the_name_of_a_built_in_format(name: str) -> None:
    with pytest.raises(ValueError, match="taken by the built-in format") as refused:
        register(FormatSpec(name=name, title="mine"))
    assert "replace=True" in str(refused.value)
    assert registry()[name].title != "mine"


@pytest.mark.parametrize("media_type", ["application/rss+xml", "text/plain", "application/x-ndjson"])
def test_register_refuses_the_media_type_of_another_format(media_type: str) -> None:
    with pytest.raises(ValueError, match="names the format"):
        register(FormatSpec(name="feedmap-test-media-type", title="mine", media_types=(media_type,)))
    assert "feedmap-test-media-type" not in registry()


@pytest.mark.parametrize("name", ["TSV", " tsv", "tab separated", "text/tsv", ""])
def test_register_refuses_a_name_no_lookup_would_find(name: str) -> None:
    with pytest.raises(ValueError, match="format name"):
        register(FormatSpec(name=name, title="mine"))


def test_register_refuses_its_own_name_twice_unless_replace_and_allows_the_same_spec_again(tmp_path: Path) -> None:
    printed = python(
        tmp_path,
        """
        first = FormatSpec(name="mine", title="first", reader=reader, media_types=("text/x-mine",))
        register(first)
        register(first)  # the same again: nothing changes
        try:
            register(FormatSpec(name="mine", title="second"))
        except ValueError as exc:
            print("refused:", exc)
        second = FormatSpec(name="mine", title="second")
        register(second, replace=True)
        print(registry()["mine"].title, feedmap.formats.registry()["mine"] is second)
        register(FormatSpec(name="rss", title="my rss", reader=reader, media_types=("application/rss+xml",)),
                 replace=True)
        with feedmap.read(io.BytesIO(b"x"), "application/rss+xml") as doc:
            print(doc.format, [entry.loc for entry in doc.entries])
        """.replace("feedmap.formats.registry", "registry"),
    )
    assert printed == [
        "refused: format name 'mine' is taken by a format registered before; pass replace=True to replace it",
        "second True",
        "rss ['https://e.com/plugin']",
    ]


def test_register_refuses_a_name_an_installed_entry_point_holds(tmp_path: Path) -> None:
    install(tmp_path, "demo", "[feedmap.formats]\ndemo = demo_format:FORMAT\n", "demo_format", "")
    (tmp_path / "demo_format.py").write_text(PRELUDE + 'FORMAT = FormatSpec(name="demo", title="d", reader=reader)\n')
    printed = python(
        tmp_path,
        """
        try:
            register(FormatSpec(name="demo", title="mine"))
        except ValueError as exc:
            print(exc)
        print(registry()["demo"].title)
        """,
    )
    assert printed == [
        "format name 'demo' is taken by the entry point demo = demo_format:FORMAT (distribution demo 0); "
        "pass replace=True to replace it",
        "d",
    ]


# ------------------------------------------------------------------------------------ entry points

DEMO = 'FORMAT = FormatSpec(name="sitemap", title="a plugin sitemap", reader=reader)\n'


def test_an_entry_point_named_like_a_built_in_format_is_reported_not_ignored(tmp_path: Path) -> None:
    install(tmp_path, "shadow", "[feedmap.formats]\nsitemap = shadow_format:FORMAT\n", "shadow_format", DEMO)
    printed = python(
        tmp_path,
        f"""
        print(detected({SITEMAP!r}))
        sink = io.BytesIO()
        summary = feedmap.write([Entry(loc="https://e.com/")], sink, "text")
        print([d.code for d in summary.diagnostics], registry()["sitemap"].title)
        from feedmap.cli import main
        main(["formats"])
        main(["formats", "--json"])
        """,
    )
    assert printed[0] == "sitemap format-name-taken"  # read by the built-in format, and said
    codes, _, title = printed[1].partition("] ")
    assert (codes, title != "a plugin sitemap") == ("['format-name-taken'", True)  # a write says it too
    (refused,) = [line for line in printed if "REFUSED" in line]
    assert refused.startswith("sitemap ")
    assert "sitemap = shadow_format:FORMAT" in refused
    assert refused.endswith("[format-name-taken]")
    rows = json.loads("\n".join(printed[printed.index("[") :]))
    assert [row["code"] for row in rows if "refused" in row] == ["format-name-taken"]


def test_an_entry_point_of_a_name_another_distribution_holds_is_reported(tmp_path: Path) -> None:
    tsv = 'FORMAT = FormatSpec(name="tsv", title="TITLE", reader=reader)\n'
    install(tmp_path, "first", "[feedmap.formats]\ntsv = first_tsv:FORMAT\n", "first_tsv", tsv.replace("TITLE", "1"))
    install(tmp_path, "second", "[feedmap.formats]\ntsv = second_tsv:FORMAT\n", "second_tsv", tsv.replace("TITLE", "2"))
    printed = python(
        tmp_path,
        """
        print(registry()["tsv"].title)
        from feedmap.cli import main
        main(["formats"])
        """,
    )
    used = {"1": "first_tsv", "2": "second_tsv"}[printed[0]]
    unused = ({"first_tsv", "second_tsv"} - {used}).pop()
    (refused,) = [line for line in printed if "REFUSED" in line]
    assert f"the entry point tsv = {unused}:FORMAT" in refused
    assert f"is taken by the entry point tsv = {used}:FORMAT" in refused
    assert refused.endswith("[format-name-taken]")


def test_an_entry_point_naming_a_format_of_another_name_is_broken(tmp_path: Path) -> None:
    """An entry point ``other = mod:FORMAT`` whose FormatSpec is called ``sitemap`` would list a second
    "sitemap" and read documents that call themselves sitemap: it is broken, and says why."""
    install(tmp_path, "alias", "[feedmap.formats]\nother = alias_format:FORMAT\n", "alias_format", DEMO)
    printed = python(
        tmp_path,
        """
        try:
            feedmap.read(io.BytesIO(b"x"), "other")
        except feedmap.FormatError as exc:
            print(exc)
        print(sorted(registry()))
        """,
    )
    assert printed[0] == "format 'other': 'alias_format:FORMAT' is a FormatSpec named 'sitemap', not 'other'"
    assert printed[1] == "['atom', 'csv', 'jsonl', 'parquet', 'ror', 'rss', 'sitemap', 'sitemapindex', 'text']"


RATING = """
from feedmap.formats import Extension
EXTENSION = Extension(name="NAME", namespace="http://example.com/ns/rating", prefix="ex",
                      elements=frozenset({"rating"}), field="extras")
"""


@pytest.mark.parametrize(
    ("entry_point", "extension", "taken"),
    [("image", "rating", "the name is taken"), ("rating", "hreflang", "its extension's name 'hreflang' is taken")],
)
def test_an_extension_entry_point_named_like_a_built_in_is_reported(
    tmp_path: Path, entry_point: str, extension: str, taken: str
) -> None:
    source = RATING.replace("NAME", extension)
    install(tmp_path, "rating", f"[feedmap.extensions]\n{entry_point} = ext_rating:EXTENSION\n", "ext_rating", source)
    printed = python(
        tmp_path,
        f"""
        print(detected({SITEMAP!r}))
        from feedmap.cli import main
        main(["formats"])
        """,
    )
    assert printed[0] == "sitemap extension-name-taken"
    (refused,) = [line for line in printed if "REFUSED" in line]
    assert refused.startswith(f"{entry_point} (extension) ")
    assert taken in refused
    assert refused.endswith("[extension-name-taken]")


def test_a_second_extension_entry_point_of_a_taken_name_is_reported(tmp_path: Path) -> None:
    install(
        tmp_path, "one", "[feedmap.extensions]\nrating = ext_one:EXTENSION\n", "ext_one", RATING.replace("NAME", "a")
    )
    other = RATING.replace("NAME", "b").replace("rating", "stars").replace('"ex"', '"st"')
    install(tmp_path, "two", "[feedmap.extensions]\nrating = ext_two:EXTENSION\n", "ext_two", other)
    printed = python(tmp_path, f"print(detected({SITEMAP!r}))\n")
    assert printed == ["sitemap extension-name-taken"]


def test_nothing_is_reported_without_plugins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["formats"]) == 0
    assert "REFUSED" not in capsys.readouterr().out
    diagnostics: list[feedmap.Diagnostic] = []
    feedmap.write([feedmap.Entry(loc="https://e.com/")], tmp_path / "out.txt", "text", on_diagnostic=diagnostics.append)
    assert [d.code for d in diagnostics] == []


# ------------------------------------------------------------------------------------ registry view


def test_the_registry_view_maps_names_to_specs_and_cannot_be_changed() -> None:
    view = registry()
    assert isinstance(view, Registry)
    assert {"sitemap", "sitemapindex", "text", "jsonl", "rss", "ror"} <= set(view)
    assert list(view) == sorted(view)
    assert len(view) == len(list(view))
    assert all(isinstance(spec, FormatSpec) and spec.name == name for name, spec in view.items())
    assert "sitemap" in view and "application/rss+xml" not in view and "Sitemap" not in view
    with pytest.raises(KeyError):
        view["no-such-format"]
    with pytest.raises(TypeError):
        view["tsv"] = view["text"]  # type: ignore[index]
    with pytest.raises(TypeError):
        del view["text"]  # type: ignore[attr-defined]
    assert view.get("no-such-format") is None


def test_the_registry_view_is_live(tmp_path: Path) -> None:
    printed = python(
        tmp_path,
        """
        view = registry()
        print("late" in view)
        register(FormatSpec(name="late", title="late"))
        print("late" in view, view["late"].title, registry() is view)
        """,
    )
    assert printed == ["False", "True late True"]


def test_an_entry_point_whose_import_fails_in_any_way_leaves_the_other_formats_working(tmp_path: Path) -> None:
    install(
        tmp_path,
        "boom",
        "[feedmap.formats]\nboom = boom_format:FORMAT\n",
        "boom_format",
        "raise RuntimeError('boom')\n",
    )
    printed = python(
        tmp_path,
        f"""
        print(detected({SITEMAP!r}), detected(b"https://e.com/a\\n"))
        try:
            feedmap.read(io.BytesIO(b"x"), "boom")
        except feedmap.FormatError as exc:
            print(exc)
        from feedmap.cli import main
        main(["formats"])
        """,
    )
    assert printed[0] == "sitemap text"
    assert printed[1] == "format 'boom' is registered as 'boom_format:FORMAT' but cannot be loaded: RuntimeError: boom"
    assert any(line.startswith("boom ") and "BROKEN" in line and "RuntimeError: boom" in line for line in printed)


def test_every_command_that_detects_a_format_reports_an_accept_that_raises(tmp_path: Path) -> None:
    buggy = 'FORMAT = FormatSpec(name="buggy", title="b", reader=reader, accept=lambda head: 1 / 0)\n'
    install(tmp_path, "buggy", "[feedmap.formats]\nbuggy = buggy_format:FORMAT\n", "buggy_format", buggy)
    (tmp_path / "urls.txt").write_text("https://e.com/a\n")
    script = "import sys\nfrom feedmap.cli import main\nsys.stderr = sys.stdout\nmain([{}])\n"
    printed = python(tmp_path, script.format('"validate", "urls.txt"'))
    assert printed[0].startswith("urls.txt: warning[format-accept-failed]: format 'buggy' failed")
    printed = python(tmp_path, script.format('"convert", "urls.txt", "-t", "jsonl"'))
    assert printed[0].startswith("urls.txt: warning[format-accept-failed]")
    assert printed[1:] == ['{"loc":"https://e.com/a"}']


def test_taking_over_a_media_type_leaves_the_format_it_came_from_and_the_new_one_working(tmp_path: Path) -> None:
    """replace=True gives a media type to the new format: the built-in that declared it (rss, loaded after)
    still reads, a lazy registration with replace=True loads, and a claim ends with the registration that
    made it."""
    (tmp_path / "plug.py").write_text(
        PRELUDE + 'FORMAT2 = FormatSpec(name="bar", title="b", reader=reader, media_types=("application/x-bar",))\n'
    )
    printed = python(
        tmp_path,
        f"""
        register(FormatSpec(name="myatom", title="x", reader=reader, media_types=("application/atom+xml",)),
                 replace=True)
        print(registry()["rss"].name, detected({RSS_ROR.replace(b'xmlns:ror="http://rorweb.com/0.1/"', b"")!r}))
        register("plug:FORMAT2", "bar", detection=Detection(media_types=("application/x-bar",)), replace=True)
        print(registry()["bar"].title)
        register(FormatSpec(name="a", title="x1", reader=reader, media_types=("application/x-a",)), replace=True)
        register(FormatSpec(name="a", title="x2", reader=reader), replace=True)
        register(FormatSpec(name="b", title="y", reader=reader, media_types=("application/x-a",)))
        print(registry()["b"].title)
        """,
    )
    assert printed == ["rss rss", "b", "y"]


def test_an_entry_point_whose_name_no_lookup_would_find_is_reported(tmp_path: Path) -> None:
    install(tmp_path, "upper", "[feedmap.formats]\nSitemap = upper_format:FORMAT\n", "upper_format", DEMO)
    printed = python(tmp_path, f"print(detected({SITEMAP!r}))\nfrom feedmap.cli import main\nmain(['formats'])\n")
    assert printed[0] == "sitemap format-name-taken"
    (refused,) = [line for line in printed if "REFUSED" in line]
    assert "not a lower-case format name" in refused
