"""The wall clock under simulation: ``time.time()`` and ``datetime.now()`` follow virtual time.

The replacements for the clock functions of :mod:`time` and for the
``datetime.datetime`` / ``datetime.date`` classes live here; ``_clock_patch`` puts them
in place while at least one wall-clock simulation runs, in any thread, and takes them out
when the last one ends, so a process that is not simulating is untouched.

Each replacement asks a :class:`~contextvars.ContextVar` which simulation runs the
caller. The simulation binds its :class:`WallClock` in the context its tasks run in,
so every thread and every context sees its own simulation's clock, or the real clock
when it runs none. Inside a simulation the local time zone is UTC, which keeps traces
identical across machines. See docs/virtual-time.md for the rules.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import functools
import sys
import time as _time
from collections.abc import Callable
from contextvars import Context, ContextVar
from typing import Any, Final, TypeVar

__all__ = ["WallClock", "carry"]

T = TypeVar("T")

_US: Final = 1_000_000
_UTC: Final = _dt.UTC
_EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_UTC)
_ONE_US: Final = _dt.timedelta(microseconds=1)

_real_datetime: Final = _dt.datetime
_real_date: Final = _dt.date
_real_time: Final = _time.time
_real_time_ns: Final = _time.time_ns
_real_monotonic: Final = _time.monotonic
_real_monotonic_ns: Final = _time.monotonic_ns
_real_perf_counter: Final = _time.perf_counter
_real_perf_counter_ns: Final = _time.perf_counter_ns
_real_gmtime: Final = _time.gmtime
_real_localtime: Final = _time.localtime
_real_mktime: Final = _time.mktime
_real_ctime: Final = _time.ctime
_real_asctime: Final = _time.asctime
_real_strftime: Final = _time.strftime

# Code in these modules keeps the real clock even inside a simulation: their timeouts
# (a queue.get(timeout=...), a thread join, a nested real event loop) would never
# expire on a clock that stands still.
_REAL_FOR: Final = frozenset(
    {
        "_pytest",
        "asyncio",
        "concurrent",
        "multiprocessing",
        "pluggy",
        "queue",
        "sched",
        "selectors",
        "socket",
        "ssl",
        "subprocess",
        "threading",
    }
)
_REAL_FOR_PACKAGES: Final = tuple(f"{name}." for name in _REAL_FOR)
# Modules the scan leaves alone: the clock's own modules, freezegun's record of the
# real functions, and this module (its record of them); the patch leaves itself out too.
_NOT_SCANNED: Final = _REAL_FOR | {
    "time",
    "datetime",
    "_datetime",
    "_pydatetime",
    "freezegun",
    __name__,
}
_NOT_SCANNED_PACKAGES: Final = (*_REAL_FOR_PACKAGES, "freezegun.")


class WallClock:
    """One simulation's wall clock: ``start`` plus the virtual microseconds of its loop."""

    __slots__ = ("_elapsed_us", "_last", "_start_us")

    def __init__(self, start: _dt.datetime, elapsed_us: Callable[[], int]) -> None:
        aware = start if start.utcoffset() is not None else start.replace(tzinfo=_UTC)
        self._start_us = (aware - _EPOCH) // _ONE_US
        self._elapsed_us = elapsed_us
        self._last = (self._start_us, _EPOCH + _dt.timedelta(microseconds=self._start_us))

    def epoch_us(self) -> int:
        """Microseconds since the Unix epoch, as the simulation sees it."""
        return self._start_us + self._elapsed_us()

    def elapsed_us(self) -> int:
        """Virtual microseconds since the simulation began (its monotonic clock)."""
        return self._elapsed_us()

    def utc_now(self) -> _dt.datetime:
        """The simulation's instant as an aware UTC datetime.

        Virtual time stands still between timers, so most reads ask for the instant the
        last one made: that one is kept (datetimes are immutable), as building one from
        the epoch costs more than the rest of a read.
        """
        now_us = self._start_us + self._elapsed_us()
        last_us, last = self._last
        if now_us != last_us:
            last = _EPOCH + _dt.timedelta(microseconds=now_us)
            self._last = (now_us, last)
        return last

    def bind(self, context: Context) -> None:
        """Make this the wall clock of everything that runs in ``context``."""
        context.run(_CURRENT.set, self)


_CURRENT: ContextVar[WallClock | None] = ContextVar("handoff_sim_wall_clock", default=None)


