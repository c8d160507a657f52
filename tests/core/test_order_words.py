"""The words that acknowledge a Submit follow the order mode of the step (rules/order_modes.py), never a
ruleset's name: a simultaneous order is received and may change until the phase resolves (EXO-2.4, PBW-2's
changes before a segment), a sequential declaration is locked (MECH-1.1, PBW-1), an activation's action is resolved
(SK-1.1), a director-run procedure's order is carried out. The end-to-end tests of each ruleset read the same
words on the real panels (tests/e2e/test_e2e_bot.py, tests/e2e/test_e2e_skirmish.py, tests/mech/test_e2e_mech.py,
tests/pbw/test_e2e_pbw.py, tests/ocs/test_e2e_ocs.py)."""

from __future__ import annotations

import pytest

from data.i18n import catalog, t
from rules.order_modes import policy_for, policy_for_mode
from rules.registry import PLUGINS, get_ruleset
from rules.ruleset import OrderMode

WORDS = {
    (
        OrderMode.SIMULTANEOUS,
        "es",
    ): "Órdenes de **Halcón** recibidas. Puedes cambiarlas hasta que se resuelva la fase.",
    (
        OrderMode.SIMULTANEOUS,
        "en",
    ): "Orders for **Halcón** received. You can change them until the phase resolves.",
    (OrderMode.SEQUENTIAL_OPEN, "es"): "Declaración de **Hunchback** bloqueada.",
    (OrderMode.SEQUENTIAL_OPEN, "en"): "**Hunchback**'s declaration is locked.",
    (OrderMode.ACTIVATION, "es"): "Acción de **Lana** resuelta.",
    (OrderMode.ACTIVATION, "en"): "**Lana**'s action resolved.",
    (OrderMode.DIRECTOR, "es"): "Orden de **Director** ejecutada.",
    (OrderMode.DIRECTOR, "en"): "**Director**'s order carried out.",
}
UNIT = {
    OrderMode.SIMULTANEOUS: "Halcón",
    OrderMode.SEQUENTIAL_OPEN: "Hunchback",
    OrderMode.ACTIVATION: "Lana",
    OrderMode.DIRECTOR: "Director",
}


@pytest.mark.parametrize(("mode", "lang"), sorted(WORDS))
def test_a_submit_is_acknowledged_in_its_order_modes_words(mode: OrderMode, lang: str) -> None:
    key = policy_for_mode(mode).acknowledged(amended=False, reviewed=False)
    assert t(key, lang, unit=UNIT[mode]) == WORDS[mode, lang]


@pytest.mark.parametrize("mode", list(OrderMode))
def test_only_a_simultaneous_order_says_it_may_change(mode: OrderMode) -> None:
    policy = policy_for_mode(mode)
    for lang in ("es", "en"):
        words = t(policy.acknowledged(amended=False, reviewed=False), lang, unit="X")
        footer = t(policy.submitted_footer, lang)
        changeable = "cambiar" in words.lower() or "change" in words.lower()
        assert changeable is (mode is OrderMode.SIMULTANEOUS), words
        assert ("cambiar" in footer.lower() or "change" in footer.lower()) is changeable, footer
    amended = policy.acknowledged(amended=True, reviewed=False)
    assert (amended == "orders.amended") is (mode is OrderMode.SIMULTANEOUS)


def test_an_action_held_for_the_directors_review_is_not_said_to_be_resolved() -> None:
    """With the director reviewing rolls (``review_rolls``), an activation's action (or a procedure's order) waits
    for that review when it rolls: it is sent, not resolved; a declaration is locked either way."""
    for mode in (OrderMode.ACTIVATION, OrderMode.DIRECTOR):
        key = policy_for_mode(mode).acknowledged(amended=False, reviewed=True)
        assert key == "orders.reviewed"
        assert "resuelta" not in t(key, "es", unit="Lana") and "resolved" not in t(key, "en", unit="Lana")
    locked = policy_for_mode(OrderMode.SEQUENTIAL_OPEN).acknowledged(amended=False, reviewed=True)
    assert locked == "orders.locked"
    simultaneous = policy_for_mode(OrderMode.SIMULTANEOUS).acknowledged(amended=False, reviewed=True)
    assert simultaneous == "orders.received"


def test_every_ruleset_of_the_registry_has_words_for_its_mode_in_both_languages() -> None:
    for plugin in PLUGINS:
        if plugin.kind != "ruleset":
            continue
        policy = policy_for(get_ruleset(plugin.id))
        for amended in (False, True):
            for reviewed in (False, True):
                key = policy.acknowledged(amended=amended, reviewed=reviewed)
                for lang in ("es", "en"):
                    assert key in catalog(lang) and policy.submitted_footer in catalog(lang), (plugin.id, key)
