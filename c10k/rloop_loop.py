"""rloop's event loop, with its self-socket closed once (imported only when rloop is asked for)."""

from __future__ import annotations

import rloop


class RLoop(rloop.RLoop):  # type: ignore[misc]  # rloop ships no type hints
    """rloop's loop, unchanged but for one rule: a descriptor is closed by its one owner. rloop
    0.5 gives the descriptors of the socket pair that wakes the loop to Rust, which closes them
    when the loop stops running, and then drops its Python sockets, which close the same numbers
    again. Another thread may have opened a file under one of those numbers in between (Rust
    closes them with the GIL released), and loses it: a crawl's socket, or the next loop's epoll
    (docs/notes/2026-11-28-rloop-self-socket.md). So the Python sockets let go of their
    descriptors once Rust has closed them."""

    def _ssock_stop(self) -> None:
        pair = (self._ssock_r, self._ssock_w)
        super()._ssock_stop()  # Rust closes both descriptors
        for sock in pair:
            sock.detach()  # the number is no longer this socket's to close
