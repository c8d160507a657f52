"""The project's rules reference as the bot reads it: ``docs/rules/<ruleset>.<lang>.md``, one ``## ID — Title``
heading per rule id (tests/core/test_rules_docs.py keeps them so). ``/rule`` looks a rule up by id in the reader's
language; the channel's accounts point at it for every rule id they cite. Pure: no Discord.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from data.i18n import language_of

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
#: a rule id as accounts cite it: EXO-3.4, SK-1.1, MECH-2.3, NGT-4, EXO-1.5b
RULE_ID = re.compile(r"\b([A-Z]{2,5}-\d+(?:\.\d+)?[a-z]?)\b")
_HEADING = re.compile(r"^## ([A-Z]{2,5}-\d+(?:\.\d+)?[a-z]?) — (\S.*)$")


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    title: str
    text: str
    ruleset: str


@cache
def rules(lang: str) -> dict[str, Rule]:
    """Every documented rule in ``lang`` (falling back to English for a rule not written in it), by id."""
    found: dict[str, Rule] = {}
    for code in ("en", lang) if lang != "en" else ("en",):  # the reader's language wins
        for path in sorted(DOCS.glob(f"*.{code}.md")):
            found.update(_parse(path, path.name.split(".")[0]))
    return found


def _parse(path: Path, ruleset: str) -> dict[str, Rule]:
    out: dict[str, Rule] = {}
    current: tuple[str, str] | None = None
    body: list[str] = []

    def close() -> None:
        if current is not None:
            out[current[0]] = Rule(current[0], current[1], "\n".join(body).strip(), ruleset)

    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## ") or line.startswith("# "):
            close()
            match = _HEADING.match(line)
            current = (match.group(1), match.group(2)) if match else None
            body = []
        elif current is not None:
            body.append(line)
    close()
    return out


def lookup(rule_id: str, locale: str | None) -> Rule | None:
    """The rule ``rule_id`` (any case, surrounding brackets ignored) in the reader's language."""
    key = rule_id.strip().strip("[]").upper().replace(" ", "")
    table = rules(language_of(locale))
    if key in table:
        return table[key]
    # "EXO-1.5B" typed in capitals: ids with a letter suffix are lower case
    return next((r for k, r in table.items() if k.upper() == key), None)


def matching(prefix: str, locale: str | None, limit: int = 25) -> list[Rule]:
    """Rules whose id starts with ``prefix`` or whose title contains it (autocomplete), in id order."""
    wanted = prefix.strip().strip("[]").lower()
    table = rules(language_of(locale))
    hits = [r for k, r in table.items() if k.lower().startswith(wanted)]
    if len(hits) < limit and wanted:
        hits += [r for r in table.values() if wanted in r.title.lower() and r not in hits]
    return hits[:limit]


def cited(lines: list[str]) -> list[str]:
    """The documented rule ids cited in an account, in order of first appearance."""
    known = rules("en")
    seen: dict[str, None] = {}
    for line in lines:
        for rid in RULE_ID.findall(line):
            if rid in known:
                seen.setdefault(rid)
    return list(seen)
