"""Structured logging for the bot process: one line per record, ``key=value`` context, secrets redacted.

The token never reaches a log line: a filter on the root handler replaces it (and anything that looks like a
Discord token) before formatting, whatever library emitted the record.
"""

from __future__ import annotations

import logging
import re
import secrets

_TOKEN_SHAPE = re.compile(r"[MNO][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,}")


class RedactSecrets(logging.Filter):
    def __init__(self, *secrets_: str) -> None:
        super().__init__()
        self.secrets = tuple(s for s in secrets_ if s)

    def _clean(self, text: str) -> str:
        for s in self.secrets:
            text = text.replace(s, "<redacted>")
        return _TOKEN_SHAPE.sub("<redacted>", text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = self._clean(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._clean(record.exc_text)
        return True


def setup_logging(level: str = "INFO", *, token: str = "") -> logging.Handler:
    """Configure the root logger once; returns the handler (tests attach their own stream)."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s level=%(levelname)s logger=%(name)s %(message)s"))
    handler.addFilter(RedactSecrets(token))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper() if level.upper() in logging.getLevelNamesMapping() else "INFO")
    logging.getLogger("discord.gateway").setLevel("WARNING")
    return handler


def trace_id() -> str:
    """A short id a user can quote to find the traceback in the log."""
    return secrets.token_hex(4)
