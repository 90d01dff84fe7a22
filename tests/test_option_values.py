"""Every option value is checked when it is parsed (issue 17, point 7).

A value that cannot be used (not finite, out of range, a User-Agent no HTTP header can carry, a URL option
that is no absolute http(s) URL, a feed title XML cannot hold) is a usage
error of the CLI (exit 2, the option named, no traceback) for every subcommand that takes the option, and a
``ValueError`` naming the field where the library's ``Options`` and ``HttpSettings`` are made, instead of a
traceback deep inside (``time.sleep(inf)``, ``socket.settimeout(inf)``, ``"café".encode("ascii")``) or a
silent change of meaning (``--deadline nan`` compared false with everything, so no deadline held).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import feedmap
from feedmap.cli import main

LONG_NUMBER = "9" * 400  # float() of it is inf, int() a number no float holds
#: Bad values of the options every reading command takes (convert, info, diff, validate), then discover's.
HTTP_CASES = [
    ("--timeout", "nan"),
    ("--timeout", "inf"),
    ("--timeout", "-inf"),
    ("--timeout", "0"),
    ("--timeout", "-1"),
    ("--timeout", "1e300"),  # finite, but no socket timeout holds it
    ("--timeout", LONG_NUMBER),
    ("--timeout", "soon"),
    ("--deadline", "nan"),
    ("--deadline", "inf"),
    ("--deadline", "0"),
    ("--deadline", "1e300"),
    ("--delay", "inf"),
    ("--delay", "nan"),
    ("--delay", "-0.5"),
    ("--delay", "1e300"),
    ("--retries", "-1"),
    ("--retries", "1.5"),
    ("--retries", "1000"),
    ("--retries", LONG_NUMBER),
    ("--concurrency", "0"),
    ("--concurrency", "1000000"),
    ("--user-agent", "café"),
    ("--user-agent", "bot/1.0\r\nX-Injected: 1"),
    ("--user-agent", "bot\x00"),
    ("--user-agent", "   "),
    ("--user-agent", "ロボット/1.0"),
    ("--max-bytes", "0"),
    ("--max-bytes", LONG_NUMBER),  # int(float(...)) was an OverflowError traceback
    ("--max-bytes", f"{LONG_NUMBER}T"),
    ("--max-bytes", "2048T"),
    ("--max-bytes", "nanM"),
    ("--cache", ""),  # Path("") is the current directory: the cache would be written among the user's files
]
READING_CASES = [
    *HTTP_CASES,
    ("--max-line-bytes", "0"),
    ("--max-line-bytes", LONG_NUMBER),
    ("--max-depth", "0"),
    ("--max-depth", "x"),
    ("--base-url", "www.example.com/"),
    ("--base-url", "file:///srv/www/"),
    ("--base-url", "https://www.example.com:99999/"),
    ("--base-url", "https://[::1/"),
    ("--base-url", "https://www.example.com/a b/"),
]
CONVERT_CASES = [
    ("--limit", "-1"),
    ("--limit", "1.5"),
    ("--max-urls", "nan"),
    ("--max-file-bytes", LONG_NUMBER),
    ("--link", "javascript://www.example.com/%0Aalert(1)"),
    ("--link", "http://[::1"),
    ("--self-url", "https://www.example.com:port/feed.xml"),
    ("--self-url", "ftp://www.example.com/feed.xml"),
    ("--title", "bell\x07"),
    ("--title", "undecodable \udcff byte"),  # what argv holds for a byte that is no UTF-8
    ("--description", "form\x0cfeed"),
]


def command_lines(tmp_path: Path) -> dict[str, list[str]]:
    """Each subcommand with inputs that would be read without trouble, were the options right."""
    source = tmp_path / "urls.txt"
    source.write_text("https://www.example.com/a\nhttps://www.example.com/b\n", "utf-8")
    return {
        "convert": ["convert", str(source), "-t", "text", "-o", str(tmp_path / "out.txt")],
        "info": ["info", str(source)],
        "diff": ["diff", str(source), str(source)],
        "validate": ["validate", str(source)],
        "discover": ["discover", "127.0.0.1:1", "--map", f"http://127.0.0.1:1/={tmp_path}"],
    }


READING_COMMANDS = ("convert", "info", "diff", "validate")
TABLE = [
    *((command, option, value) for command in READING_COMMANDS for option, value in READING_CASES),
    *(("convert", option, value) for option, value in CONVERT_CASES),
    *(("discover", option, value) for option, value in HTTP_CASES),
]


@pytest.mark.parametrize(("command", "option", "value"), TABLE)
def test_a_bad_option_value_is_a_usage_error_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, option: str, value: str
) -> None:
    argv = [*command_lines(tmp_path)[command], f"{option}={value}"]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"argument {option}" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--timeout", "0.5"),
        ("--timeout", "86400"),
        ("--deadline", "1e3"),
        ("--delay", "0"),
        ("--retries", "0"),
        ("--retries", "100"),
        ("--concurrency", "1000"),
        ("--user-agent", "MyBot/2.0 (+https://example.com/bot; contact@example.com)"),
        ("--user-agent", "tab\tinside"),
        ("--max-bytes", "1024T"),
        ("--max-bytes", "1.5K"),
        ("--base-url", "https://www.example.com/maps/"),
        ("--link", "https://www.example.com/"),
        ("--self-url", "http://127.0.0.1:8080/feed.xml"),
        ("--title", "Café & co\ttabbed"),
        ("--description", "line one\nline two"),
    ],
)
def test_a_good_option_value_is_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    argv = [*command_lines(tmp_path)["convert"], option, value]
    assert main(argv) == 0, capsys.readouterr().err
    assert (tmp_path / "out.txt").read_text("utf-8").split() == [
        "https://www.example.com/a",
        "https://www.example.com/b",
    ]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("read_timeout", math.nan),
        ("read_timeout", math.inf),
        ("read_timeout", 0),
        ("read_timeout", 1e300),
        ("connect_timeout", -1.0),
        ("connect_timeout", math.nan),
        ("deadline", math.nan),
        ("deadline", math.inf),
        ("deadline", 0.0),
        ("host_delay", math.inf),
        ("host_delay", -1.0),
        ("backoff", math.nan),
        ("max_retry_wait", math.inf),
        ("retries", -1),
        ("retries", 2.5),
        ("retries", True),
        ("retries", 10**6),
        ("max_redirects", -1),
        ("max_connections", 0),
        ("user_agent", "café"),
        ("user_agent", "a\nb"),
        ("user_agent", ""),
        ("user_agent", b"bytes/1.0"),
        ("cache_dir", ""),
        ("cache_dir", "cache\0"),
        ("cache_dir", 5),
        ("cache_dir", b"cache"),
    ],
)
def test_http_settings_refuse_a_bad_value_when_made(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field):
        feedmap.HttpSettings(**{field: value})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_bytes", 0),
        ("max_bytes", 1.5),
        ("max_bytes", math.inf),
        pytest.param("max_bytes", 10**400, id="max_bytes-10**400"),
        pytest.param("max_bytes", 10**5000, id="max_bytes-10**5000"),
        ("max_line_bytes", -1),
        ("page_max_bytes", 0),
        ("max_depth", -1),
        ("concurrency", 0),
        ("concurrency", 10**6),
        ("limit", -1),
        ("limit", 2.0),
        ("http", "fast"),
        ("max_urls", 1.5),
        ("max_urls", True),
        ("max_urls", "5"),
        ("max_urls", 50_001),
        ("max_file_bytes", 2.5),
        ("max_file_bytes", "five"),
        ("max_file_bytes", "51M"),  # more than the protocol's 52,428,800 bytes
        ("max_bytes", "lots"),
        ("max_bytes", "0K"),
        ("max_line_bytes", "2048T"),
        ("page_max_bytes", b"5M"),
        ("max_file_bytes", True),
        ("name", 5),
        ("name", b"{n}.xml"),
        ("index_name", 5),
        ("index_name", b"index.xml"),
        ("include", 5),
        ("exclude", [b"bytes"]),
        ("since", 5),
        ("until", 2024.5),
    ],
)
def test_options_refuse_a_bad_value_when_made(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field):
        feedmap.Options(**{field: value})  # type: ignore[arg-type]


def test_settings_at_the_bounds_are_made() -> None:
    settings = feedmap.HttpSettings(
        read_timeout=86_400, connect_timeout=0.001, deadline=86_400, host_delay=0, retries=0, user_agent="a\tb"
    )
    assert settings.response_deadline() == 86_400
    options = feedmap.Options(http=settings, max_bytes=1, concurrency=1000, max_depth=0, limit=0)
    assert options.http is settings


def test_a_cache_that_is_a_link_to_nothing_is_said_as_such(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    cache.symlink_to(tmp_path / "gone")
    assert main([*command_lines(tmp_path)["info"], "--cache", str(cache)]) == 2
    err = capsys.readouterr().err
    assert "argument --cache" in err and "link to nothing" in err and "Traceback" not in err
    assert not (tmp_path / "gone").exists()
