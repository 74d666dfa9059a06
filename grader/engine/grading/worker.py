"""One background thread that runs tasks in the order given: the side of a grading that
talks to the child, while the grading thread draws cases and judges answers.

``concurrent.futures`` would do the same, but loads ``logging`` with it, which one
grading from the command line never needs.  Standard library only.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Task(Generic[T]):
    """A task handed to the worker; ``result()`` waits for it and returns or raises."""

    def __init__(self, fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self._call = (fn, args, kwargs)
        self._done = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None

    def _run(self) -> None:
        fn, args, kwargs = self._call
        try:
            self._value = fn(*args, **kwargs)
        except BaseException as exc:  # handed to whoever waits for the result
            self._error = exc
        finally:
            self._done.set()

    def result(self) -> T:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]


class Worker:
    """A context manager: leaving it waits for the tasks given so far, then ends the thread."""

    def __init__(self) -> None:
        self._tasks: deque[Task[Any] | None] = deque()
        self._ready = threading.Semaphore(0)
        self._thread = threading.Thread(target=self._loop, name="grading-child", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while True:
            self._ready.acquire()
            task = self._tasks.popleft()
            if task is None:
                return
            task._run()

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Task[T]:
        task: Task[T] = Task(fn, args, kwargs)
        self._tasks.append(task)
        self._ready.release()
        return task

    def close(self) -> None:
        self._tasks.append(None)
        self._ready.release()
        self._thread.join()

    def __enter__(self) -> Worker:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
