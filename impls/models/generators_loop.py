"""The chapter's stage-2 machinery, complete: Future, Task, an event loop and a Queue."""

from __future__ import annotations

import contextlib
import errno
import heapq
import itertools
import os
import selectors
import socket
import time
from collections import deque
from collections.abc import Callable, Generator
from typing import Any, Generic, TypeAlias, TypeVar, cast

T = TypeVar("T")
# A coroutine here is a generator that yields Futures and returns a T.
Coro: TypeAlias = Generator["Future[Any]", None, T]

# The timer heap is swept of cancelled timers at most once per this many new timers.
MIN_TIMERS_BETWEEN_SWEEPS = 100


class CancelledError(BaseException):
    """Thrown into a cancelled task; a BaseException so that `except Exception` lets it by."""


class InvalidStateError(RuntimeError):
    """A Future was resolved twice, or its result was asked for too early."""


class Future(Generic[T]):
    """A result that is not there yet; `yield from future` waits for it and returns it."""

    def __init__(self) -> None:
        self._done = False
        self._result: T | None = None
        self._exception: BaseException | None = None
        self._callbacks: list[Callable[[Future[T]], None]] = []

    def done(self) -> bool:
        return self._done

    def cancelled(self) -> bool:
        return isinstance(self._exception, CancelledError)

    def result(self) -> T:
        if not self._done:
            raise InvalidStateError("the future is not done yet")
        if self._exception is not None:
            raise self._exception
        return cast(T, self._result)

    def exception(self) -> BaseException | None:
        if not self._done:
            raise InvalidStateError("the future is not done yet")
        return self._exception

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def remove_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        self._callbacks.remove(callback)

    def set_result(self, result: T) -> None:
        self._resolve(result, None)

    def set_exception(self, exception: BaseException) -> None:
        self._resolve(None, exception)

    def cancel(self) -> bool:
        if self._done:
            return False
        self.set_exception(CancelledError())
        return True

    def _resolve(self, result: T | None, exception: BaseException | None) -> None:
        if self._done:
            raise InvalidStateError("the future is already done")
        self._done, self._result, self._exception = True, result, exception
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:  # called at once, as in the chapter; Task defers its step
            callback(self)

    def __iter__(self) -> Coro[T]:
        if not self._done:
            yield self  # the Task resumes us when we are done
        return self.result()


class Task(Future[T]):
    """A Future that drives a coroutine: it sends into it until it returns, and throws into it."""

    def __init__(self, coro: Coro[T], loop: EventLoop) -> None:
        super().__init__()
        self._coro = coro
        self._loop = loop
        self._waiting_on: Future[Any] | None = None
        self._step_handle: Handle | None = loop.call_soon(self._step, None)

    def throw(self, exception: BaseException) -> bool:
        """Raise `exception` in the coroutine where it waits (in place of any wake-up due)."""
        if self._done:
            return False
        if self._waiting_on is not None:
            self._waiting_on.remove_done_callback(self._wakeup)
            self._waiting_on = None
        if self._step_handle is not None:
            self._step_handle.cancel()
        self._step_handle = self._loop.call_soon(self._step, exception)
        return True

    def cancel(self) -> bool:
        return self.throw(CancelledError())

    def _step(self, exception: BaseException | None) -> None:
        self._step_handle = None
        self._loop.current_task = self
        try:
            # Send None: a future's result is read by Future.__iter__, after its yield.
            future = self._coro.send(None) if exception is None else self._coro.throw(exception)
        except StopIteration as stop:
            self.set_result(stop.value)
        except (CancelledError, Exception) as exc:  # KeyboardInterrupt, SystemExit stop the loop
            self.set_exception(exc)
        else:
            if self._step_handle is not None:
                return  # throw() was called during this step: it goes in at this yield
            if not isinstance(future, Future):
                message = f"a coroutine must yield Futures, not {future!r}"
                self._step_handle = self._loop.call_soon(self._step, TypeError(message))
                return
            self._waiting_on = future
            future.add_done_callback(self._wakeup)
        finally:
            self._loop.current_task = None

    def _wakeup(self, future: Future[Any]) -> None:
        self._waiting_on = None
        # Resume on the next turn, not now: resolving a future never runs a coroutine inside
        # another one, so call stacks stay flat however many tasks wake each other.
        self._step_handle = self._loop.call_soon(self._step, None)


class Handle:
    """A callback the loop will call, unless it is cancelled first."""

    __slots__ = ("args", "callback", "cancelled")

    def __init__(self, callback: Callable[..., object], args: tuple[Any, ...]) -> None:
        self.callback, self.args, self.cancelled = callback, args, False

    def cancel(self) -> None:
        self.cancelled = True


class TimerHandle(Handle):
    """A callback due at a time of the loop's clock; ordered by that time, then by creation."""

    __slots__ = ("key",)

    def __init__(
        self, when: float, order: int, callback: Callable[..., object], args: tuple[Any, ...]
    ) -> None:
        super().__init__(callback, args)
        self.key = (when, order)

    def __lt__(self, other: TimerHandle) -> bool:
        return self.key < other.key


