"""Checking an encounter's dice from its export (DICE-1): every sealed step is drawn again from its revealed seed
and its stored orders, and compared with what the log says happened.

A step is *verified* when its seed matches the commitment shown while it was open, and the engine, given the
snapshot it resolved from, the orders it consumed and that seed, makes exactly the logged events and the logged
state. Rolls the director set (an override or a reviewed roll, source ``override``) are taken as logged and
listed as the director's; undone steps are still checked and listed as undone; a director's change between
steps is listed as one. The export's own checksum is not trusted: anyone can compute it again after an edit,
so a changed roll or order is found by drawing the dice again, and named by its step.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from bot.dice_seal import SEAL_EVENT, Seal, commitment_of, seal_from, seeded
from bot.storage.base import (
    ENCOUNTER_CREATED,
    ENCOUNTER_IMPORTED,
    PHASE_RESOLVED,
    RESERVED_EVENT_TYPES,
    UNDONE,
)
from data.i18n import t
from render.phase import phase_title
from rules.engine import resolve_phase
from rules.errors import GameError
from rules.events import Event, RollMade
from rules.order_modes import policy_for
from rules.registry import ruleset_for
from rules.ruleset import DIRECTOR, DiceFactory
from rules.serial import from_json, to_json
from rules.state import EncounterState

FindingKind = Literal[
    "roll", "result", "commitment", "override", "undone", "director", "withheld", "unsealed"
]
#: the findings that make an encounter fail verification
FAILURES: frozenset[FindingKind] = frozenset({"roll", "result", "commitment"})


@dataclass(frozen=True, slots=True)
class Finding:
    """Something a reader of the check is told about one step (storage phase ``phase_no``)."""

    kind: FindingKind
    phase_no: int
    round: int = 0
    phase: str = ""
    roll: int = -1  # the roll's index in the step
    purpose: str = ""
    rule: str = ""
    logged: tuple[int, ...] = ()
    computed: tuple[int, ...] = ()
    at: str = ""  # when (an undo's time)
    state: EncounterState | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class VerifyReport:
    checked: int  # sealed steps drawn again
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return not any(f.kind in FAILURES for f in self.findings)

    def count(self, kind: FindingKind) -> int:
        return sum(1 for f in self.findings if f.kind == kind)


def verify_document(document: Mapping[str, Any], *, director: bool = True) -> VerifyReport:
    """Check every sealed step of an export (``bot/storage/export.py``). ``director``: whoever reads the report
    may know every roll; otherwise a step with a roll hidden from some side (its seal not public) is not drawn
    again, only counted as withheld, so the report never names a hidden roll (FOG-1)."""
    events = sorted(_records(document, "events"), key=lambda e: int(e["seq"]))
    by_seq = {int(e["seq"]): e for e in events}
    snapshots = {int(s["seq"]): s for s in _records(document, "snapshots")}
    orders = {int(o["seq"]): o for o in _records(document, "orders")}
    undone = _undone(events, snapshots)
    findings: list[Finding] = []
    checked = 0
    for event in events:
        seq, kind = int(event["seq"]), str(event["type"])
        if kind == PHASE_RESOLVED:
            batch = _batch(seq, by_seq, snapshots)
            step, was_checked = _check_step(event, batch, snapshots, orders, director=director)
            checked += was_checked
            findings.extend(step)
            if seq in undone:
                first = step[0] if step else None
                findings.append(
                    Finding(
                        "undone",
                        int(event["phase_no"]),
                        first.round if first else 0,
                        first.phase if first else "",
                        at=undone[seq],
                        state=first.state if first else None,
                    )
                )
        elif seq in snapshots and kind not in (ENCOUNTER_CREATED, ENCOUNTER_IMPORTED, UNDONE):
            # a director's change to the state: the director's hand, not the dice
            payload = cast(Mapping[str, Any], event.get("payload") or {})
            findings.append(
                Finding(
                    "director",
                    int(event["phase_no"]),
                    int(payload.get("round", 0) or 0),
                    str(payload.get("phase", "")),
                )
            )
    return VerifyReport(checked, tuple(findings))


def _records(document: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    items = document.get(key)
    if not isinstance(items, list):
        return []
    return [cast(Mapping[str, Any], i) for i in cast(list[object], items) if isinstance(i, dict)]


def _batch(
    seq: int, by_seq: Mapping[int, Mapping[str, Any]], snapshots: Mapping[int, object]
) -> list[Mapping[str, Any]]:
    """The events committed with the resolution at ``seq``: the unbroken run before it of events that are
    neither storage's own nor another snapshot's (as ``Storage.snapshot_chain`` reads a step)."""
    first = seq
    while (
        (row := by_seq.get(first - 1)) is not None
        and row["type"] not in RESERVED_EVENT_TYPES
        and first - 1 not in snapshots
    ):
        first -= 1
    return [by_seq[s] for s in range(first, seq)]


def _undone(
    events: Sequence[Mapping[str, Any]], snapshots: Mapping[int, Mapping[str, Any]]
) -> dict[int, str]:
    """The snapshots an undo took back (by the seq that wrote them), with the undo's time. An undo's own
    snapshot is a copy of the one it restored: undoing that copy undoes the original's step."""
    copy_of: dict[int, int] = {}
    out: dict[int, str] = {}
    for event in events:
        if event["type"] != UNDONE:
            continue
        payload = cast(Mapping[str, Any], event.get("payload") or {})
        target = int(payload.get("undone_snapshot_seq", 0) or 0)
        while target in copy_of:
            target = copy_of[target]
        out[target] = str(event.get("created_at", ""))
        copy_of[int(event["seq"])] = int(payload.get("restored_snapshot_seq", 0) or 0)
    return {seq: at for seq, at in out.items() if seq in snapshots}


