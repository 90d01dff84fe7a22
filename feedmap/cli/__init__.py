"""The ``feedmap`` command line: one module per subcommand, errors turned into messages and exit codes.

Exit codes: 0 success (also when lenient reading recovered and printed warnings), 1 input that could not
be used or any warning under ``--strict``, 2 a usage or I/O error.  An expected error never shows a
traceback.

Stopping early follows the shell's convention of 128 + the signal number: Ctrl-C (SIGINT) exits 130,
SIGTERM 143 and SIGHUP 129, after the temporary output file was removed (SIGTERM and SIGHUP are turned
into an exception like Ctrl-C, unless they were ignored when feedmap started, as under ``nohup``).  When
the reader of the output goes away (``feedmap ... | head -1``), feedmap stops quietly with 141, the status
of a command killed by SIGPIPE (Python ignores SIGPIPE, so this is a BrokenPipeError here).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from types import FrameType
from typing import Any, NoReturn

from feedmap import __version__
from feedmap._core.collector import spaced_collections
from feedmap._core.errors import FeedmapError, FormatError, ReadError, SourceError, UnknownFormatError, WriteError
from feedmap._io.sinks import GuardedOutput
from feedmap.cli import codes, convert, diff, discover, formats, info, report, validate
from feedmap.cli._advice import advice_for, read_error, unknown_format
from feedmap.cli._common import printable, printable_lines

__all__ = ["Terminated", "build_parser", "console", "main"]

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 128 + 2  # SIGINT
EXIT_BROKEN_PIPE = 128 + 13  # SIGPIPE

_EPILOG = """\
examples:
  feedmap convert samples/sitemap/basic.xml -t jsonl           sitemap -> JSON lines on stdout
  feedmap convert sitemap.xml.gz -t text -o urls.txt             gzip is recognised by content
  feedmap convert index.xml --map https://example.com/=public/ -t text
                                                                 follow an index into a build dir
  feedmap convert feed.xml -t sitemap                            a feed as a sitemap (one entry per URL)
  feedmap convert sitemap.xml -t ror --link https://example.com/  a sitemap as ROR RSS
  feedmap info sitemap.xml                                       count, lastmod range, problems
  feedmap diff old/sitemap.xml sitemap.xml                       URLs added, removed, changed (exit 1 if any)
  feedmap validate sitemap.xml                                   every protocol problem, with its line
  feedmap report index.xml -o report.html                        one HTML page: counts, dates, hosts, problems
  feedmap discover example.com --tree                            a site's sitemaps (robots.txt) as a tree
  feedmap formats                                                what can be read and written
  feedmap codes loc-duplicate                                    what a diagnostic code means (all: feedmap codes)

exit codes: 0 ok (warnings printed), 1 unusable input, an error read past (xml-limit) or a warning under
  --strict (diff: 1 different, 2 trouble), 2 usage or I/O error, 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP
  (no partial output left), 141 the output's reader went away (| head)
"""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its messages (a usage error quoting an argument, a file name) printed escaped: what
    :meth:`print_usage`, :meth:`print_help` and :meth:`error` print comes from the public methods below."""

    def format_usage(self) -> str:
        return printable_lines(super().format_usage())

    def format_help(self) -> str:
        return printable_lines(super().format_help())

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        super().exit(status, None if message is None else printable_lines(message))


class _Version(argparse.Action):
    """``--version``: the version and which compiled parts are in use (asked only when given)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        from feedmap import compiled_parts

        parts = compiled_parts()
        said = [
            f"{kind}: {', '.join(name for name, in_use in parts.items() if in_use is compiled)}"
            for kind, compiled in (("compiled", True), ("pure-Python", False))
            if compiled in parts.values()
        ]
        sys.stdout.write(f"feedmap {__version__} ({'; '.join(said)})\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The ``feedmap`` parser, its subcommands' parsers within."""
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``feedmap`` parser and its subcommands' parsers, by name (the subparsers action's choices)."""
    parser = _Parser(
        prog="feedmap",
        description="Convert between XML sitemaps, sitemap indexes, text sitemaps, RSS/Atom feeds, ROR RSS "
        "and JSON lines.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, help="show the version and which sitemap walk reads, then exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (convert, diff, info, validate, report, discover, formats, codes):
        module.add_parser(subparsers)
    return parser, dict(subparsers.choices)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: the run stops the way Ctrl-C stops it (temporary output removed)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _signals_stop_the_run() -> Iterator[None]:
    """While a command runs, SIGTERM and SIGHUP raise :class:`Terminated` in the main thread.

    Only the first one raises, so that a second signal cannot cut the cleanup short.  A signal that was
    ignored when feedmap started (``nohup``) stays ignored; the previous handlers are restored at the end.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal raised
        if not raised:
            raised = True
            raise Terminated(signum)

    previous = {}
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
            previous[signum] = signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _say(message: str) -> None:
    """Print to stderr, which may be a closed pipe too."""
    with contextlib.suppress(OSError):
        print(printable(message), file=sys.stderr)


