"""The process-wide patch that puts the simulated clock in place of the real one.

It replaces the clock functions of :mod:`time` and the ``datetime.datetime`` /
``datetime.date`` classes, in their own modules and in every module that imported them
by name (``from time import time``), while at least one wall-clock simulation runs in
any thread; the last one to end takes it out. The replacements themselves, and how each
finds its simulation's clock, are in ``_wallclock``. The scan for names imported by name
is done once per module, the first time a simulation needs it; later windows rescan
only modules imported since.
"""

from __future__ import annotations

import copyreg
import datetime as _dt
import sys
import threading
import time as _time
from types import ModuleType, TracebackType
from typing import Any, Final

from handoff_sim.simulation._wallclock import (
    _NOT_SCANNED,
    _NOT_SCANNED_PACKAGES,
    _REDUCERS,
    _fake_asctime,
    _fake_ctime,
    _fake_gmtime,
    _fake_localtime,
    _fake_mktime,
    _fake_monotonic,
    _fake_monotonic_ns,
    _fake_perf_counter,
    _fake_perf_counter_ns,
    _fake_strftime,
    _fake_time,
    _fake_time_ns,
    _SimDate,
    _SimDatetime,
)

__all__ = ["PATCH"]


# kind -> (owner, attribute, replacement); the kind names the real object in _REAL.
_SOURCES: Final[dict[str, tuple[ModuleType, str, object]]] = {
    "time": (_time, "time", _fake_time),
    "time_ns": (_time, "time_ns", _fake_time_ns),
    "monotonic": (_time, "monotonic", _fake_monotonic),
    "monotonic_ns": (_time, "monotonic_ns", _fake_monotonic_ns),
    "perf_counter": (_time, "perf_counter", _fake_perf_counter),
    "perf_counter_ns": (_time, "perf_counter_ns", _fake_perf_counter_ns),
    "gmtime": (_time, "gmtime", _fake_gmtime),
    "localtime": (_time, "localtime", _fake_localtime),
    "mktime": (_time, "mktime", _fake_mktime),
    "ctime": (_time, "ctime", _fake_ctime),
    "asctime": (_time, "asctime", _fake_asctime),
    "strftime": (_time, "strftime", _fake_strftime),
    "datetime": (_dt, "datetime", _SimDatetime),
    "date": (_dt, "date", _SimDate),
}
# What each name held when this module was imported: the real clock.
_REAL: Final = {kind: getattr(owner, name) for kind, (owner, name, _) in _SOURCES.items()}
_FAKE: Final = {kind: fake for kind, (_, _, fake) in _SOURCES.items()}
_SOURCE_SLOTS: Final = tuple(
    (kind, vars(owner), attribute, fake) for kind, (owner, attribute, fake) in _SOURCES.items()
)
_FAKE_IDS: Final = {id(fake): kind for kind, fake in _FAKE.items()}
# freezegun.api's names for the real clock (real_time, real_datetime...), with ours.
_FREEZEGUN_RECORD: Final = tuple((f"real_{kind}", _REAL[kind], _FAKE[kind]) for kind in _SOURCES)

Location = tuple[str, str, object, object]  # (attribute name, kind, real, replacement)


def _modules_state() -> tuple[int, str, int]:
    """A cheap fingerprint of ``sys.modules``: it changes when a module is added or replaced."""
    modules = sys.modules
    try:
        last = next(reversed(modules))
    except (StopIteration, RuntimeError):
        return (len(modules), "", 0)
    return (len(modules), last, id(modules.get(last)))


def _scanned(name: str) -> bool:
    return not (name in _NOT_SCANNED or name.startswith(_NOT_SCANNED_PACKAGES) or name == __name__)


def _locations(module: ModuleType, ids: dict[int, str]) -> tuple[Location, ...]:
    """Where ``module`` holds a clock function or class by name (``from time import time``)."""
    namespace = getattr(module, "__dict__", None)
    if not isinstance(namespace, dict):
        return ()
    found = []
    for attribute, value in list(namespace.items()):
        kind = ids.get(id(value))
        if kind is not None and isinstance(attribute, str):
            found.append((attribute, kind, _REAL[kind], _FAKE[kind]))
    return tuple(found)


