"""Headless Chromium driven over the DevTools protocol on a pipe, with the standard library.

``chromium --remote-debugging-pipe`` reads commands on fd 3 and writes answers on fd 4,
each a JSON object ended by a NUL byte. Enough here to open a page, wait for it, run
JavaScript, size the window and take a screenshot.
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
from pathlib import Path
from typing import Any

__all__ = ["Browser", "chromium_path"]

_TIMEOUT = 60.0


def chromium_path() -> str | None:
    """The Chromium executable on PATH (Debian's ``chromium``), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, executable: str) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="handoff-chromium-")
        to_child, self._to_browser = os.pipe()
        self._from_browser, from_child = os.pipe()

        def wire() -> None:  # in the child: the protocol wants fds 3 (in) and 4 (out)
            reading, writing = os.dup(to_child), os.dup(from_child)  # clear of 3 and 4
            os.dup2(reading, 3)  # dup2 makes them inheritable
            os.dup2(writing, 4)

        self._process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--mute-audio",
                f"--user-data-dir={self._profile.name}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            close_fds=False,
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._events: list[dict[str, Any]] = []
        self._next = 0
        self._session: str | None = None
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.send("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the browser process and remove its profile."""
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.send("Browser.close", _session=False)
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._profile.cleanup()

    def send(self, method: str, _session: bool = True, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer; RuntimeError on a protocol error."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if _session and self._session is not None:
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + _TIMEOUT
        while True:
            answer = self._read(deadline)
            if "method" in answer:
                self._events.append(answer)
            elif answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\0", 1)
        data: dict[str, Any] = json.loads(line)
        return data

    def open(self, path: Path, *, width: int = 1400, height: int = 1000) -> None:
        """Load ``path`` at the given window size and wait until the page has loaded."""
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.send("Page.enable")
        self._events.clear()
        self.send("Page.navigate", url=path.resolve().as_uri())
        self._wait_for("Page.loadEventFired")

    def _wait_for(self, method: str) -> None:
        deadline = time.monotonic() + _TIMEOUT
        while not any(e.get("method") == method for e in self._events):
            answer = self._read(deadline)
            if "method" in answer:
                self._events.append(answer)

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page; RuntimeError if it throws."""
        answer = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression!r} threw: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def screenshot(self, target: Path, *, full_page: bool = False) -> Path:
        """Save a PNG of the page (the window, or the whole page) to ``target``."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", **params)["data"]
        target.write_bytes(base64.b64decode(data))
        return target
