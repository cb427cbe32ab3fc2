"""Read OTLP/JSON trace data (``ExportTraceServiceRequest``) into plain span records.

Accepts what exporters write: hex ids (OTLP/JSON) or base64 ids (protobuf's generic
JSON mapping), lowerCamelCase or snake_case field names, integers as numbers or
strings, enum names or numbers, one request per file or one per line (JSON lines, as
the collector's file exporter writes). Anything else is an :class:`OtlpFormatError`
naming the file, the field path and what is wrong with it.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from handoff_sim._files import UnreadableFile, read_regular
from handoff_sim._limits import MAX_TRACE_FILE_BYTES
from handoff_sim._otlp._names import EPOCH, NAMES
from handoff_sim._safe import JsonProblem, json_lines, parse_json
from handoff_sim.errors import OtlpError, OtlpFormatError

__all__ = [
    "OtlpError",
    "OtlpFormatError",
    "RawEvent",
    "RawSpan",
    "lone_surrogate",
    "read_source",
    "surrogate_problem",
]

MAX_VALUE_DEPTH = 64
"""How deeply attribute values (arrays, key/value lists) may nest."""

_KINDS = {
    "SPAN_KIND_UNSPECIFIED": 0,
    "SPAN_KIND_INTERNAL": 1,
    "SPAN_KIND_SERVER": 2,
    "SPAN_KIND_CLIENT": 3,
    "SPAN_KIND_PRODUCER": 4,
    "SPAN_KIND_CONSUMER": 5,
}
_CODES = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}
_HEX = re.compile(r"[0-9a-fA-F]*")
_INT = re.compile(r"-?[0-9]{1,20}")


@dataclass(frozen=True, slots=True)
class RawEvent:
    """A span event: name, time and attributes."""

    name: str
    time_ns: int
    attributes: dict[str, Any]


@dataclass(slots=True)
class RawSpan:
    """One span as the file holds it, with ids in lowercase hex and where it was found."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: int
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    events: list[RawEvent]
    status_code: int
    status_message: str
    resource: dict[str, Any]
    where: str
    index: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def read_source(source: str | Path | Mapping[str, Any]) -> tuple[str, list[RawSpan]]:
    """The label of ``source`` (a path, or ``<dict>``) and every span it holds, in file order."""
    if isinstance(source, Mapping):
        label = "<dict>"
        requests: list[tuple[str, object]] = [("", source)]
    else:
        label = str(source)
        requests = _requests(_read_text(Path(source), label), label)
    spans: list[RawSpan] = []
    for prefix, request in requests:
        spans.extend(_Reader(label, prefix).request(request))
    for index, span in enumerate(spans):
        span.index = index
    return label, spans


def _read_text(path: Path, label: str) -> str:
    try:  # never waits on a FIFO, never reads a device or a file over the bound
        raw = read_regular(path, MAX_TRACE_FILE_BYTES)
    except UnreadableFile as exc:
        reason = f"{exc.reason}, not an OTLP JSON file" if exc.directory else exc.reason
        raise OtlpFormatError(label, "", reason) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise OtlpFormatError(label, f"line {line}", "not valid UTF-8") from None


def _requests(text: str, label: str) -> list[tuple[str, object]]:
    """One JSON document, or JSON lines (one request per non-blank line)."""
    if not text.strip():
        raise OtlpFormatError(
            label, "", "is empty: expected an OTLP JSON object with resourceSpans"
        )
    try:
        return [("", parse_json(text))]
    except JsonProblem as whole:
        lines = list(json_lines(text))
        if len(lines) < 2 or whole.too_deep:
            raise OtlpFormatError(label, "", str(whole).removeprefix("is ")) from None
        found: list[tuple[str, object]] = []
        for number, line in lines:
            try:
                found.append((f"line {number}: ", parse_json(line)))
            except JsonProblem as problem:
                what = str(problem).removeprefix("is ")
                raise OtlpFormatError(label, f"line {number}", what) from None
        return found


@lru_cache(maxsize=512)  # field names: a few dozen; value keys come from the file
def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def _get(obj: Mapping[str, Any], name: str) -> tuple[str, Any]:
    """The value of field ``name`` (lowerCamelCase, or its snake_case form) and the key used."""
    if name in obj:
        return name, obj[name]
    snake = _snake(name)
    return (snake, obj[snake]) if snake in obj else (name, None)