def _quiet_stdout() -> None:
    """After a broken pipe: stdout becomes os.devnull, so that flushing it at exit cannot fail again.

    (What Python's documentation of SIGPIPE recommends; in-process, stdout may have no descriptor.)
    """
    with contextlib.suppress(OSError, ValueError):
        fd = sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


@contextlib.contextmanager
def _stdout_errors_are_messages() -> Iterator[None]:
    """While a command runs, failing to write stdout (``> file`` on a full disk) is a SourceError naming
    ``<stdout>``, not a traceback; everything is flushed before the end, so exiting cannot fail later."""
    original = sys.stdout
    below = getattr(original, "buffer", None)
    if below is None:  # a text-only stream put there by a caller
        yield
        return
    raw = GuardedOutput("<stdout>", below.write, below.flush, tty=original.isatty())
    guarded = io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=original.encoding,
        errors=original.errors,
        line_buffering=bool(getattr(original, "line_buffering", False)),
    )
    sys.stdout = guarded
    try:
        yield
        guarded.flush()
        raw.flush()
    except BaseException:
        if not raw.failed:  # what the command printed before it stopped is shown
            with contextlib.suppress(OSError, ValueError):
                guarded.flush()
        raw.abandon()  # what could not be written is dropped, so closing cannot fail again
        raise
    finally:
        sys.stdout = original
        with contextlib.suppress(OSError, ValueError):
            guarded.close()  # closes the layers above raw only: the real stdout stays open


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``feedmap argv...``; return the exit code (never raises for expected errors or signals)."""
    try:
        with _signals_stop_the_run(), spaced_collections():
            return _run(argv)
    except BrokenPipeError:  # the reader of our output went away (e.g. `| head`): stop quietly
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except Terminated as exc:
        _say(f"feedmap: terminated by {signal.Signals(exc.signum).name}")
        return 128 + exc.signum
    except KeyboardInterrupt:
        _say("feedmap: interrupted")
        return EXIT_INTERRUPTED


def _run(argv: Sequence[str] | None) -> int:
    parser, commands = _parsers()
    try:
        args, unknown = parser.parse_known_args(convert.join_sort_value(sys.argv[1:] if argv is None else argv))
        if unknown:  # said with the usage of the command they were given to (`feedmap convert --bogus`)
            command = commands.get(getattr(args, "command", None) or "", parser)
            command.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        with _stdout_errors_are_messages():
            result: int = args.run(args)
        return result
    except FeedmapError as exc:
        code = _report(exc)
        # a command may say that any trouble has one code (diff: 2, as diff(1), since 1 means "different")
        trouble: int | None = getattr(args, "trouble_exit", None)
        code = code if trouble is None else trouble
        if getattr(args, "cron", False):  # --cron: the summary line says the run failed
            from feedmap.cli._cron import failed_line

            failed_line(args, code)
        return code


def _report(exc: FeedmapError) -> int:
    """Print an expected error as a message (its outside text escaped: :func:`printable`); the exit code it
    calls for."""
    message, code = _message(exc)
    print(printable(message), file=sys.stderr)
    return code


def _message(exc: FeedmapError) -> tuple[str, int]:
    if isinstance(exc, UnknownFormatError):
        return unknown_format(exc), EXIT_INVALID
    if isinstance(exc, ReadError):
        where = f"{exc.source}:{exc.line}" if exc.source and exc.line else exc.source or "feedmap"
        return f"{where}: error[{exc.code}]: {read_error(exc)}", EXIT_INVALID
    if isinstance(exc, WriteError):
        return f"feedmap: error: {exc}", EXIT_INVALID
    if isinstance(exc, FormatError):
        return f"feedmap: error: {exc}", EXIT_USAGE
    if isinstance(exc, SourceError):
        return f"feedmap: error: {exc}{advice_for(exc)}", EXIT_USAGE
    return f"feedmap: error: {exc}", EXIT_INVALID  # pragma: no cover - every subclass is handled above


def console() -> NoReturn:
    """The ``feedmap`` command: :func:`main`, then exit with its code.

    After an interrupt, a signal or a broken pipe, exit at once: the requests still in flight on worker
    threads would otherwise be waited for (up to their timeouts) by the interpreter's shutdown.  Output
    files are already cleaned up.
    """
    code = main()
    if code > 128:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    sys.exit(code)
