"""Quicker construction for the frozen, slotted dataclasses a run builds by the thousand.

A frozen dataclass's ``__init__`` stores each field through ``object.__setattr__``,
which looks the slot up by name on every call (about 40% of the cost of an event).
:func:`quick_init` gives the class an ``__init__`` with the very same signature (names,
defaults, keyword-only marks, annotations) that stores each field through its slot's
descriptor, fetched once; :func:`quick_builder` makes a positional builder for the
runtime's own hot path. Instances stay frozen: assigning a field still raises
``FrozenInstanceError``.

A builder fills a new object as an instance of :func:`filler`, a private subclass with
the very same layout whose attribute stores are plain ones (the interpreter's quickest,
with no call per field), and then gives the object its real class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

__all__ = ["filler", "quick_builder", "quick_init"]

T = TypeVar("T", bound=type)
C = TypeVar("C")


def _slotted(cls: type) -> bool:
    return is_dataclass(cls) and "__slots__" in vars(cls) and not hasattr(cls, "__post_init__")


_FILLERS: dict[type, type] = {}


def filler(cls: type) -> type:
    """A subclass of slotted ``cls`` with its exact layout, whose fields may be assigned.

    A builder makes its object as a ``filler(cls)``, assigns every field as a plain
    attribute, then sets ``__class__`` to ``cls``: one assignment for the whole object
    instead of a descriptor call per field. Nothing outside the builders ever sees one.
    """
    made = _FILLERS.get(cls)
    if made is None:
        namespace = {
            "__slots__": (),
            "__module__": cls.__module__,
            "__qualname__": f"{cls.__qualname__}.<filler>",
            # object's own: attribute stores then take the interpreter's slot fast path,
            # and ``filler(cls)()`` makes an empty object without any Python-level call
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
            "__new__": object.__new__,
            "__init__": object.__init__,
        }
        made = _FILLERS[cls] = type(f"{cls.__name__}Filler", (cls,), namespace)
    return made


def quick_init(cls: T) -> T:
    """Replace ``cls.__init__`` by one that stores each field through its slot.

    ``cls`` must be a frozen dataclass made with ``slots=True`` and without
    ``__post_init__``; anything else is returned as it is.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or not _slotted(cls):
        return cls
    namespace: dict[str, Any] = {"_MISSING": MISSING}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    annotations: dict[str, Any] = {}
    for f in fields(cls):
        if not f.init:
            return cls  # a field left out of __init__: keep the generated one
        name = f.name
        namespace[f"_set_{name}"] = getattr(cls, name).__set__
        param = name
        if f.default is not MISSING:
            namespace[f"_default_{name}"] = f.default
            param = f"{name}=_default_{name}"
        elif f.default_factory is not MISSING:
            namespace[f"_factory_{name}"] = f.default_factory
            param = f"{name}=_MISSING"
            body.append(f"    if {name} is _MISSING:\n        {name} = _factory_{name}()")
        body.append(f"    _set_{name}(self, {name})")
        (keyword if f.kw_only else positional).append(param)
        annotations[name] = f.type
    params_text = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({params_text}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(compile(source, f"<quick_init {cls.__qualname__}>", "exec"), namespace)
    init = namespace["__init__"]
    init.__annotations__ = {**annotations, "return": None}
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[misc]
    return cls


def quick_builder(cls: type[C]) -> Callable[..., C]:
    """A function that builds a ``cls`` from every field, positionally, in field order.

    For the runtime's own hot path, where every field is at hand: no keyword binding,
    no defaults, each field stored through its slot. The object is the one ``cls(...)``
    builds from the same values. ``cls`` must be a slotted dataclass without
    ``__post_init__`` (a TypeError otherwise).
    """
    if not _slotted(cls):
        raise TypeError(f"{cls.__name__} is not a slotted dataclass without __post_init__")
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"_cls": cls, "_filler": filler(cls)}
    body = "".join(f"    self.{name} = {name}\n" for name in names)
    source = (
        f"def build({', '.join(names)}):\n    self = _filler()\n{body}"
        "    self.__class__ = _cls\n    return self\n"
    )
    exec(compile(source, f"<quick_builder {cls.__qualname__}>", "exec"), namespace)
    build: Callable[..., C] = namespace["build"]
    build.__name__ = build.__qualname__ = f"build_{cls.__name__}"
    return build