class EventLoop:
    """Waits on a selector for sockets and on a heap for timers, and runs what is ready."""

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.ready: deque[Handle] = deque()
        self.timers: list[TimerHandle] = []
        self.timer_order = itertools.count()
        self.timers_until_sweep = MIN_TIMERS_BETWEEN_SWEEPS
        self.current_task: Task[Any] | None = None

    # -- scheduling -----------------------------------------------------------------------

    def time(self) -> float:
        return time.monotonic()

    def call_soon(self, callback: Callable[..., object], *args: Any) -> Handle:
        handle = Handle(callback, args)
        self.ready.append(handle)
        return handle

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> Handle:
        timer = TimerHandle(self.time() + delay, next(self.timer_order), callback, args)
        heapq.heappush(self.timers, timer)
        # Each fetch sets a timeout and nearly always cancels it. Sweeping the cancelled ones
        # after as many new timers as the last sweep left keeps the heap within about twice
        # the live timers, at a constant cost per timer.
        self.timers_until_sweep -= 1
        if self.timers_until_sweep <= 0:
            self.timers = [timer for timer in self.timers if not timer.cancelled]
            heapq.heapify(self.timers)
            self.timers_until_sweep = max(MIN_TIMERS_BETWEEN_SWEEPS, len(self.timers))
        return timer

    def create_task(self, coro: Coro[T]) -> Task[T]:
        return Task(coro, self)

    def run_until_complete(self, coro: Coro[T]) -> T:
        main = self.create_task(coro)
        while not main.done():
            self.run_once()
        return main.result()

    def run_once(self) -> None:
        """One turn: wait for I/O or the next timer, then run every callback that is ready."""
        if self.ready:
            timeout: float | None = 0
        elif self.timers:
            timeout = max(0.0, self.timers[0].key[0] - self.time())
        elif self.selector.get_map():
            timeout = None
        else:
            raise RuntimeError("deadlock: nothing is ready, no timer is set, no socket waits")
        for key, _events in self.selector.select(timeout):
            future: Future[None] = key.data
            if not future.done():
                future.set_result(None)
            else:
                # Nobody waits on it: an idle kept-alive socket that the peer closed (or sent
                # to). Watching it would wake every turn; the next wait registers it again.
                self.selector.unregister(key.fileobj)
        now = self.time()
        while self.timers and (self.timers[0].key[0] <= now or self.timers[0].cancelled):
            timer = heapq.heappop(self.timers)
            if not timer.cancelled:
                self.ready.append(timer)
        for _ in range(len(self.ready)):  # what these schedule runs on the next turn
            handle = self.ready.popleft()
            if not handle.cancelled:
                handle.callback(*handle.args)

    def close(self) -> None:
        """Let the tasks cancelled last unwind, then close what is still registered."""
        for _ in range(len(self.ready)):
            handle = self.ready.popleft()
            if not handle.cancelled:
                handle.callback(*handle.args)
        for key in list(self.selector.get_map().values()):
            self.close_socket(key.fileobj)  # type: ignore[arg-type]  # we register only sockets
        self.selector.close()

    # -- sockets ----------------------------------------------------------------------------

    def wait_readable(self, sock: socket.socket) -> Future[None]:
        return self._wait_for(sock, selectors.EVENT_READ)

    def wait_writable(self, sock: socket.socket) -> Future[None]:
        return self._wait_for(sock, selectors.EVENT_WRITE)

    def _wait_for(self, sock: socket.socket, events: int) -> Future[None]:
        future: Future[None] = Future()
        try:  # a socket stays registered between waits: a new future costs no system call
            self.selector.modify(sock, events, future)
        except KeyError:
            self.selector.register(sock, events, future)
        return future

    def close_socket(self, sock: socket.socket) -> None:
        with contextlib.suppress(KeyError, ValueError):  # never waited on, or already closed
            self.selector.unregister(sock)
        sock.close()

    def sock_connect(self, sock: socket.socket, address: tuple[str, int]) -> Coro[None]:
        error = sock.connect_ex(address)
        if error not in (0, errno.EINPROGRESS):
            raise OSError(error, os.strerror(error))
        yield from self.wait_writable(sock)
        if error := sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
            raise OSError(error, os.strerror(error))

    def sock_sendall(self, sock: socket.socket, data: bytes) -> Coro[None]:
        unsent = memoryview(data)
        while unsent:
            with contextlib.suppress(BlockingIOError):
                unsent = unsent[sock.send(unsent) :]
            if unsent:
                yield from self.wait_writable(sock)

    def sock_recv(self, sock: socket.socket, size: int) -> Coro[bytes]:
        while True:
            yield from self.wait_readable(sock)
            try:
                return sock.recv(size)
            except BlockingIOError:
                continue  # a spurious wake-up


class Queue(Generic[T]):
    """An unbounded FIFO for coroutines, with join() and task_done() as in the chapter."""

    def __init__(self) -> None:
        self._items: deque[T] = deque()
        self._getters: deque[Future[None]] = deque()
        self._unfinished = 0
        self._finished: Future[None] = Future()

    def put_nowait(self, item: T) -> None:
        if self._unfinished == 0:
            self._finished = Future()
        self._unfinished += 1
        self._items.append(item)
        self._wake_a_getter()

    def put(self, item: T) -> Coro[None]:
        """Never waits (the queue is unbounded); a coroutine to match get()."""
        self.put_nowait(item)
        yield from ()

    def get(self) -> Coro[T]:
        while not self._items:
            waiter: Future[None] = Future()
            self._getters.append(waiter)
            try:
                yield from waiter
            except BaseException:
                if waiter.done():
                    self._wake_a_getter()  # pass on the wake-up this getter will not use
                else:
                    waiter.cancel()  # so that put_nowait() skips it
                raise
        return self._items.popleft()

    def task_done(self) -> None:
        if self._unfinished <= 0:
            raise ValueError("task_done() called more times than there were items")
        self._unfinished -= 1
        if self._unfinished == 0:
            self._finished.set_result(None)

    def join(self) -> Coro[None]:
        if self._unfinished:
            yield from self._finished

    def _wake_a_getter(self) -> None:
        while self._getters:
            waiter = self._getters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
