"""Sessions (one conversation's memory) and where they are kept (R6, K5)."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import quote

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
            id=self.id,
            parent_session_id=self.parent_session_id,
            messages=list(self.messages),
            title=self.title,
            root_session_id=self.root_session_id,
            agent=self.agent,
            status=self.status,
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
    """Keeps sessions; a run saves its session when it ends, also on error (R6)."""

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
    leaves half a session behind.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _paths(self, session_id: str) -> tuple[Path, Path]:
        # Percent-encoding is reversible, so two ids never share a file ("a/b" vs "a_b").
        safe = quote(session_id, safe="-_")
        return self.directory / f"{safe}.jsonl", self.directory / f"{safe}.meta.json"

    def save(self, session: Session) -> None:
        """Write both files atomically."""
        messages_path, meta_path = self._paths(session.id)
        lines = "".join(
            json.dumps(m.to_dict(), ensure_ascii=False, sort_keys=True) + "\n"
            for m in session.messages
        )
        _atomic_write(messages_path, lines)
        _atomic_write(meta_path, json.dumps(session.metadata(), indent=2, sort_keys=True) + "\n")

    def load(self, session_id: str) -> Session | None:
        """Read a session back, or None when it was never saved."""
        messages_path, meta_path = self._paths(session_id)
        if not meta_path.exists():
            return None
        meta = _read_json(meta_path)
        messages = []
        text = messages_path.read_text(encoding="utf-8") if messages_path.exists() else ""
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    messages.append(Message.from_dict(json.loads(line)))
                except (ValueError, KeyError, TypeError) as exc:
                    raise SessionStoreError(
                        f"{messages_path}:{number}: not a message: {exc}"
                    ) from None
        return Session(
            id=meta["id"],
            parent_session_id=meta.get("parent_session_id"),
            messages=messages,
            title=meta.get("title"),
            root_session_id=meta.get("root_session_id"),
            agent=meta.get("agent"),
            status=meta.get("status", "open"),
        )

    def ids(self) -> list[str]:
        """Ids of the sessions on disk, sorted by file modification then name."""
        metas = sorted(
            self.directory.glob("*.meta.json"), key=lambda p: (p.stat().st_mtime, p.name)
        )
        return [str(_read_json(p)["id"]) for p in metas]


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise SessionStoreError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict) or "id" not in data:
        raise SessionStoreError(f"{path}: session metadata must be an object with an 'id'")
    return data


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
