"""Headless Chromium driven over its DevTools pipe: open a page at a given width, run a script
in it, take a screenshot. Headless windows are at least 500 px wide, so a phone's width is set
by device-metrics emulation (as DevTools' device mode does), which also honours the page's
viewport meta tag."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# No network, no profile, no background services: the page must stand on its own.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
TIMEOUT_S = 90.0


def _as_fds_3_and_4(read_end: int, write_end: int) -> Callable[[], None]:
    """In the child, before exec: read_end as fd 3 and write_end as fd 4 (each copied away
    first, so that neither is overwritten while the other moves)."""

    def move() -> None:
        read_copy, write_copy = os.dup(read_end), os.dup(write_end)
        os.dup2(read_copy, 3)
        os.dup2(write_copy, 4)

    return move


class Browser:
    """One Chromium process and one page in it, spoken to over --remote-debugging-pipe (JSON
    messages ended by a NUL byte on fds 3 and 4)."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM is not None
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        self._process = subprocess.Popen(
            [CHROMIUM, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}"],
            # The child's fds 3 and 4 must be the pipe's ends; kept open past close_fds.
            pass_fds=(3, 4, to_chrome_r, from_chrome_w),
            preexec_fn=_as_fds_3_and_4(to_chrome_r, from_chrome_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next_id = 0
        self._buffer = b""
        self.events: list[dict[str, Any]] = []
        self.session = ""

    def _send(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        found: dict[str, Any] = json.loads(raw)
        return found

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A command to the page's session (the browser's before one is attached)."""
        sent = self._send(method, params, self.session)
        while True:
            message = self._read()
            if message.get("id") == sent:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result") or {}
                return result
            self.events.append(message)

    def wait_for(self, method: str) -> None:
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._read())

    def open(self, url: str, width: int, height: int) -> None:
        """A new page of width x height CSS pixels (a phone's when narrow), loaded with url."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        self.session = attached["sessionId"]
        self.call("Page.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
        )
        self.events.clear()
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        found = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in found:
            raise RuntimeError(str(found["exceptionDetails"]))
        return found["result"].get("value")

    def screenshot(self, path: Path) -> None:
        """The whole page as it is laid out now, top to bottom."""
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        params = {"format": "png", "captureBeyondViewport": True, "clip": clip}
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", params)["data"]))

    def close(self) -> None:
        try:
            self.session = ""
            self._send("Browser.close")
            self._process.wait(timeout=TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            os.close(self._to_chrome)
            os.close(self._from_chrome)
