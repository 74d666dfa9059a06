"""Frozen records: ``@frozen`` makes a class a frozen dataclass whose methods are
shared, not written for it.

``dataclasses.dataclass(frozen=True)`` writes the source of six methods for every
class (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__`` and
``__delattr__``) and compiles it: some 4 million instructions a class, and a grading
from the command line defines over forty of them before its child can start.  Here
the fields are still gathered by ``dataclasses`` (with every method turned off, so
nothing is compiled), and the methods are the functions below, the same for every
class: ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` work as
for any dataclass, and an instance is built, compared, hashed, shown and refused a
change as a frozen dataclass's would be.  A method the class defines itself is kept.

Only what the grader's records use is supported: fields with a default or a
``default_factory``, no ``InitVar``, ``ClassVar``, ``kw_only``, ``__post_init__`` or
per-field ``init``, ``repr``, ``compare`` and ``hash`` options (``frozen`` refuses a
class that uses them).  Building an instance costs a microsecond or two more than a
written ``__init__``, which a grading's few thousand records repay many times over.

Its modules may import, of the grader: none (the standard library only).
"""

from __future__ import annotations

import dataclasses
import operator
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:  # what the type checker reads; at run time (3.10 has no typing's) nothing

    def dataclass_transform(**kwargs: Any) -> Any:
        return lambda decorator: decorator


T = TypeVar("T")

_MISSING = dataclasses.MISSING


class _Spec:
    """What the shared methods need of one class."""

    __slots__ = ("names", "fields", "defaults", "values")

    def __init__(self, cls: type) -> None:
        names = []
        defaults: dict[str, tuple[Any, bool]] = {}  # a default, or (factory, True)
        for f in dataclasses.fields(cls):
            kw_only = getattr(f, "kw_only", False)  # 3.10+; the reference's tests load this on 3.8
            if not (f.init and f.repr and f.compare and f.hash is None and not kw_only):
                raise TypeError("%s.%s: a field option @frozen does not take" % (cls, f.name))
            names.append(f.name)
            if f.default is not _MISSING:
                defaults[f.name] = (f.default, False)
            elif f.default_factory is not _MISSING:
                defaults[f.name] = (f.default_factory, True)
        self.names = tuple(names)
        self.fields = frozenset(names)
        self.defaults = defaults
        getter = operator.attrgetter(*names) if names else (lambda obj: ())
        # attrgetter of one name gives the value itself, not a tuple of one
        self.values = (lambda obj: (getter(obj),)) if len(names) == 1 else getter


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    spec: _Spec = type(self).__frozen_spec__
    own = self.__dict__  # empty: a new instance
    if args:
        if len(args) > len(spec.names):
            raise TypeError(_too_many(type(self).__name__, spec, len(args)))
        own.update(zip(spec.names, args))
    if kwargs:
        if not spec.fields.issuperset(kwargs) or not own.keys().isdisjoint(kwargs):
            _refuse(type(self).__name__, spec, own, kwargs)
        own.update(kwargs)
    if len(own) < len(spec.names):
        for name in spec.fields.difference(own):
            if name not in spec.defaults:
                missing = [n for n in spec.names if n not in own and n not in spec.defaults]
                raise TypeError(
                    "%s() missing %d required positional argument%s: %s"
                    % (type(self).__name__, len(missing), "s"[: len(missing) - 1], _listed(missing))
                )
            value, made = spec.defaults[name]
            own[name] = value() if made else value


def _too_many(name: str, spec: _Spec, given: int) -> str:
    """Python's own message for too many positional arguments (``self`` counted)."""
    most = len(spec.names) + 1
    least = most - len(spec.defaults)
    takes = "%d" % most if least == most else "from %d to %d" % (least, most)
    return "%s() takes %s positional argument%s but %d %s given" % (
        name,
        takes,
        "" if most == 1 else "s",
        given + 1,
        "was" if given + 1 == 1 else "were",
    )


def _listed(names: list[str]) -> str:
    """Names as Python's own message lists them: 'a', 'a' and 'b', 'a', 'b', and 'c'."""
    quoted = [repr(n) for n in names]
    if len(quoted) < 3:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _refuse(name: str, spec: _Spec, given: dict[str, Any], kwargs: dict[str, Any]) -> None:
    """The TypeError of a keyword argument that is no field, or a field given twice."""
    for key in kwargs:
        if key not in spec.fields:
            raise TypeError("%s() got an unexpected keyword argument %r" % (name, key))
        if key in given:
            raise TypeError("%s() got multiple values for argument %r" % (name, key))


def _repr(self: Any) -> str:
    names = type(self).__frozen_spec__.names
    shown = ", ".join("%s=%r" % (name, getattr(self, name)) for name in names)
    return "%s(%s)" % (type(self).__qualname__, shown)


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        values = type(self).__frozen_spec__.values
        return values(self) == values(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(type(self).__frozen_spec__.values(self))


def _setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError("cannot assign to field %r" % name)


def _delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError("cannot delete field %r" % name)


def _make(cls: type[T], eq: bool) -> type[T]:
    own = dict(cls.__dict__)
    if "__post_init__" in own:
        raise TypeError("%s: @frozen calls no __post_init__" % cls.__name__)
    if not own.get("__doc__"):
        # dataclasses would write a docstring from inspect.signature, which parses
        # text with tokenize's patterns, compiled for it: a few milliseconds.
        cls.__doc__ = "%s: a record" % cls.__name__
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    cls.__frozen_spec__ = _Spec(cls)  # type: ignore[attr-defined]
    methods: dict[str, Any] = {
        "__init__": _init,
        "__repr__": _repr,
        "__setattr__": _setattr,
        "__delattr__": _delattr,
    }
    if eq:
        methods["__eq__"] = _eq
        methods["__hash__"] = _hash
    if own.get("__hash__", _MISSING) is None and "__eq__" in own:
        del own["__hash__"]  # set to None by Python for the class's own __eq__
    for name, method in methods.items():
        if name not in own:
            setattr(cls, name, method)
    return cls


@overload
def frozen(cls: type[T]) -> type[T]: ...


@overload
def frozen(*, eq: bool = True) -> Any: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def frozen(cls: type[T] | None = None, *, eq: bool = True) -> Any:
    """``@frozen`` or ``@frozen(eq=False)`` (compared and hashed by identity): as
    ``@dataclass(frozen=True)`` and ``@dataclass(frozen=True, eq=False)``."""
    if cls is None:
        return lambda c: _make(c, eq)
    return _make(cls, eq)
