"""A page opened in a real headless Chromium (Debian's ``chromium``), as a reader would open it: a screenshot, what
its console said, what it tried to fetch.

Chromium is driven through the Chrome DevTools Protocol (https://chromedevtools.github.io/devtools-protocol/) over
``--remote-debugging-pipe``: the browser reads commands on its descriptor 3 and writes answers and events on its
descriptor 4, each message JSON ended by a NUL byte.  Pure Python: no Playwright, no websocket, no browser build
of a package's own.  The page is loaded from a ``file:`` URL in a fresh profile; every console message, uncaught
exception, log entry (a Content Security Policy violation is one) and network request is recorded.

``chromium_path()`` finds the browser; the tests that need it skip when it is missing, unless
``FEEDMAP_REQUIRE_BROWSER`` is set (``.ci/run`` sets it, after installing it): then they fail.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import env_flag

#: Set (to 1) by CI (.ci/run): a browser test that would be skipped for want of Chromium fails instead.
REQUIRE_BROWSER = "FEEDMAP_REQUIRE_BROWSER"

#: Flags for a quiet, offline, throw-away browser (no first-run pages, no update or sync traffic, no GPU).
FLAGS = (
    "--headless",
    "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-pipe",
)


def chromium_path() -> str:
    """The Chromium to drive; skips the test when there is none (fails under FEEDMAP_REQUIRE_BROWSER=1)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        message = "no chromium on the PATH (apt-get install chromium)"
        if env_flag(REQUIRE_BROWSER):
            pytest.fail(f"{message}; {REQUIRE_BROWSER} is set, so the browser tests may not be skipped")
        pytest.skip(message)
    return found


@dataclass
class Opened:
    """What opening a page gave: the screenshot (PNG bytes), the console's messages, the requests made."""

    screenshot: bytes
    #: (level, text) of each console message, uncaught exception and log entry.
    console: list[tuple[str, str]] = field(default_factory=list)
    #: The URL of every request the page made (its own file: URL included).
    requests: list[str] = field(default_factory=list)
    #: What the page's script found, when ``evaluate`` was given.
    value: Any = None

    @property
    def errors(self) -> list[str]:
        return [text for level, text in self.console if level in ("error", "assert")]


class _Pipe:
    """The DevTools protocol over the browser's pipe: commands sent, answers awaited, events recorded."""

    def __init__(self, process: subprocess.Popen[bytes], send_fd: int, receive_fd: int) -> None:
        self.process = process
        self.send_fd = send_fd
        self.receive_fd = receive_fd
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def command(self, method: str, session: str | None = None, timeout: float = 30.0, **params: Any) -> Any:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self.send_fd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str, timeout: float = 30.0) -> dict[str, Any]:
        for event in self.events:
            if event.get("method") == method:
                return event
        deadline = time.monotonic() + timeout
        while True:
            event = self._receive(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self.receive_fd], [], [], left)
            if ready:
                chunk = os.read(self.receive_fd, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"Chromium closed its pipe (exit {self.process.poll()})")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return dict(json.loads(message))


def open_page(page: Path, *, width: int = 1200, height: int = 900, evaluate: str | None = None) -> Opened:
    """Open ``page`` in headless Chromium at ``width`` x ``height`` CSS pixels: its screenshot (the whole page),
    console and requests, and the value of the script ``evaluate`` (run once it loaded), if given."""
    browser = chromium_path()
    with tempfile.TemporaryDirectory(prefix="feedmap-chromium-") as profile:
        to_browser_read, to_browser_write = os.pipe()
        from_browser_read, from_browser_write = os.pipe()
        # the browser reads commands on descriptor 3 and writes on 4: placed there in the child (inheritable),
        # every other descriptor of ours is not inherited (Python makes them non-inheritable, PEP 446)
        process = subprocess.Popen(
            [browser, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=_descriptors(to_browser_read, from_browser_write),
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        pipe = _Pipe(process, to_browser_write, from_browser_read)
        try:
            return _drive(pipe, page, width, height, evaluate)
        finally:
            with contextlib.suppress(RuntimeError, TimeoutError, OSError):
                pipe.command("Browser.close", timeout=10)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            os.close(to_browser_write)
            os.close(from_browser_read)


def _descriptors(read_end: int, write_end: int) -> Any:
    """In the child: the pipe's ends on descriptors 3 (commands in) and 4 (answers out)."""

    def place() -> None:
        reading, writing = os.dup(read_end), os.dup(write_end)  # out of the way of 3 and 4 first
        os.dup2(reading, 3)  # inheritable, as dup2 makes it
        os.dup2(writing, 4)

    return place


def _drive(pipe: _Pipe, page: Path, width: int, height: int, evaluate: str | None) -> Opened:
    target = pipe.command("Target.createTarget", url="about:blank")["targetId"]
    session = pipe.command("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        pipe.command(f"{domain}.enable", session)
    pipe.command(
        "Emulation.setDeviceMetricsOverride", session, width=width, height=height, deviceScaleFactor=1, mobile=False
    )
    pipe.command("Page.navigate", session, url=page.resolve().as_uri())
    pipe.wait_for("Page.loadEventFired")
    value = None
    if evaluate is not None:
        evaluated = pipe.command("Runtime.evaluate", session, expression=evaluate, returnByValue=True)
        value = evaluated["result"].get("value")
    shot = pipe.command("Page.captureScreenshot", session, format="png", captureBeyondViewport=True)
    opened = Opened(base64.b64decode(shot["data"]), value=value)
    for event in pipe.events:
        _record(event, opened)
    return opened


def _record(event: dict[str, Any], opened: Opened) -> None:
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.consoleAPICalled":
        words = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
        opened.console.append((params.get("type", ""), words))
    elif method == "Runtime.exceptionThrown":
        opened.console.append(("error", str(params.get("exceptionDetails", {}).get("text", ""))))
    elif method == "Log.entryAdded":
        entry = params.get("entry", {})
        opened.console.append((entry.get("level", ""), f"{entry.get('source', '')}: {entry.get('text', '')}"))
    elif method == "Network.requestWillBeSent":
        opened.requests.append(params.get("request", {}).get("url", ""))
