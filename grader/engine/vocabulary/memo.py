"""Values that follow from an object nothing changes, remembered for that very object.

A class graded with one seed meets the same cases in every submission (the lab's
plan is drawn once per process): what follows from a case alone, such as the
answers the well-known mistakes give or a ranking of its table, is then computed
once rather than once per submission.  An entry keeps its object alive, so that
its id cannot be reused while the entry is there.  Standard library only.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class Memo(Generic[V]):
    """``get(obj, tag, make)``: ``make()`` the first time, the remembered value after.

    ``obj`` must never change after its first use here; ``tag`` tells apart the
    values of one object.  At most ``size`` entries, the oldest dropped first.
    """

    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[int, Hashable], tuple[Any, V]] = OrderedDict()

    def get(self, obj: Any, tag: Hashable, make: Callable[[], V]) -> V:
        key = (id(obj), tag)
        hit = self._entries.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = make()
        self._entries[key] = (obj, value)
        while len(self._entries) > self.size:
            try:
                self._entries.popitem(last=False)
            except KeyError:  # another thread dropped it first
                break
        return value

    def __len__(self) -> int:
        return len(self._entries)
