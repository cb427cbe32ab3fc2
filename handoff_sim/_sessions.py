"""Sessions (one conversation's memory) and where they are kept."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import quote

from handoff_sim._safe import describe_error, json_lines
from handoff_sim.errors import SessionStoreError
from handoff_sim.messages import Message

__all__ = ["InMemorySessionStore", "JsonlSessionStore", "Session", "SessionStore"]


@dataclass(eq=False, slots=True)
class Session:
    """A conversation: its messages and where it sits in the delegation tree."""

    id: str
    parent_session_id: str | None = None
    messages: list[Message] = field(default_factory=list)
    title: str | None = None
    root_session_id: str | None = None
    agent: str | None = None
    status: str = "open"

    def copy(self) -> Session:
        """A copy whose message list is its own."""
        return Session(
            self.id,
            self.parent_session_id,
            list(self.messages),
            self.title,
            self.root_session_id,
            self.agent,
            self.status,
        )

    def metadata(self) -> dict[str, Any]:
        """Everything but the messages, JSON-ready."""
        return {
            "id": self.id,
            "parent_session_id": self.parent_session_id,
            "root_session_id": self.root_session_id,
            "title": self.title,
            "agent": self.agent,
            "status": self.status,
            "message_count": len(self.messages),
        }


@runtime_checkable
class SessionStore(Protocol):
    """Keeps sessions; a run saves its session when it ends, also on error."""

    def save(self, session: Session) -> None:
        """Store (or overwrite) ``session``."""
        ...

    def load(self, session_id: str) -> Session | None:
        """The stored session with that id, or None."""
        ...

    def ids(self) -> list[str]:
        """Ids of every stored session, in the order first saved."""
        ...


class InMemorySessionStore:
    """The default store: a dict of session snapshots."""

    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}

    def save(self, session: Session) -> None:
        """Keep a snapshot, so later changes to ``session`` do not leak in."""
        self._sessions[session.id] = session.copy()

    def load(self, session_id: str) -> Session | None:
        """A copy of the stored session, or None."""
        stored = self._sessions.get(session_id)
        return None if stored is None else stored.copy()

    def ids(self) -> list[str]:
        """Ids in the order first saved."""
        return list(self._sessions)


class JsonlSessionStore:
    """Sessions on disk: ``<id>.jsonl`` (one message a line) plus ``<id>.meta.json``.

    Both files are written to a temporary file and renamed, so a crash never
    leaves half a file behind. Any string round-trips, lone surrogates included;
    a file that is not what this store writes is refused with a SessionStoreError.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _paths(self, session_id: str) -> tuple[Path, Path]:
        stem = _file_stem(session_id)
        return self.directory / f"{stem}.jsonl", self.directory / f"{stem}.meta.json"

    def save(self, session: Session) -> None:
        """Write both files atomically; any failure is a SessionStoreError naming the session."""
        try:
            messages, meta = _encode(session)
        except ValueError as exc:
            raise SessionStoreError(f"could not save session {session.id!r}: {exc}") from None
        messages_path, meta_path = self._paths(session.id)
        for path, text in ((messages_path, messages), (meta_path, meta)):
            try:
                _atomic_write(path, text.encode("utf-8"))
            except OSError as exc:
                raise SessionStoreError(
                    f"could not save session {session.id!r} to {path}: {describe_error(exc)}"
                ) from exc

    def load(self, session_id: str) -> Session | None:
        """Read a session back, or None when it was never saved."""
        messages_path, meta_path = self._paths(session_id)
        try:
            if not meta_path.exists():
                return None
            meta = _read_meta(meta_path)
            raw = messages_path.read_bytes() if messages_path.exists() else b""
        except OSError as exc:
            raise SessionStoreError(
                f"could not read session {session_id!r} from {self.directory}: "
                f"{describe_error(exc)}"
            ) from exc
        if meta["id"] != session_id:
            raise SessionStoreError(
                f"{meta_path}: holds session {meta['id']!r}, expected {session_id!r}"
            )
        return Session(
            id=meta["id"],
            parent_session_id=meta.get("parent_session_id"),
            messages=_parse_messages(raw, messages_path, session_id),
            title=meta.get("title"),
            root_session_id=meta.get("root_session_id"),
            agent=meta.get("agent"),
            status=meta.get("status", "open"),
        )

    def ids(self) -> list[str]:
        """Ids of the sessions on disk, sorted by file modification then name."""
        try:
            metas = sorted(
                self.directory.glob("*.meta.json"), key=lambda p: (p.stat().st_mtime, p.name)
            )
            return [str(_read_meta(p)["id"]) for p in metas]
        except OSError as exc:
            raise SessionStoreError(
                f"could not list the sessions in {self.directory}: {describe_error(exc)}"
            ) from exc


