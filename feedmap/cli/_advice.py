"""Command-line advice added to the library's messages, by their code.

The library's errors and diagnostics describe the problem without naming command-line flags (a Python
caller has none; it has the parameters of :func:`feedmap.read` and friends).  The CLI appends the flag that
changes the outcome, chosen by the error's or diagnostic's ``code``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from feedmap._core.errors import Diagnostic, FeedmapError, ReadError, StrictError, UnknownFormatError, strict_message
from feedmap.formats import _registry as registry

__all__ = ["ADVICE", "DISCOVER_HINT", "advice_for", "read_error", "unknown_format", "with_advice"]

#: Code -> what to append (with its separator) on the command line.
ADVICE: dict[str, str] = {
    "unknown-format": "; name it with -f FORMAT",
    "too-large": "; raise the cap with --max-bytes if the input is trusted",
    "timeout": "; --deadline sets the time allowed",
    "line-too-long": "; --max-line-bytes raises the limit",
    "channel-link-missing": "; give one with --link",
    "file-missing": " (--map)",
    "no-lastmod-kept": "; --require-lastmod leaves them out",
    "csv-formula": "; --excel-safe writes them as text",
    "same-files": " (compare the directories: feedmap diff OLD_DIR/ NEW_DIR/, or give each side --old-map / --new-map)",
}


#: ``kind-changed``: the way to keep the kind, by how the message ends (which way the kind changed); it
#: completes the message (under ``--strict`` it comes before the strict ending).
_KIND_ADVICE = {
    "writes them as pages": " (write -t sitemapindex to keep an index, or follow the index to get its pages)",
    "writes them as child sitemaps of an index": " (write -t sitemap to keep a list of pages)",
}


#: ``wrong-root``: an HTML page read as a sitemap (the format named) is told how to find the site's sitemaps.
_HTML_ROOT = "the root element is <html>,"
_HTML_ADVICE = " (an HTML page: `feedmap discover SITE-URL` finds a site's sitemaps)"


#: ``too-many-entries`` / ``too-many-bytes`` said by a writer of one file (not by a reader, nor of an index,
#: which cannot be split): how to split the output, by what the message holds.
_SPLIT_CODES = frozenset({"too-many-entries", "too-many-bytes"})
_SPLIT_ADVICE = "; write to a directory (-o DIR/ --base-url URL) to split it"


def _split_hint(message: str) -> str:
    written = "asks to split it" in message or "in one text sitemap" in message
    return _SPLIT_ADVICE if written and "sitemaps in one file" not in message else ""


def _completion(code: str, message: str) -> str:
    """Command-line advice that belongs inside the message (empty for most codes)."""
    if code in _SPLIT_CODES:
        return _split_hint(message)
    if code == "wrong-root":
        return _HTML_ADVICE if message.startswith(_HTML_ROOT) else ""
    if code != "kind-changed":
        return ""
    return next((advice for end, advice in _KIND_ADVICE.items() if message.endswith(end)), "")


def advice_for(exc: FeedmapError) -> str:
    """The flag advice for an error (empty when there is none)."""
    code = "unknown-format" if isinstance(exc, UnknownFormatError) else getattr(exc, "code", "")
    return ADVICE.get(code, "") if isinstance(code, str) else ""


def with_advice(diagnostic: Diagnostic) -> str:
    """A diagnostic as printed by the CLI: ``file:line: level[code]: message`` and the flag advice."""
    return f"{diagnostic}{_completion(diagnostic.code, diagnostic.message)}{ADVICE.get(diagnostic.code, '')}"


def read_error(exc: ReadError) -> str:
    """A ReadError's message without its source, with the flag advice (``--strict`` stopping on a warning)."""
    if isinstance(exc, StrictError):
        if completion := _completion(exc.diagnostic.code, exc.diagnostic.message):
            return f"{strict_message(exc.diagnostic.message + completion)}{advice_for(exc)}"
        return f"{exc.bare_message}{advice_for(exc)}"
    return f"{exc.bare_message}{_completion(exc.code, exc.bare_message)}{advice_for(exc)}"


#: What to do with an HTML page given where a sitemap or feed was expected.
DISCOVER_HINT = "to find the sitemaps of its site, run: feedmap discover SITE-URL"


def unknown_format(exc: UnknownFormatError) -> str:
    """``file:line: error[code]: what it is; what to do`` for an input whose format was not recognised."""
    if not exc.source:
        return f"feedmap: error: {exc}{advice_for(exc)}"
    where = f"{exc.source}:{exc.line}" if exc.line else exc.source
    if exc.code == "html-page":
        parts = urlsplit(exc.source)
        site = f"{parts.scheme}://{parts.netloc}/" if parts.scheme in ("http", "https") and parts.netloc else ""
        advice = DISCOVER_HINT.replace("SITE-URL", site) if site else DISCOVER_HINT
    else:
        names = ", ".join(exc.formats or registry.readable_names())
        advice = f"name the format with -f (one of: {names})"
    return f"{where}: error[{exc.code}]: the input {exc.what}; {advice}"
