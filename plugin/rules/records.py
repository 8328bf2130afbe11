"""Code generated once per record type, for the engine's hot path.

A whole game is about a hundred events and each one builds a few records (effects, a
timer, a round, the day's record) and copies the state. The generic dataclass machinery
is several times slower than straight-line code for these, so the engine generates the
straight-line code once per type:

- `quick_init`: the `__init__` of a frozen, slotted, keyword-only dataclass that stores
  each field through its slot directly. A frozen dataclass's own `__init__` goes through
  `object.__setattr__` once per field, which made an effect cost about 2 µs to build.
  The class keeps everything else: keyword-only arguments with the same defaults, the
  same equality, repr and hash, and assignment after construction still raises.
- `make_clone`: a shallow copy of a slotted dataclass, one attribute store per field.
- `make_replace`: `dataclasses.replace` for the state's records (slotted, not frozen, never
  changed once built) as a clone plus the changed fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Give a frozen, slotted, keyword-only dataclass a faster `__init__` (same signature)."""
    params = getattr(cls, "__dataclass_params__", None)
    if not is_dataclass(cls) or params is None or not params.frozen or "__slots__" not in vars(cls):
        raise TypeError(f"quick_init wants a frozen slotted dataclass, not {cls!r}")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has __post_init__, which quick_init would skip")
    namespace: dict[str, Any] = {"NO_VALUE": object()}
    signature, body = [], []
    for f in fields(cls):
        if not f.kw_only or not f.init:
            raise TypeError(f"quick_init wants keyword-only fields: {cls.__name__}.{f.name}")
        namespace[f"set_{f.name}"] = vars(cls)[f.name].__set__  # the slot's descriptor
        if f.default is not MISSING:
            namespace[f"default_{f.name}"] = f.default
            signature.append(f"{f.name}=default_{f.name}")
        elif f.default_factory is not MISSING:
            namespace[f"factory_{f.name}"] = f.default_factory
            signature.append(f"{f.name}=NO_VALUE")
            body.append(f"    if {f.name} is NO_VALUE: {f.name} = factory_{f.name}()")
        else:
            signature.append(f.name)
        body.append(f"    set_{f.name}(self, {f.name})")
    arguments = f", *, {', '.join(signature)}" if signature else ""
    source = f"def __init__(self{arguments}) -> None:\n" + "\n".join(body or ["    pass"])
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    type.__setattr__(cls, "__init__", init)
    return cls


def _clone_source(cls: type[Any], name: str, signature: str, tail: list[str]) -> Any:
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or params.frozen or "__slots__" not in vars(cls):
        raise TypeError(f"{name} wants a slotted dataclass that is not frozen, not {cls!r}")
    lines = [f"def {name}({signature}):", "    new = new_object(cls)"]
    lines += [f"    new.{f.name} = old.{f.name}" for f in fields(cls)]
    lines += [*tail, "    return new"]
    namespace: dict[str, Any] = {"new_object": object.__new__, "cls": cls}
    exec("\n".join(lines), namespace)
    return namespace[name]


def make_clone(cls: type[T]) -> Callable[[T], T]:
    """A shallow copy of a slotted dataclass that is not frozen, one attribute store per
    field: several times faster than copy.copy, and `apply` copies the state (and the vote)
    on every event."""
    clone: Callable[[T], T] = _clone_source(cls, "clone", "old", [])
    return clone


def make_replace(cls: type[T]) -> Callable[..., T]:
    """`dataclasses.replace` for a slotted record that is not frozen (the state's records,
    treated as immutable): a copy with the changed fields assigned; a slotted class refuses
    a name it does not have. A day's record is replaced on every speech."""
    tail = ["    for name, value in changes.items():", "        setattr(new, name, value)"]
    replace: Callable[..., T] = _clone_source(cls, "replace", "old, **changes", tail)
    return replace


def positional(cls: type[T]) -> Callable[..., T]:
    """A constructor of a `quick_init` record taking its fields in order, for the engine's
    few hottest call sites (a keyword call costs about a third more)."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"new_object": object.__new__, "cls": cls}
    body = ["    new = new_object(cls)"]
    for name in names:
        namespace[f"set_{name}"] = vars(cls)[name].__set__
        body.append(f"    set_{name}(new, {name})")
    source = f"def make({', '.join(names)}):\n" + "\n".join([*body, "    return new"])
    exec(source, namespace)
    make: Callable[..., T] = namespace["make"]
    return make