def try_save(store: SessionStore, session: Session, agent: str) -> SessionStoreError | None:
    """Save ``session``; a failure comes back (not raised) as a SessionStoreError naming it.

    The caller decides what a failed save does to the run, so it can still close
    what it opened. Errors a store raises that are not SessionStoreErrors are wrapped.
    """
    try:
        store.save(session)
    except SessionStoreError as exc:
        return exc
    except Exception as exc:
        error = SessionStoreError(
            f"agent {agent!r} could not save session {session.id!r} to its "
            f"{type(store).__name__}: {describe_error(exc)}"
        )
        error.__cause__ = exc
        return error
    return None


def load_session(store: SessionStore, session_id: str, agent: str) -> Session | None:
    """Load ``session_id`` from ``store``; whatever goes wrong is a SessionStoreError naming both.

    A custom store may raise anything or hand back something that is not a Session:
    either way the caller meets one typed error that says which agent, store and id.
    """
    where = f"agent {agent!r} could not load session {session_id!r} from its {type(store).__name__}"
    try:
        found = store.load(session_id)
    except SessionStoreError:
        raise
    except Exception as exc:
        raise SessionStoreError(f"{where}: {describe_error(exc)}") from exc
    if found is not None and not isinstance(found, Session):
        raise SessionStoreError(
            f"{where}: load() returned {type(found).__name__}, expected a Session or None"
        )
    return found


# Longer file names are shortened (with a hash) to stay well under the usual limit of
# 255 bytes, counting the suffix and the temporary file's decorations.
_MAX_STEM = 150
_SURROGATE = re.compile("[\ud800-\udfff]")
_STATUSES = ("open", "completed", "failed", "cancelled")
_ROLES = ("system", "user", "assistant", "tool")
_TEXT = (str,)
_TEXT_OR_NULL = (str, type(None))
_META_FIELDS: dict[str, tuple[type, ...]] = {
    "id": _TEXT,
    "parent_session_id": _TEXT_OR_NULL,
    "root_session_id": _TEXT_OR_NULL,
    "title": _TEXT_OR_NULL,
    "agent": _TEXT_OR_NULL,
    "status": _TEXT,
    "message_count": (int,),
}
_MESSAGE_FIELDS: dict[str, tuple[type, ...]] = {
    "role": _TEXT,
    "content": _TEXT_OR_NULL,
    "tool_calls": (list,),
    "tool_call_id": _TEXT_OR_NULL,
    "name": _TEXT_OR_NULL,
    "is_error": (bool,),
}
_CALL_FIELDS: dict[str, tuple[type, ...]] = {"id": _TEXT, "name": _TEXT, "arguments": _TEXT}
_JSON_KINDS = {
    str: "a string",
    type(None): "null",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    list: "an array",
    dict: "an object",
}


def _file_stem(session_id: str) -> str:
    """A file name for the id: percent-encoded (reversible, so "a/b" and "a_b" stay apart).

    Lone surrogates are encoded too. A name too long for a file system is cut and
    given a hash of the id after ``%%``, which no percent-encoded name contains.
    """
    if not isinstance(session_id, str):
        raise SessionStoreError(
            f"a session id must be a string (got {type(session_id).__name__}: {session_id!r})"
        )
    safe = quote(session_id, safe="-_", errors="surrogatepass")
    if len(safe) <= _MAX_STEM:
        return safe
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    head = safe[:100]
    cut = head.find("%", len(head) - 2)  # never end inside a %XX escape
    return f"{head[:cut] if cut != -1 else head}%%{digest}"