def _clock() -> WallClock | None:
    """The clock the caller of a patched function sees; ``None`` means the real one."""
    clock = _CURRENT.get()
    if clock is None:
        return None
    try:
        caller = sys._getframe(2).f_globals.get("__name__")
        real = _KEEPS_REAL.get(caller)
    except (ValueError, TypeError):  # no Python frame there; a name that is no string
        return clock
    if real is None:
        real = _keeps_real(caller)
    return None if real else clock


# Whether a caller module keeps the real clock, by its name: the answer is read on every
# clock read, so it is worked out once per module (a bounded table: names are modules).
_KEEPS_REAL: Final[dict[object, bool]] = {}


def _keeps_real(name: object) -> bool:
    real = isinstance(name, str) and (name in _REAL_FOR or name.startswith(_REAL_FOR_PACKAGES))
    if len(_KEEPS_REAL) < 10_000:
        _KEEPS_REAL[name] = real
    return real


def carry(func: Callable[..., T]) -> Callable[..., T]:
    """``func`` bound to the current simulation's wall clock, to run in a worker thread."""
    clock = _CURRENT.get()
    if clock is None:
        return func
    context = Context()
    clock.bind(context)
    return functools.partial(context.run, _call, func)


def _call(func: Callable[..., T], *args: Any) -> T:
    # A Python frame of this module between the worker's machinery and ``func``: a
    # patched clock handed over as ``func`` itself then sees this module as its caller.
    return func(*args)


# --- the time module ------------------------------------------------------------------------


def _fake_time() -> float:
    clock = _clock()
    return _real_time() if clock is None else clock.epoch_us() / _US


def _fake_time_ns() -> int:
    clock = _clock()
    return _real_time_ns() if clock is None else clock.epoch_us() * 1000


def _fake_monotonic() -> float:
    clock = _clock()
    return _real_monotonic() if clock is None else clock.elapsed_us() / _US


def _fake_monotonic_ns() -> int:
    clock = _clock()
    return _real_monotonic_ns() if clock is None else clock.elapsed_us() * 1000


def _fake_perf_counter() -> float:
    clock = _clock()
    return _real_perf_counter() if clock is None else clock.elapsed_us() / _US


def _fake_perf_counter_ns() -> int:
    clock = _clock()
    return _real_perf_counter_ns() if clock is None else clock.elapsed_us() * 1000


def _utc_struct(clock: WallClock, secs: float | None) -> _time.struct_time:
    return _real_gmtime(clock.epoch_us() / _US if secs is None else secs)


def _fake_gmtime(secs: float | None = None, /) -> _time.struct_time:
    clock = _clock()
    return _real_gmtime(secs) if clock is None else _utc_struct(clock, secs)


def _fake_localtime(secs: float | None = None, /) -> _time.struct_time:
    clock = _clock()
    return _real_localtime(secs) if clock is None else _utc_struct(clock, secs)


def _fake_mktime(t: _time.struct_time | tuple[int, ...], /) -> float:
    if _CURRENT.get() is None:
        return _real_mktime(t)  # type: ignore[arg-type]
    return float(calendar.timegm(t))


def _fake_ctime(secs: float | None = None, /) -> str:
    clock = _clock()
    return _real_ctime(secs) if clock is None else _real_asctime(_utc_struct(clock, secs))


def _fake_asctime(t: _time.struct_time | tuple[int, ...] | None = None, /) -> str:
    clock = _clock()
    if clock is None:
        return _real_asctime() if t is None else _real_asctime(t)  # type: ignore[arg-type]
    return _real_asctime(_utc_struct(clock, None) if t is None else t)  # type: ignore[arg-type]


def _fake_strftime(format: str, t: _time.struct_time | tuple[int, ...] | None = None, /) -> str:
    clock = _clock()
    if t is not None:
        return _real_strftime(format, t)  # type: ignore[arg-type]
    if clock is None:
        return _real_strftime(format)
    return _real_strftime(format, _utc_struct(clock, None))


# --- the datetime classes -------------------------------------------------------------------
#
# Stand-ins for ``datetime.datetime`` and ``datetime.date`` while the patch is in place.
# Their clock methods follow the simulation; everything they make is a plain, real
# datetime or date, so values print, pickle, copy and serialise as usual. They carry
# the real classes' names, so a datetime pickled meanwhile reads ``datetime.datetime``.
# A stand-in also equals (and hashes like) its real class, so a table keyed by the real
# class (pydantic's schema for a ``datetime`` field of a model defined in a simulation)
# finds it.


def _real_of(cls: type) -> type | None:
    """The real class a stand-in stands for (``None`` for any other class, subclasses too)."""
    real = cls.__dict__.get("_handoff_real")
    return real if isinstance(real, type) else None


