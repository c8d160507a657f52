"""Dice anyone can verify (DICE-1): the bot commits to a step's dice while it is open and reveals them after.

Each encounter the bot runs keeps a secret key in its settings (never exported, never shown). The step of
storage phase ``P`` draws its dice from a seed derived from the key, ``P`` and the encounter's undo count ``U``
by HMAC-SHA256, so revealing one step's seed tells nothing about any other step's. The seed is 16 hex digits and
the salt 8; the commitment shown while the step is open is the first 12 hex digits of SHA-256 over
``salt + seed`` (ASCII). The engine's per-phase seeds (``rules.dice.phase_seed``) take the step's seed where
the scenario's seed would be, so the dice order of DESIGN §7 is unchanged: only the generator's seed is.

A director's private change to the state leaves the commitment as it was: a side that cannot see the change
must not learn of it from the status (FOG-1). The director never sees a seed before it is revealed, so cannot
pick one. Undoing a resolution counts one more undo, so a step resolved again never reuses revealed dice.
An encounter without a key (the application layer's default, as the CLI's ``sim``) draws from the scenario's
seed as the engine always did: reproducible, not sealed.

When a step's rolls are all public once it resolves, its account reveals the seed and salt. When some roll
stays hidden from a side after the step (a night check of a unit the others cannot see, FOG-1), the seed would
let that side recompute the hidden roll: it is kept for the director (``/encounter verify``) and the export.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.public_view import public_units
from data.i18n import t
from rules.events import Event, RollMade
from rules.ruleset import Ruleset
from rules.state import EncounterState

#: the stored event that carries a step's seal, in the batch of events the step committed
SEAL_EVENT: Final = "DiceSeal"
#: the encounter setting that holds the secret key (left out of every export)
KEY_SETTING: Final = "dice_key"
#: the encounter setting that counts the resolutions undone: each undo opens the step again with fresh dice
EPOCH_SETTING: Final = "dice_epoch"
COMMITMENT_DIGITS: Final = 12


@dataclass(frozen=True, slots=True)
class Seal:
    """One step's dice: the seed and salt, what was committed, and what a replay needs to draw them again."""

    seed: str
    salt: str
    commitment: str
    snapshot_seq: int  # the snapshot the step resolved from
    epoch: int = 0  # resolutions undone before this step
    stand_in: bool = False  # the step was forced: stand-in orders for whoever gave none (order modes)
    public: bool = True  # every roll of the step was public once it resolved: the seed may be revealed

    def payload(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "salt": self.salt,
            "commitment": self.commitment,
            "snapshot_seq": self.snapshot_seq,
            "epoch": self.epoch,
            "stand_in": self.stand_in,
            "public": self.public,
        }


def new_key() -> str:
    return secrets.token_hex(32)


def key_of(settings: Mapping[str, Any]) -> str | None:
    key = settings.get(KEY_SETTING)
    return key if isinstance(key, str) and key else None


def epoch_of(settings: Mapping[str, Any]) -> int:
    epoch = settings.get(EPOCH_SETTING, 0)
    return epoch if isinstance(epoch, int) and not isinstance(epoch, bool) else 0


def commitment_of(seed: str, salt: str) -> str:
    return hashlib.sha256((salt + seed).encode("ascii", "replace")).hexdigest()[:COMMITMENT_DIGITS]


def seal_for(key: str, phase_no: int, epoch: int, snapshot_seq: int = 0) -> Seal:
    """The seal of the step of storage phase ``phase_no`` after ``epoch`` undone resolutions (``snapshot_seq``:
    the snapshot it resolves from, recorded for a replay, not part of the seed)."""
    digest = hmac.new(bytes.fromhex(key), f"{phase_no}:{epoch}".encode(), hashlib.sha256).hexdigest()
    seed, salt = digest[:16], digest[16:24]
    return Seal(seed, salt, commitment_of(seed, salt), snapshot_seq, epoch)


def seeded(state: EncounterState, seal: Seal) -> EncounterState:
    """The state the step is drawn from: the step's seed where the scenario's was."""
    return state.replace(seed=seal.seed)


def seal_spec(seal: Seal, before: EncounterState) -> tuple[str, dict[str, Any]]:
    """The stored event of a step's seal (no rule event: the account, replays and the log skip it)."""
    return SEAL_EVENT, {"round": before.round, "phase": before.phase, "seal": seal.payload()}


def seal_from(payload: Mapping[str, Any]) -> Seal | None:
    """A stored seal, or None for anything else (an edited file included)."""
    body = payload.get("seal")
    if not isinstance(body, Mapping):
        return None
    fields: Mapping[str, Any] = body  # pyright: ignore[reportUnknownVariableType]
    seed, salt, commitment = fields.get("seed"), fields.get("salt"), fields.get("commitment")
    snapshot_seq = fields.get("snapshot_seq")
    if not (isinstance(seed, str) and isinstance(salt, str) and isinstance(commitment, str)):
        return None
    if not isinstance(snapshot_seq, int) or isinstance(snapshot_seq, bool):
        return None
    epoch = fields.get("epoch", 0)
    return Seal(
        seed,
        salt,
        commitment,
        snapshot_seq,
        epoch if isinstance(epoch, int) else 0,
        stand_in=fields.get("stand_in") is True,
        public=fields.get("public") is not False,
    )


def rolls_public(
    ruleset: Ruleset, before: EncounterState, after: EncounterState, events: Sequence[Event]
) -> bool:
    """Whether every roll of the step reads the same to the public as to the director (FOG-1, NGT-9), judged as
    the channel's account judges it: a seed revealed with a hidden roll would let anyone draw that roll."""
    seen = public_units(after, ruleset) | public_units(before, ruleset)
    known = frozenset(before.units) | frozenset(after.units)
    return all(
        ruleset.public_event(e, frozenset(seen), known) == e for e in events if isinstance(e, RollMade)
    )


def reveal_line(seal: Seal, locale: str | None) -> str:
    """The step account's last line: the seed and salt behind the commitment the status showed."""
    return t("dice.reveal", locale, seed=seal.seed, salt=seal.salt, commitment=seal.commitment)


def commitment_line(commitment: str, locale: str | None) -> str:
    return t("dice.committed", locale, commitment=commitment)
