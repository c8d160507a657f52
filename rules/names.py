"""Names people type (a scenario's, a side's, a unit's, a crew member's, an encounter's): what of them is kept.

A name is shown as the letters it is made of. Characters that show nothing but change how the text around them
reads are dropped where a name enters (a scenario file, a director's command): right-to-left overrides and
isolates, zero-width spaces and joiners, the byte-order mark, every other Unicode format character (category
Cf). A line break or another control character in a name becomes a space, so a name is always one line.
"""

from __future__ import annotations

import unicodedata


def clean_name(text: str, *, lines: bool = False) -> str:
    """``text`` without format characters, its control characters as spaces (``lines``: line breaks are kept,
    for a description), runs of spaces as one, trimmed."""
    kept: list[str] = []
    for ch in text:
        kind = unicodedata.category(ch)
        if kind == "Cf":
            continue
        if lines and ch == "\n":
            kept.append(ch)
        elif kind in ("Cc", "Zl", "Zp"):
            kept.append(" ")
        else:
            kept.append(ch)
    if lines:
        return "\n".join(" ".join(row.split()) for row in "".join(kept).split("\n")).strip()
    return " ".join("".join(kept).split())