class _SimulatedClass(type):
    """Makes a stand-in pass for its real class: ``isinstance``, ``issubclass``, ``==``."""

    def __instancecheck__(cls, instance: Any) -> bool:
        real = _real_of(cls)
        return type.__instancecheck__(cls, instance) if real is None else isinstance(instance, real)

    def __subclasscheck__(cls, subclass: Any) -> bool:
        real = _real_of(cls)
        return type.__subclasscheck__(cls, subclass) if real is None else issubclass(subclass, real)

    def __eq__(cls, other: object) -> bool:
        real = _real_of(cls)
        return other is cls or (real is not None and other is real)

    def __hash__(cls) -> int:
        real = _real_of(cls)
        return type.__hash__(cls if real is None else real)


class _SimDate(_dt.date, metaclass=_SimulatedClass):
    """``datetime.date`` whose ``today()`` follows the simulation (UTC)."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> _SimDate:
        if cls is _SimDate:
            return _real_date(*args, **kwargs)  # type: ignore[return-value]
        return _real_date.__new__(cls, *args, **kwargs)  # a subclass made while patched

    @classmethod
    def today(cls) -> _SimDate:
        clock = _clock()
        if clock is None:
            return _real_date.today()  # type: ignore[return-value]
        return _virtual_now(clock, _UTC).date()  # type: ignore[return-value]

    @classmethod
    def fromtimestamp(cls, t: float, /) -> _SimDate:
        if _CURRENT.get() is None:
            return _real_date.fromtimestamp(t)  # type: ignore[return-value]
        return _real_datetime.fromtimestamp(t, _UTC).date()  # type: ignore[return-value]


class _SimDatetime(_dt.datetime, metaclass=_SimulatedClass):
    """``datetime.datetime`` whose ``now()`` family follows the simulation (UTC)."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> _SimDatetime:
        if cls is _SimDatetime:
            return _real_datetime(*args, **kwargs)  # type: ignore[return-value]
        return _real_datetime.__new__(cls, *args, **kwargs)  # a subclass made while patched

    @classmethod
    def now(cls, tz: _dt.tzinfo | None = None) -> _SimDatetime:
        clock = _clock()
        if clock is None:
            return _real_datetime.now(tz)  # type: ignore[return-value]
        return _virtual_now(clock, tz)  # type: ignore[return-value]

    @classmethod
    def utcnow(cls) -> _SimDatetime:
        clock = _clock()
        if clock is None:
            return _real_datetime.utcnow()  # type: ignore[return-value]
        return _virtual_now(clock, None)  # type: ignore[return-value]

    @classmethod
    def today(cls) -> _SimDatetime:
        clock = _clock()
        if clock is None:
            return _real_datetime.today()  # type: ignore[return-value]
        return _virtual_now(clock, None)  # type: ignore[return-value]

    @classmethod
    def fromtimestamp(cls, t: float, tz: _dt.tzinfo | None = None) -> _SimDatetime:
        if _CURRENT.get() is None or tz is not None:
            return _real_datetime.fromtimestamp(t, tz)  # type: ignore[return-value]
        return _real_datetime.fromtimestamp(t, _UTC).replace(tzinfo=None)  # type: ignore[return-value]


for _sim, _real_class in ((_SimDate, _real_date), (_SimDatetime, _real_datetime)):
    setattr(_sim, "_handoff_real", _real_class)  # noqa: B010 - read back from the class dict
    _sim.__module__ = _real_class.__module__
    _sim.__name__ = _sim.__qualname__ = _real_class.__name__


def _virtual_now(clock: WallClock, tz: _dt.tzinfo | None) -> _dt.datetime:
    """What ``datetime.now(tz)`` returns inside the simulation of ``clock``."""
    utc = clock.utc_now()
    if tz is _UTC:  # what UTC's fromutc() would give back: the same aware datetime
        return utc
    return utc.replace(tzinfo=None) if tz is None else tz.fromutc(utc.replace(tzinfo=tz))


def _reduce_datetime(value: _dt.datetime) -> tuple[Any, ...]:
    # Pickled while patched, a datetime names its class through ``datetime.datetime``,
    # which is the stand-in then: reduce to the stand-in, which makes a real one back.
    return (_SimDatetime, _real_datetime.__reduce_ex__(value, 4)[1])


def _reduce_date(value: _dt.date) -> tuple[Any, ...]:
    return (_SimDate, _real_date.__reduce_ex__(value, 4)[1])


_REDUCERS: Final[dict[type, Callable[[Any], tuple[Any, ...]]]] = {
    _real_datetime: _reduce_datetime,
    _real_date: _reduce_date,
}
