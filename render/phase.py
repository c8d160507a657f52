"""How a phase is named for a reader: one phase number, with the phase's name.

``Ronda 4 · Fase 3 · Ejecución de movimientos``; a step the ruleset names without a number reads
``Ronda 1 · Activación de Kara``; a phase the catalogs do not name yet falls back to ``Ronda 4 · Fase <id>``.
The ruleset says the number and the name's key (:meth:`rules.ruleset.Ruleset.phase_label`); internal phase ids
(skirmish's ``draw``/``activation``) are never shown raw when the catalogs name them.
"""

from __future__ import annotations

from data.i18n import has, t
from rules.registry import ruleset_for
from rules.ruleset import PhaseLabel
from rules.state import EncounterState


def resolved_label(state: EncounterState, phase: str) -> PhaseLabel:
    """The ruleset's label of ``phase``, unit ids in its parameters replaced by the units' names; the key is
    "" when the catalogs do not name the phase."""
    try:
        label = ruleset_for(state).phase_label(state, phase)
    except KeyError:  # a state of no registered ruleset (a bare picture): the phase as it is
        return PhaseLabel(None, "")
    units = state.units
    params = tuple((k, units[v].name if k == "unit" and v in units else v) for k, v in label.params)
    key = label.key if has(label.key, "en") else f"phase.{phase}" if has(f"phase.{phase}", "en") else ""
    return PhaseLabel(label.number, key, params)


def phase_title(state: EncounterState, round_no: int, phase: str, locale: str | None) -> str:
    """``Ronda 4 · Fase 3 · Combate``: the round, the phase's number and its name, each once."""
    label = resolved_label(state, phase)
    name = t(label.key, locale, **dict(label.params)) if label.key else ""
    if label.number is not None and name:
        return t("render.round_phase_named", locale, round=round_no, number=label.number, name=name)
    if name:
        return t("render.round_named", locale, round=round_no, name=name)
    if not phase:
        return t("render.round_only", locale, round=round_no)
    # a phase the catalogs do not name yet keeps its id, as before (a ruleset names its phases in its catalog)
    return t("render.round_phase", locale, round=round_no, phase=phase)