class _Patch:
    """The process-wide patch, held while at least one wall-clock simulation runs.

    Re-entrant across threads: the first holder installs it, the last one out removes it.
    What it replaced is put back only where its replacement is still in place.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        # (namespace, name, what was there, what replaced it): namespaces are module dicts,
        # written directly, which keeps a window to a few microseconds.
        self._undo: list[tuple[dict[str, Any], str, object, object]] = []
        self._reducers: dict[type, object] = {}  # copyreg entries found in place
        self._outside: dict[str, object] = dict(_REAL)
        self._scanned: dict[str, ModuleType] = {}
        # Only the scanned modules that hold something to replace, so a window costs
        # what they hold, not what is loaded.
        self._holders_of: dict[str, tuple[dict[str, Any], tuple[Location, ...]]] = {}
        self._unfinished: set[str] = set()
        self._seen = (0, "", 0)

    def __enter__(self) -> None:
        with self._lock:
            self._holders += 1
            if self._holders == 1:
                try:
                    self._install()
                except BaseException:
                    self._holders -= 1
                    self._remove()
                    raise

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with self._lock:
            self._holders -= 1
            if self._holders == 0:
                self._remove()

    def _install(self) -> None:
        # Whatever holds the clock now (the real one, or freezegun's) comes back afterwards.
        undo, outside = self._undo, self._outside
        for kind, namespace, attribute, fake in _SOURCE_SLOTS:
            current = namespace[attribute]
            outside[kind] = _REAL[kind] if current is fake else current
            namespace[attribute] = fake
            undo.append((namespace, attribute, current, fake))
        for cls, reducer in _REDUCERS.items():
            self._reducers[cls] = copyreg.dispatch_table.get(cls)
            copyreg.dispatch_table[cls] = reducer
        self._lend_to_freezegun()
        if self._unfinished or _modules_state() != self._seen:
            self._refresh()
        for namespace, locations in list(self._holders_of.values()):
            for attribute, kind, real, fake in locations:
                current = namespace.get(attribute)
                if current is real or current is outside[kind]:
                    namespace[attribute] = fake
                    undo.append((namespace, attribute, current, fake))

    def _lend_to_freezegun(self) -> None:
        """Make the simulated clock what a loaded freezegun takes for the real one, meanwhile.

        freezegun's ``stop()`` puts back the clock it recorded at import; a ``freeze_time``
        that starts and stops inside a simulation then gives the simulation its clock back,
        instead of the real one. Its record is left alone unless it is the real clock.
        """
        namespace = getattr(sys.modules.get("freezegun.api"), "__dict__", None)
        if not isinstance(namespace, dict):
            return
        undo = self._undo
        for name, real, fake in _FREEZEGUN_RECORD:
            if namespace.get(name) is real:
                namespace[name] = fake
                undo.append((namespace, name, real, fake))

    def _remove(self) -> None:
        for namespace, attribute, original, fake in reversed(self._undo):
            if namespace.get(attribute) is fake:
                namespace[attribute] = original
        self._undo.clear()
        for cls, previous in self._reducers.items():
            if copyreg.dispatch_table.get(cls) is _REDUCERS[cls]:
                if previous is None:
                    del copyreg.dispatch_table[cls]
                else:
                    copyreg.dispatch_table[cls] = previous  # type: ignore[assignment]
        self._reducers.clear()
        if _modules_state() != self._seen:  # imported meanwhile: they may hold replacements
            for name in self._refresh():
                namespace, locations = self._holders_of.get(name, ({}, ()))
                for attribute, kind, _, fake in locations:
                    if namespace.get(attribute) is fake:
                        namespace[attribute] = self._outside[kind]

    def _refresh(self) -> list[str]:
        """Scan the modules not seen yet (or still importing then); return their names."""
        ids = {id(value): kind for kind, value in _REAL.items()}
        ids.update({id(value): kind for kind, value in self._outside.items()})
        ids.update(_FAKE_IDS)
        state = _modules_state()  # before the copy: a module added meanwhile shows next time
        modules = dict(sys.modules)
        for name in [n for n, m in self._scanned.items() if modules.get(n) is not m]:
            del self._scanned[name]
            self._holders_of.pop(name, None)
        fresh = []
        for name, module in modules.items():
            if (name in self._scanned and name not in self._unfinished) or not _scanned(name):
                continue
            if not isinstance(module, ModuleType):
                continue
            self._unfinished.discard(name)
            if getattr(getattr(module, "__spec__", None), "_initializing", False):
                self._unfinished.add(name)
            self._scanned[name] = module
            locations = _locations(module, ids)
            if locations:
                self._holders_of[name] = (module.__dict__, locations)
            else:
                self._holders_of.pop(name, None)
            fresh.append(name)
        self._seen = state
        return fresh


PATCH: Final = _Patch()