class _Reader:
    """Walks one request; every error names the field path from the request's root."""

    def __init__(self, label: str, prefix: str) -> None:
        self.label = label
        self.prefix = prefix

    def fail(self, where: str, what: str) -> OtlpFormatError:
        return OtlpFormatError(self.label, f"{self.prefix}{where}", what)

    def mapping(self, value: object, where: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"expected an object, got {_kind(value)}")
        return value

    def items(self, obj: Mapping[str, Any], name: str, where: str) -> Iterator[tuple[str, Any]]:
        key, value = _get(obj, name)
        if value is None:
            return
        at = f"{where}.{key}" if where else key
        if not isinstance(value, list):
            raise self.fail(at, f"expected a list, got {_kind(value)}")
        for index, item in enumerate(value):
            yield f"{at}[{index}]", item

    def request(self, value: object) -> Iterator[RawSpan]:
        root = self.mapping(value, "")
        if _get(root, "resourceSpans")[1] is None:
            raise self.fail(
                "", "no resourceSpans: not an OTLP trace export (ExportTraceServiceRequest)"
            )
        for at, item in self.items(root, "resourceSpans", ""):
            yield from self.resource_spans(self.mapping(item, at), at)

    def resource_spans(self, obj: Mapping[str, Any], where: str) -> Iterator[RawSpan]:
        key, resource = _get(obj, "resource")
        attributes = (
            self.attributes(self.mapping(resource, f"{where}.{key}"), f"{where}.{key}")
            if resource is not None
            else {}
        )
        self.epoch(attributes, f"{where}.{key}.attributes[{EPOCH}]")
        scope_lists = [("scopeSpans", "scope"), ("instrumentationLibrarySpans", "")]
        for name, _ in scope_lists:
            for at, item in self.items(obj, name, where):
                scope = self.mapping(item, at)
                for span_at, span in self.items(scope, "spans", at):
                    yield self.span(self.mapping(span, span_at), span_at, attributes)

    def epoch(self, resource: dict[str, Any], where: str) -> None:
        """Our export's time zero, when the resource has one, is a time in Unix nanoseconds."""
        if EPOCH not in resource:
            return
        value = resource[EPOCH]
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(where, "not an integer")
        if value < 0:
            raise self.fail(where, f"{value} is not a time from 0 to 2^64-1 ns")

    def span(self, obj: Mapping[str, Any], where: str, resource: dict[str, Any]) -> RawSpan:
        trace_id = self.ident(obj, "traceId", where, 16, required=True)
        span_id = self.ident(obj, "spanId", where, 8, required=True)
        parent = self.ident(obj, "parentSpanId", where, 8, required=False)
        assert trace_id is not None
        assert span_id is not None
        key, status = _get(obj, "status")
        code, message = (0, "")
        if status is not None:
            code, message = self.status(self.mapping(status, f"{where}.{key}"), f"{where}.{key}")
        start = self.uint(obj, "startTimeUnixNano", where)
        return RawSpan(
            trace_id=trace_id,
            span_id=span_id,
            parent_id=parent,
            name=self.name(obj, where),
            kind=self.enum(obj, "kind", where, _KINDS),
            start_ns=start,
            end_ns=self.uint(obj, "endTimeUnixNano", where),
            attributes=self.attributes(obj, where),
            events=[
                self.event(self.mapping(item, at), at)
                for at, item in self.items(obj, "events", where)
            ],
            status_code=code,
            status_message=message,
            resource=resource,
            where=f"{self.prefix}{where}",
        )

    def event(self, obj: Mapping[str, Any], where: str) -> RawEvent:
        return RawEvent(
            name=self.name(obj, where),
            time_ns=self.uint(obj, "timeUnixNano", where),
            attributes=self.attributes(obj, where),
        )

    def status(self, obj: Mapping[str, Any], where: str) -> tuple[int, str]:
        return self.enum(obj, "code", where, _CODES), self.text(obj, "message", where)

    def text(self, obj: Mapping[str, Any], name: str, where: str) -> str:
        key, value = _get(obj, name)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.fail(f"{where}.{key}", f"expected a string, got {_kind(value)}")
        return value

    def name(self, obj: Mapping[str, Any], where: str) -> str:
        """The ``name`` of a span or a span event: text without a lone surrogate."""
        key, _ = _get(obj, "name")
        found = self.text(obj, "name", where)
        self.no_surrogate(found, f"{where}.{key}")
        return found

    def enum(self, obj: Mapping[str, Any], name: str, where: str, names: dict[str, int]) -> int:
        key, value = _get(obj, name)
        if value is None:
            return 0
        if isinstance(value, str) and value in names:
            return names[value]
        if isinstance(value, int) and not isinstance(value, bool) and value in names.values():
            return value
        known = ", ".join(names)
        raise self.fail(f"{where}.{key}", f"{value!r} is not one of {known} (or their numbers)")

    def uint(self, obj: Mapping[str, Any], name: str, where: str) -> int:
        key, value = _get(obj, name)
        if value is None:
            return 0
        number = _integer(value)
        if number is None or number < 0 or number >= 2**64:
            raise self.fail(f"{where}.{key}", "not an integer from 0 to 2^64-1")
        return number

    def ident(
        self, obj: Mapping[str, Any], name: str, where: str, size: int, *, required: bool
    ) -> str | None:
        key, value = _get(obj, name)
        at = f"{where}.{key}"
        if value is None or value == "":
            if required:
                raise self.fail(at, "missing")
            return None
        if not isinstance(value, str):
            raise self.fail(at, f"expected a hex string, got {_kind(value)}")
        decoded = _id_hex(value, size)
        if decoded is None:
            raise self.fail(
                at, f"{value!r} is not {size * 2} hex digits (nor {size} bytes in base64)"
            )
        if decoded == "0" * (size * 2):
            if required:
                raise self.fail(at, "is all zeros, which is not a valid id")
            return None
        return decoded

    def attributes(self, obj: Mapping[str, Any], where: str) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for at, item in self.items(obj, "attributes", where):
            pair = self.mapping(item, at)
            key = pair.get("key")
            if not isinstance(key, str):
                raise self.fail(f"{at}.key", f"expected a string, got {_kind(key)}")
            if not key.isascii():  # the common case costs one C call
                self.no_surrogate(key, f"{at}.key")
            value = found[key] = self.value(pair.get("value"), f"{at}.value", 0)
            if key in NAMES:
                self.no_surrogate(value, f"{where}.attributes[{key}]")
        return found

    def no_surrogate(self, value: object, where: str) -> None:
        """Refuse a name or id holding a lone surrogate: no output could write it."""
        code = lone_surrogate(value)
        if code is not None:
            raise self.fail(where, surrogate_problem(code))

    def value(self, value: object, where: str, depth: int) -> Any:  # noqa: C901 - one per kind
        if value is None:
            return None
        obj = self.mapping(value, where)
        if depth >= MAX_VALUE_DEPTH:
            raise self.fail(where, f"attribute values nested deeper than {MAX_VALUE_DEPTH} levels")
        if not obj:
            return None
        if len(obj) != 1:
            raise self.fail(where, f"expected one value field, got {', '.join(sorted(obj))}")
        key, item = next(iter(obj.items()))
        at = f"{where}.{key}"
        kind = _snake(key).removesuffix("_value")
        if kind == "string" and isinstance(item, str):
            return item
        if kind == "bool" and isinstance(item, bool):
            return item
        if kind == "int":
            number = _integer(item)
            if number is None or not -(2**63) <= number < 2**63:
                raise self.fail(at, "not a 64-bit integer")
            return number
        if kind == "double":
            return self.double(item, at)
        if kind == "bytes" and isinstance(item, str):
            return self.bytes(item, at)
        if kind in ("array", "kvlist") and isinstance(item, Mapping):
            return self.nested(kind, item, at, depth)
        raise self.fail(at, f"not a valid {key} (got {_kind(item)})")

    def nested(self, kind: str, obj: Mapping[str, Any], where: str, depth: int) -> Any:
        if kind == "array":
            return [self.value(v, at, depth + 1) for at, v in self.items(obj, "values", where)]
        found: dict[str, Any] = {}
        for at, pair in self.items(obj, "values", where):
            entry = self.mapping(pair, at)
            key = entry.get("key")
            if not isinstance(key, str):
                raise self.fail(f"{at}.key", f"expected a string, got {_kind(key)}")
            found[key] = self.value(entry.get("value"), f"{at}.value", depth + 1)
        return found

    def double(self, item: object, where: str) -> float:
        if isinstance(item, int | float) and not isinstance(item, bool):
            return float(item)
        specials = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
        if isinstance(item, str) and item in specials:
            return specials[item]
        raise self.fail(where, f"not a number (got {_kind(item)})")

    def bytes(self, item: str, where: str) -> bytes:
        try:
            return base64.b64decode(item, validate=True)
        except (binascii.Error, ValueError):
            raise self.fail(where, "not base64") from None


def lone_surrogate(value: object) -> str | None:
    """``U+D800``-style code of the first lone surrogate in a string, or in the strings
    of a list or mapping (nested); ``None`` when there is none."""
    if isinstance(value, str):
        if value.isascii():
            return None
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"U+{ord(value[exc.start]):04X}"
        return None
    if isinstance(value, Mapping):
        value = [*value.keys(), *value.values()]
    if isinstance(value, list | tuple):
        return next((code for item in value if (code := lone_surrogate(item))), None)
    return None


def surrogate_problem(code: str) -> str:
    """What is wrong with a name or id holding the lone surrogate ``code`` (worded as the
    scenario loader words it)."""
    return f"contains a lone surrogate {code}, which cannot be written as UTF-8"


def _integer(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    if isinstance(value, str) and _INT.fullmatch(value):
        return int(value)
    return None


def _id_hex(value: str, size: int) -> str | None:
    if len(value) == size * 2 and _HEX.fullmatch(value):
        return value.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw.hex() if len(raw) == size else None


def _kind(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    for cls, name in names.items():
        if isinstance(value, cls):
            return name
    return "a number" if isinstance(value, int | float) else type(value).__name__
