"""Unit tests of the generators model's own Future, Task and Queue."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from impls.models.generators_loop import (
    CancelledError,
    Coro,
    EventLoop,
    Future,
    InvalidStateError,
    Queue,
)


@pytest.fixture
def loop() -> Any:
    event_loop = EventLoop()
    yield event_loop
    event_loop.close()


def resolved_soon(loop: EventLoop, value: Any) -> Future[Any]:
    future: Future[Any] = Future()
    loop.call_soon(future.set_result, value)
    return future


# -- Future -----------------------------------------------------------------------------------


def test_yield_from_a_pending_future_suspends_and_returns_its_result() -> None:
    future: Future[int] = Future()

    def waiter() -> Coro[int]:
        return (yield from future)

    gen = waiter()
    assert gen.send(None) is future  # suspended on the future itself
    future.set_result(42)
    with pytest.raises(StopIteration) as stop:
        gen.send(None)
    assert stop.value.value == 42


def test_yield_from_a_done_future_does_not_suspend() -> None:
    future: Future[str] = Future()
    future.set_result("ready")

    def waiter() -> Coro[str]:
        return (yield from future)

    with pytest.raises(StopIteration) as stop:
        waiter().send(None)
    assert stop.value.value == "ready"


def test_yield_from_a_failed_future_raises_its_exception() -> None:
    future: Future[None] = Future()
    future.set_exception(KeyError("gone"))

    def waiter() -> Coro[None]:
        yield from future

    with pytest.raises(KeyError):
        waiter().send(None)


def test_future_callbacks_run_once_on_resolution_and_at_once_when_done() -> None:
    future: Future[int] = Future()
    seen: list[int] = []
    future.add_done_callback(lambda f: seen.append(f.result()))
    assert seen == []
    future.set_result(7)
    future.add_done_callback(lambda f: seen.append(f.result() * 10))
    assert seen == [7, 70]


def test_future_refuses_a_second_result_and_an_early_read() -> None:
    future: Future[int] = Future()
    with pytest.raises(InvalidStateError):
        future.result()
    future.set_result(1)
    with pytest.raises(InvalidStateError):
        future.set_result(2)
    assert not future.cancel()
    assert future.exception() is None


# -- Task -------------------------------------------------------------------------------------


def test_task_sends_results_in_and_resolves_to_the_return_value(loop: EventLoop) -> None:
    def add() -> Coro[int]:
        first: int = yield from resolved_soon(loop, 2)
        second: int = yield from resolved_soon(loop, 3)
        return first + second

    assert loop.run_until_complete(add()) == 5


def test_task_can_be_waited_for_like_a_future(loop: EventLoop) -> None:
    def child() -> Coro[str]:
        yield from resolved_soon(loop, None)
        return "child done"

    def parent() -> Coro[str]:
        return (yield from loop.create_task(child()))

    assert loop.run_until_complete(parent()) == "child done"


def test_task_keeps_the_coroutines_exception(loop: EventLoop) -> None:
    def fails() -> Coro[None]:
        yield from resolved_soon(loop, None)
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        loop.run_until_complete(fails())


def test_throw_raises_inside_the_coroutine_where_it_waits(loop: EventLoop) -> None:
    never: Future[None] = Future()

    def waits() -> Coro[str]:
        try:
            yield from never
        except TimeoutError:
            return "caught at the yield"
        return "not reached"

    def main() -> Coro[str]:
        task = loop.create_task(waits())
        loop.call_soon(task.throw, TimeoutError())
        return (yield from task)

    assert loop.run_until_complete(main()) == "caught at the yield"
    assert not never._callbacks  # the task no longer waits on the future


def test_throw_replaces_a_wake_up_that_is_due(loop: EventLoop) -> None:
    future: Future[int] = Future()
    outcome: list[str] = []

    def waits() -> Coro[None]:
        try:
            yield from future
            outcome.append("resumed")
        except TimeoutError:
            outcome.append("thrown")

    def main() -> Coro[None]:
        task = loop.create_task(waits())
        yield from resolved_soon(loop, None)  # let the task start waiting
        future.set_result(1)  # its wake-up is now scheduled...
        task.throw(TimeoutError())  # ...and the throw takes its place
        yield from task

    loop.run_until_complete(main())
    assert outcome == ["thrown"]


def test_cancel_ends_a_waiting_task_as_cancelled(loop: EventLoop) -> None:
    cleaned_up: list[bool] = []

    def waits() -> Coro[None]:
        try:
            yield from Future()
        finally:
            cleaned_up.append(True)

    def main() -> Coro[bool]:
        task = loop.create_task(waits())
        yield from resolved_soon(loop, None)
        assert task.cancel()
        try:
            yield from task
        except CancelledError:
            return task.cancelled()
        return False

    assert loop.run_until_complete(main()) is True
    assert cleaned_up == [True]


def test_cancel_before_the_first_step_and_after_the_end(loop: EventLoop) -> None:
    started: list[bool] = []

    def body() -> Coro[None]:
        started.append(True)
        yield from resolved_soon(loop, None)

    def main() -> Coro[None]:
        unstarted = loop.create_task(body())
        unstarted.cancel()
        finished = loop.create_task(resolved_soon(loop, 1).__iter__())
        yield from finished
        assert not finished.cancel()
        yield from resolved_soon(loop, None)
        assert unstarted.cancelled()

    loop.run_until_complete(main())
    assert started == []


def test_a_task_that_catches_cancellation_carries_on(loop: EventLoop) -> None:
    def stubborn() -> Coro[str]:
        with contextlib.suppress(CancelledError):
            yield from Future()
        yield from resolved_soon(loop, None)
        return "still here"

    def main() -> Coro[str]:
        task = loop.create_task(stubborn())
        yield from resolved_soon(loop, None)
        task.cancel()
        return (yield from task)

    assert loop.run_until_complete(main()) == "still here"


def test_yielding_something_else_than_a_future_is_a_type_error(loop: EventLoop) -> None:
    def wrong() -> Coro[None]:
        yield "not a future"  # type: ignore[misc]

    with pytest.raises(TypeError, match="must yield Futures"):
        loop.run_until_complete(wrong())


# -- Queue ------------------------------------------------------------------------------------


def test_queue_get_waits_for_put_and_keeps_fifo_order(loop: EventLoop) -> None:
    queue: Queue[int] = Queue()

    def consumer() -> Coro[list[int]]:
        items = []
        for _ in range(3):
            items.append((yield from queue.get()))
        return items

    def main() -> Coro[list[int]]:
        task = loop.create_task(consumer())
        yield from resolved_soon(loop, None)  # the consumer waits on an empty queue
        for item in (1, 2, 3):
            yield from queue.put(item)
        return (yield from task)

    assert loop.run_until_complete(main()) == [1, 2, 3]


def test_queue_join_waits_until_every_item_is_done(loop: EventLoop) -> None:
    queue: Queue[str] = Queue()
    handled: list[str] = []

    def worker() -> Coro[None]:
        while True:
            item = yield from queue.get()
            yield from resolved_soon(loop, None)  # some work that waits
            handled.append(item)
            if item == "a":
                queue.put_nowait("a's child")  # work found while working
            queue.task_done()

    def main() -> Coro[None]:
        queue.put_nowait("a")
        queue.put_nowait("b")
        workers = [loop.create_task(worker()) for _ in range(2)]
        yield from queue.join()
        for task in workers:
            task.cancel()

    loop.run_until_complete(main())
    assert sorted(handled) == ["a", "a's child", "b"]


def test_join_on_an_idle_queue_returns_at_once_and_extra_task_done_fails() -> None:
    queue: Queue[int] = Queue()
    with pytest.raises(StopIteration):
        queue.join().send(None)
    with pytest.raises(ValueError):
        queue.task_done()


def test_a_cancelled_getter_does_not_swallow_an_item(loop: EventLoop) -> None:
    queue: Queue[str] = Queue()

    def main() -> Coro[str]:
        first = loop.create_task(queue.get())
        second = loop.create_task(queue.get())
        yield from resolved_soon(loop, None)  # both wait, first in line
        first.cancel()
        queue.put_nowait("item")
        return (yield from second)

    assert loop.run_until_complete(main()) == "item"


def test_a_woken_getter_that_is_cancelled_passes_the_item_on(loop: EventLoop) -> None:
    queue: Queue[str] = Queue()

    def main() -> Coro[str]:
        first = loop.create_task(queue.get())
        second = loop.create_task(queue.get())
        yield from resolved_soon(loop, None)
        queue.put_nowait("item")  # wakes the first getter...
        first.cancel()  # ...which is cancelled before it takes the item
        return (yield from second)

    assert loop.run_until_complete(main()) == "item"


def test_a_task_that_throws_into_itself_is_woken_once(loop: EventLoop) -> None:
    future: Future[None] = Future()
    outcome: list[str] = []

    def selfish() -> Coro[None]:
        task = loop.current_task
        assert task is not None
        task.throw(TimeoutError())  # delivered at the next yield, instead of waiting
        try:
            yield from future
        except TimeoutError:
            outcome.append("thrown")
        future.set_result(None)  # a stale wake-up would step the task a second time
        yield from resolved_soon(loop, None)
        outcome.append("done")

    loop.run_until_complete(selfish())
    assert outcome == ["thrown", "done"]