def _check_step(
    resolved: Mapping[str, Any],
    batch: Sequence[Mapping[str, Any]],
    snapshots: Mapping[int, Mapping[str, Any]],
    orders: Mapping[int, Mapping[str, Any]],
    *,
    director: bool,
) -> tuple[list[Finding], int]:
    phase_no = int(resolved["phase_no"])
    seals = [seal_from(cast(Mapping[str, Any], e["payload"])) for e in batch if e["type"] == SEAL_EVENT]
    seal = next((s for s in seals if s is not None), None)
    if seal is None:
        return [Finding("unsealed", phase_no)], 0
    before = _state(snapshots.get(seal.snapshot_seq))
    if before is None:
        return [Finding("result", phase_no)], 1
    where: dict[str, Any] = {"round": before.round, "phase": before.phase, "state": before}
    if not director and not seal.public:
        return [Finding("withheld", phase_no, **where)], 0
    if commitment_of(seal.seed, seal.salt) != seal.commitment:
        return [Finding("commitment", phase_no, **where)], 1
    logged = list(_rule_events(batch))
    try:
        computed, after = _draw_again(before, seal, resolved, orders, logged)
    except (GameError, TypeError, KeyError, ValueError):  # an edited order the rules refuse
        return [Finding("result", phase_no, **where)], 1
    findings = [
        Finding("override", phase_no, roll=e.index, purpose=e.purpose, rule=e.rule, logged=e.dice, **where)
        for e in logged
        if isinstance(e, RollMade) and e.source == "override"
    ]
    mismatch = _first_difference(logged, computed)
    if mismatch is not None:
        return [*findings, _mismatch(mismatch, phase_no, where)], 1
    stored_after = snapshots.get(int(resolved["seq"]))
    if stored_after is None or stored_after.get("state") != to_json(after):
        return [*findings, Finding("result", phase_no, **where)], 1
    return findings, 1


def _state(snapshot: Mapping[str, Any] | None) -> EncounterState | None:
    if snapshot is None:
        return None
    try:
        state = from_json(snapshot.get("state"))
    except (TypeError, KeyError, ValueError):
        return None
    return state if isinstance(state, EncounterState) else None


