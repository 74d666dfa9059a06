"""``@frozen`` records behave as ``@dataclass(frozen=True)`` ones do.

Each class below is made twice, once with each decorator, from the same body; every
call of the table builds one instance of each (or fails on both with the same
error), and the two must then agree on everything a record is used for: its fields,
``repr``, equality and hash (with each other instance of its kind), ``replace``,
``asdict``, ``astuple``, copies (by pickle's protocol), and the refusal to change or delete a field.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import pkgutil
from typing import Any

import pytest

import grader
from grader.engine.frozen import frozen


def twins(body: dict[str, Any], bases: tuple[type, type] | None = None, eq: bool = True) -> Any:
    """The class of ``body`` made by each decorator (names and annotations alike)."""
    made = []
    for i, decorate in enumerate(
        (frozen(eq=eq), lambda c: dataclasses.dataclass(frozen=True, eq=eq)(c))
    ):
        base = (bases[i],) if bases else ()
        cls = type("Rec", base, dict(body))
        cls.__qualname__ = "Rec"
        made.append(decorate(cls))
    return made


PLAIN = {
    "__annotations__": {"a": "int", "b": "str", "c": "tuple", "d": "list"},
    "b": "x",
    "c": (),
    "d": dataclasses.field(default_factory=list),
}
CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((1,), {}),
    ((1, "y"), {}),
    ((1, "y", (2,), [3]), {}),
    ((), {"a": 1}),
    ((), {"a": 1, "d": [1, 2]}),
    ((1,), {"c": (1,), "b": "z"}),
    ((), {}),  # a missing
    ((), {"b": "y"}),
    ((1, "y", (), [], 5), {}),  # too many
    ((1,), {"a": 2}),  # a twice
    ((1,), {"e": 2}),  # no field e
    ((1.0,), {"b": float("nan")}),  # a value unequal to itself
    ((1,), {"d": ()}),  # hashable
]


def build(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return cls(*args, **kwargs)
    except TypeError as exc:
        return ("TypeError", str(exc).replace(cls.__qualname__ + ".__init__()", "Rec()"))


def result(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except TypeError as exc:
        return ("TypeError", str(exc))


def test_every_call_gives_what_a_frozen_dataclass_gives() -> None:
    mine, theirs = twins(PLAIN)
    built = [(build(mine, a, k), build(theirs, a, k)) for a, k in CALLS]
    for (a, k), (m, t) in zip(CALLS, built):
        if isinstance(t, tuple):
            assert m == t, (a, k)
            continue
        assert repr(m) == repr(t)
        assert dataclasses.asdict(m) == dataclasses.asdict(t)
        assert dataclasses.astuple(m) == dataclasses.astuple(t)
        assert [f.name for f in dataclasses.fields(m)] == [f.name for f in dataclasses.fields(t)]
        assert result(hash, m) == result(hash, t)  # a list field: unhashable in both
        for again in (copy.copy(m), copy.deepcopy(m)):  # by pickle's own protocol
            assert repr(again) == repr(m) and type(again) is mine
        changed = dataclasses.replace(m, b="new")
        assert repr(changed) == repr(dataclasses.replace(t, b="new"))
        for action in (lambda r: setattr(r, "a", 9), lambda r: delattr(r, "b")):
            for record in (m, t):
                with pytest.raises(dataclasses.FrozenInstanceError):
                    action(record)
    ours = [m for m, _ in built if not isinstance(m, tuple)]
    others = [t for _, t in built if not isinstance(t, tuple)]
    for m1, t1 in zip(ours, others):
        for m2, t2 in zip(ours, others):
            assert (m1 == m2) == (t1 == t2)
            assert (m1 != m2) == (t1 != t2)
        assert (m1 == t1) is False  # other classes are never equal
        assert m1 != (1, "x", (), [])


def test_the_missing_are_listed_as_python_lists_them() -> None:
    body = {"__annotations__": {n: "int" for n in "abcd"}}
    for given in range(6):
        mine, theirs = twins(body)
        assert repr(build(mine, tuple(range(given)), {})) == repr(
            build(theirs, tuple(range(given)), {})
        )
    for body in ({"__annotations__": {}}, {"__annotations__": {"a": "int"}, "a": 1}):
        mine, theirs = twins(body)
        for given in range(3):
            assert repr(build(mine, tuple(range(given)), {})) == repr(
                build(theirs, tuple(range(given)), {})
            )


def test_each_record_gets_a_list_of_its_own_from_its_factory() -> None:
    mine, _ = twins(PLAIN)
    one, two = mine(1), mine(1)
    assert one.d == two.d == [] and one.d is not two.d


def test_identity_records_compare_and_hash_by_identity() -> None:
    mine, theirs = twins(PLAIN, eq=False)
    for cls in (mine, theirs):
        one, two = cls(1), cls(1)
        assert one != two and one == one and hash(one) != hash(two)


def test_a_subclass_adds_its_fields_after_its_bases() -> None:
    bases = twins({"__annotations__": {"a": "int"}})
    sub = {"__annotations__": {"b": "int"}, "b": 2}
    mine, theirs = twins(sub, bases=(bases[0], bases[1]))
    assert repr(mine(1)) == repr(theirs(1)) == "Rec(a=1, b=2)"
    assert mine(1, 3) == mine(1, 3) and mine(1, 3) != mine(1, 2)


def test_a_method_the_class_writes_is_kept() -> None:
    def same(self: Any, other: Any) -> bool:
        return True

    [mine] = twins({"__annotations__": {"a": "int"}, "__eq__": same})[:1]
    assert mine(1) == mine(2)
    assert hash(mine(1)) == hash(mine(1))  # the record's own hash, as a dataclass sets it


@pytest.mark.parametrize(
    "body",
    [
        {"__annotations__": {"a": "int"}, "a": dataclasses.field(default=1, repr=False)},
        {"__annotations__": {"a": "int"}, "a": dataclasses.field(default=1, compare=False)},
        {"__annotations__": {"a": "int"}, "a": dataclasses.field(default=1, init=False)},
        {"__annotations__": {"a": "int"}, "__post_init__": lambda self: None},
    ],
)
def test_what_it_does_not_take_is_refused(body: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        frozen(type("Rec", (), body))


def _records() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(grader.__path__, "grader."):
        if "._child" in info.name or info.name.endswith(".__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == info.name:
                if "__frozen_spec__" in vars(value):
                    found.append(value)
    return found


def test_the_graders_records_are_frozen_dataclasses_with_their_own_fields() -> None:
    records = _records()
    assert len(records) > 30
    for cls in records:
        assert dataclasses.is_dataclass(cls)
        names = [f.name for f in dataclasses.fields(cls)]
        assert list(cls.__frozen_spec__.names) == names
        own: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            own.update(getattr(klass, "__annotations__", {}) if klass is not object else {})
        assert names == [n for n in own if not n.startswith("_")] or names == list(own)
