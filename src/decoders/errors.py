"""Exceptions that name what was wrong: the file, the line, the key."""

from __future__ import annotations

from pathlib import Path


class DecodersError(Exception):
    """Base class of every error this package raises on bad input."""


class CorpusFormatError(DecodersError):
    """A corpus file does not have the format its reader expects."""

    def __init__(self, path: str | Path, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        where = f"{self.path}, line {line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class ChecksumError(DecodersError):
    """A fetched or mirrored file does not have the sha256 the configuration expects."""


class FetchError(DecodersError):
    """A corpus file could be found neither in the local mirror nor upstream."""


class ConfigError(DecodersError):
    """A configuration value is missing, of the wrong type, or not one of the allowed values."""


class CorruptedFileError(DecodersError):
    """A file that an earlier job wrote is no longer what that job left (truncated or changed since)."""
