"""Exceptions with enough context (file, line, value) for a user to act on."""

from __future__ import annotations

from pathlib import Path


class SkftlError(Exception):
    """Base class of every error skftl raises on purpose."""


class TraceFormatError(SkftlError):
    """A trace file that cannot be parsed: names the file, the 1-based line and the value."""

    def __init__(self, path: str | Path, line: int | None, value: object, reason: str):
        self.path = str(path)
        self.line = line
        self.value = value
        self.reason = reason
        where = f"{self.path}, line {line}" if line is not None else self.path
        super().__init__(f"{where}: {reason} (value: {value!r})")


class UnknownTraceError(SkftlError):
    """A trace name that is neither registered nor a readable path."""


class ChecksumError(SkftlError):
    """A file whose checksum differs from the registered one."""


class ConfigError(SkftlError):
    """An impossible or inconsistent configuration value."""
