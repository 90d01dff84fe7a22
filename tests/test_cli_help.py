"""``--help`` of every command groups its options (issue 18, point 7): argparse argument groups titled input,
selection, output, splitting, page enrichment, feed channel and HTTP, each option in the group of what it
is about, with the help texts a command gives its shared options (``diff --strict`` exits 2)."""

from __future__ import annotations

import re

import pytest

from feedmap.cli import main

READING = ["-f", "--strict", "--max-bytes", "--max-line-bytes", "--no-follow", "--base-url", "--map", "--max-depth"]
HTTP = ["--concurrency", "--timeout", "--deadline", "--retries", "--delay", "--user-agent", "--cache"]

#: Each command's groups (by the start of their title) and the options and arguments in each.
GROUPS: dict[str, dict[str, list[str]]] = {
    "convert": {
        "input": ["INPUT", *READING],
        "fields of every entry": ["--set", "--set-missing"],
        "selection": ["--since", "--until", "--require-lastmod", "--include", "--exclude", "--dedupe", "--sort"],
        "output": ["-t", "-o", "--schema-location", "--encode-urls", "--keep-urls"],
        "splitting": ["--max-urls", "--max-file-bytes", "--name", "--gzip", "--index-name"],
        "page enrichment": ["--enrich", "--overwrite"],
        "feed channel": ["--title", "--link", "--description", "--self-url", "--author", "--updated"],
        "HTTP": HTTP,
        "options": ["-h", "-q"],
    },
    "diff": {
        "input": ["OLD", "NEW", *READING, "--old-map", "--new-map", "--index-name"],
        "output": ["--jsonl", "--json", "-q"],
        "HTTP": HTTP,
    },
    "validate": {
        "input": ["INPUT", *(flag for flag in READING if flag != "--max-line-bytes")],
        "output": ["--json", "--ignore", "-q", "--explain"],
        "HTTP": HTTP,
    },
    "info": {"input": ["INPUT", *READING, "--since"], "output": ["--json", "-q"], "HTTP": HTTP},
    "discover": {"input": ["SITE_URL", "--map", "--max-bytes"], "output": ["--tree", "--json", "-v"], "HTTP": HTTP},
    "formats": {"output": ["--json"]},
}


def _help(capsys: pytest.CaptureFixture[str], command: str) -> str:
    assert main([command, "--help"]) == 0
    return capsys.readouterr().out


def _sections(text: str) -> dict[str, str]:
    """The help's sections by title: a line at the margin ending with ``:``, up to the next one."""
    sections: dict[str, str] = {}
    title = ""
    for line in text.splitlines():
        if re.fullmatch(r"\S.*:", line):
            title = line[:-1]
            sections[title] = ""
        elif title:
            sections[title] += line + "\n"
    return sections


def _section(sections: dict[str, str], start: str) -> str:
    """The first section titled ``start`` or ``start (...)`` (the argument groups come before the epilog)."""
    titles = [title for title in sections if title == start or title.startswith(f"{start} (")]
    assert titles, (start, list(sections))
    return sections[titles[0]]


def _listed(section: str, flag: str) -> bool:
    """True when an entry of ``section`` starts with ``flag`` (an option, its other name, or an argument)."""
    return re.search(rf"^  (?:-\S+ (?:\S+ )?)?(?:-\S+, )?{re.escape(flag)}\b(?!-)", section, re.MULTILINE) is not None


@pytest.mark.parametrize("command", sorted(GROUPS))
def test_every_option_is_in_its_group(capsys: pytest.CaptureFixture[str], command: str) -> None:
    sections = _sections(_help(capsys, command))
    for group, flags in GROUPS[command].items():
        section = _section(sections, group)
        assert [flag for flag in flags if not _listed(section, flag)] == [], (command, group)


@pytest.mark.parametrize("command", sorted(GROUPS))
def test_no_option_is_left_outside_a_group(capsys: pytest.CaptureFixture[str], command: str) -> None:
    """Only -h (and a command's -q) stay under argparse's own "options"; no "positional arguments" section."""
    sections = _sections(_help(capsys, command))
    assert "positional arguments" not in sections
    general = re.findall(r"^  (-[\w-]+)", sections["options"], re.MULTILINE)
    assert set(general) <= {"-h", "-q"}


def test_a_shared_option_keeps_the_help_of_its_command(capsys: pytest.CaptureFixture[str]) -> None:
    """The shared reading options are made with each command's own help, not rewritten after."""
    diff_input = _section(_sections(_help(capsys, "diff")), "input")
    assert re.search(r"--strict\s+treat any warning as an error: exit 2", diff_input)
    assert "--since" not in diff_input  # refused by diff: hidden
    validate_input = _section(_sections(_help(capsys, "validate")), "input")
    assert re.search(r"--strict\s+warnings count as errors", validate_input)
    assert "--max-line-bytes" not in validate_input
    convert_input = _section(_sections(_help(capsys, "convert")), "input")
    assert re.search(r"the URL the\s+directory\s+is served at", convert_input)
    assert re.search(
        r"--strict\s+treat any warning as an error: exit 1", _section(_sections(_help(capsys, "info")), "input")
    )


def test_the_subcommand_names_an_unknown_option(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown option is said with the usage of the command it was given to (the subcommands' parsers are
    found through the public subparsers action)."""
    assert main(["validate", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: feedmap validate")
    assert "unrecognized arguments: --bogus" in err


def test_usage_errors_and_help_are_printed_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    """A usage error quoting an argument with a terminal control is printed with it escaped (through argparse's
    public ``format_usage``/``format_help``/``exit``)."""
    assert main(["info", "x.xml", "--red\x1b[31m"]) == 2  # argparse quotes unknown arguments as given
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "--red\\x1b[31m" in err