def _dump_line(data: dict[str, Any]) -> str:
    # Readable UTF-8, except lone surrogates: UTF-8 cannot hold them, a JSON escape can.
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def _encode(session: Session) -> tuple[str, str]:
    """The text of both files; a ValueError says what could not be read back."""
    if not isinstance(session.id, str):
        raise ValueError(f"its id must be a string (got {type(session.id).__name__})")
    meta = session.metadata()
    problem = _fields_problem(meta, _META_FIELDS, "id") or _status_problem(meta)
    if problem:
        raise ValueError(problem)
    lines = []
    for number, message in enumerate(session.messages, 1):
        if not isinstance(message, Message):
            raise ValueError(f"message {number}: must be a Message (got {type(message).__name__})")
        data = message.to_dict()
        problem = _message_problem(data)
        if problem:
            raise ValueError(f"message {number}: {problem}")
        lines.append(_dump_line(data))
    return "".join(lines), json.dumps(meta, indent=2, sort_keys=True) + "\n"


def _kind(value: object) -> str:
    return _JSON_KINDS.get(type(value), type(value).__name__)


def _fields_problem(
    data: object, fields: dict[str, tuple[type, ...]], *required: str
) -> str | None:
    """What is wrong with the shape of a JSON object, or None."""
    if not isinstance(data, dict):
        return f"must be a JSON object (got {_kind(data)})"
    missing = [key for key in required if key not in data]
    if missing:
        return f"{missing[0]}: missing"
    for key, value in data.items():
        allowed = fields.get(key)
        if allowed is None:
            return f"{key}: unknown field"
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            wanted = " or ".join(_JSON_KINDS[t] for t in allowed)
            return f"{key}: must be {wanted} (got {_kind(value)})"
    return None


def _status_problem(meta: dict[str, Any]) -> str | None:
    status = meta.get("status", "open")
    if status in _STATUSES:
        return None
    return f"status: must be one of {', '.join(_STATUSES)} (got {status!r})"


def _message_problem(data: object) -> str | None:
    """What is wrong with one stored message, or None."""
    problem = _fields_problem(data, _MESSAGE_FIELDS, "role")
    if problem:
        return problem
    assert isinstance(data, dict)
    if data["role"] not in _ROLES:
        return f"role: must be one of {', '.join(_ROLES)} (got {data['role']!r})"
    for index, call in enumerate(data.get("tool_calls", ())):
        problem = _fields_problem(call, _CALL_FIELDS, "id", "name")
        if problem:
            return f"tool_calls[{index}]: {problem}"
    return None


def _parse_json(text: str) -> tuple[Any, str | None]:
    """The value of a JSON text, or why there is none (never RecursionError)."""
    try:
        return json.loads(text), None
    except RecursionError:
        return None, "not valid JSON: nested too deeply"
    except ValueError as exc:
        return None, f"not valid JSON: {exc}"


def _read_meta(path: Path) -> dict[str, Any]:
    """The checked metadata of one session file; OSError is left to the caller."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionStoreError(f"{path}: not valid UTF-8 (byte {exc.start})") from None
    data, problem = _parse_json(text)
    if problem:
        raise SessionStoreError(f"{path}: {problem}")
    problem = _fields_problem(data, _META_FIELDS, "id") or _status_problem(data)
    if problem:
        raise SessionStoreError(f"{path}: not session metadata: {problem}")
    assert isinstance(data, dict)
    return data


def _parse_messages(raw: bytes, path: Path, session_id: str) -> list[Message]:
    """The messages of a ``.jsonl`` file, each line checked before it becomes a Message."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        number = raw[: exc.start].count(b"\n") + 1
        raise SessionStoreError(
            f"{path}:{number}: not valid UTF-8 (session {session_id!r})"
        ) from None
    messages = []
    for number, line in json_lines(text):  # "\n" only: a message may hold U+2028
        data, problem = _parse_json(line)
        problem = problem or _message_problem(data)
        if problem:
            raise SessionStoreError(
                f"{path}:{number}: not a message: {problem} (session {session_id!r})"
            )
        messages.append(Message.from_dict(data))
    return messages


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