def _rule_events(batch: Iterable[Mapping[str, Any]]) -> Iterable[Event]:
    for row in batch:
        payload = cast(Mapping[str, Any], row.get("payload") or {})
        body = payload.get("event")
        if not isinstance(body, dict):
            continue
        try:
            event = from_json(body)
        except (TypeError, KeyError, ValueError):
            continue
        if isinstance(event, Event):
            yield event


def _draw_again(
    before: EncounterState,
    seal: Seal,
    resolved: Mapping[str, Any],
    orders: Mapping[int, Mapping[str, Any]],
    logged: Sequence[Event],
) -> tuple[list[Event], EncounterState]:
    """The step as the engine makes it from its snapshot, its orders and its seed, with the director's rolls
    as logged; the state after it as the bot stores it (the scenario's seed kept, a pending question set)."""
    used = cast(Mapping[str, Any], cast(Mapping[str, Any], resolved["payload"]).get("orders") or {})
    given: dict[str, Any] = {}
    for unit, seq in used.items():
        body = cast(Mapping[str, Any], orders[int(seq)]["order"])
        if unit in before.units or unit == DIRECTOR:
            given[unit] = from_json(body["order"])
    ruleset = ruleset_for(before)
    picked = policy_for(ruleset, before).pick(ruleset, before, given, stand_in=seal.stand_in)
    overrides = {e.index: e.dice for e in logged if isinstance(e, RollMade) and e.source == "override"}
    result = resolve_phase(ruleset, seeded(before, seal), picked, dice_for=DiceFactory(overrides))
    after = result.state.replace(seed=before.seed)
    if result.pending is not None and after.pending is None:
        after = after.replace(pending=result.pending)
    return list(result.events), after


def _first_difference(
    logged: Sequence[Event], computed: Sequence[Event]
) -> tuple[Event | None, Event | None] | None:
    for index in range(max(len(logged), len(computed))):
        a = logged[index] if index < len(logged) else None
        b = computed[index] if index < len(computed) else None
        if a is None or b is None or to_json(a) != to_json(b):
            return a, b
    return None


def _mismatch(pair: tuple[Event | None, Event | None], phase_no: int, where: Mapping[str, Any]) -> Finding:
    logged, computed = pair
    if isinstance(logged, RollMade) and isinstance(computed, RollMade) and logged.index == computed.index:
        return Finding(
            "roll",
            phase_no,
            roll=logged.index,
            purpose=logged.purpose,
            rule=logged.rule,
            logged=logged.dice,
            computed=computed.dice,
            **where,
        )
    return Finding("result", phase_no, **where)


# --- the report as a reader reads it ------------------------------------------------------------------------


def report_lines(report: VerifyReport, locale: str | None) -> list[str]:
    """The check in the reader's language: one line per finding worth reading, then a verdict."""
    lines: list[str] = []
    for finding in report.findings:
        if finding.kind in ("withheld", "unsealed"):
            continue
        when = _when(finding, locale)
        params: dict[str, Any] = {"step": finding.phase_no, "when": when}
        if finding.kind in ("roll", "override"):
            params |= {
                "roll": finding.roll + 1,
                "purpose": f"{finding.rule} {finding.purpose}".strip(),
                "logged": ", ".join(map(str, finding.logged)),
                "computed": ", ".join(map(str, finding.computed)),
            }
        if finding.kind == "undone":
            params["at"] = finding.at[:16].replace("T", " ")
        lines.append(t(f"verify.{finding.kind}", locale, **params))
    if withheld := report.count("withheld"):
        lines.append(t("verify.withheld_steps", locale, n=withheld))
    if unsealed := report.count("unsealed"):
        lines.append(t("verify.unsealed_steps", locale, n=unsealed))
    verdict = "verify.verified" if report.ok else "verify.failed"
    lines.append(t(verdict, locale, n=report.checked))
    return lines


def _when(finding: Finding, locale: str | None) -> str:
    if finding.state is not None:
        return phase_title(finding.state, finding.round, finding.phase, locale)
    if finding.phase:
        return t("render.round_phase", locale, round=finding.round, phase=finding.phase)
    return ""
