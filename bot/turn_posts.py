"""Which steps share one channel post: a turn of play is one message, edited as its steps resolve.

The ruleset names the turn of play each step belongs to (``Ruleset.turn_of_play``: a skirmish activation, a pbw
or mech turn); the announcer adds a step to the post open for the encounter when the step continues its turn and
the message has room left within Discord's limits, else it sends a new message. A post whose turn has a key is
recorded (a message ref of kind :data:`TURN`), so a restart adds the rest of the turn to that message instead of
starting another; a step already shown there (the edit went out, the record of it did not) is not added twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence, Sized
from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.bounded import Bounded

MAX_EMBEDS = 10  # Discord: embeds in one message
EMBEDS_TEXT_LIMIT = 6000  # Discord: characters in all the embeds of one message
MAX_ATTACHMENTS = 10  # Discord: files in one message
#: message refs: the channel post of a turn of play, keyed by the turn's key
TURN = "turn"

S = TypeVar("S")
M = TypeVar("M")
E = TypeVar("E")


@dataclass(slots=True)
class OpenPost(Generic[M, E]):
    """The channel message of the turn of play under way, the embeds it shows (as built: their images name the
    attachments by file name), its turn, and whether it was found again after a restart."""

    message: M
    embeds: list[E]
    turn: str | None = ""
    recovered: bool = False


class OpenPosts(Bounded[int, OpenPost[M, E]]):
    """The open post of each encounter posted to lately."""

    def for_turn(self, encounter_id: int, turn: str | None) -> OpenPost[M, E] | None:
        """The encounter's open post if a step of ``turn`` goes in it; else it is closed (None)."""
        post = self.get(encounter_id)
        if post is not None and not continues(post.turn, turn):
            self.pop(encounter_id, None)
            return None
        return post

    def end_resolution(self, encounter_id: int) -> None:
        """A resolution is over (a phase opens): a post whose turn lasts one resolution is closed."""
        post = self.get(encounter_id)
        if post is not None and ends_with_resolution(post.turn):
            self.pop(encounter_id, None)


def continues(open_turn: str | None, step_turn: str | None) -> bool:
    """Whether a step of ``step_turn`` goes in the post open for ``open_turn``: the same turn, or a step that
    names none (it follows whatever is open)."""
    return step_turn is None or step_turn == open_turn


def ends_with_resolution(turn: str | None) -> bool:
    """Whether the post of ``turn`` is closed when its resolution ends: a turn without a key lasts one
    resolution; a keyed turn lasts until a step of another turn comes."""
    return not turn


def recorded(turn: str | None) -> bool:
    """Whether the post of ``turn`` is recorded, to be found again after a restart (a keyed turn only)."""
    return bool(turn)


def fits(embed_sizes: Sequence[int], files: int) -> bool:
    """Whether embeds of these sizes (characters each) and ``files`` attachments fit in one Discord message."""
    return (
        len(embed_sizes) <= MAX_EMBEDS and sum(embed_sizes) <= EMBEDS_TEXT_LIMIT and files <= MAX_ATTACHMENTS
    )


def runs(steps: Iterable[S], turn_of: Callable[[S], str | None]) -> list[tuple[str | None, list[S]]]:
    """Steps posted together, split where a new turn of play starts, each run with the turn of its first step
    (None: the run continues the post open before it)."""
    out: list[tuple[str | None, list[S]]] = []
    for step in steps:
        turn = turn_of(step)
        if out and continues(out[-1][0], turn):
            out[-1][1].append(step)
        else:
            out.append((turn, [step]))
    return out


def pack(
    items: Iterable[S], turn_of: Callable[[S], str | None], size_of: Callable[[S], tuple[Sequence[int], int]]
) -> list[tuple[str | None, list[S]]]:
    """Steps posted together (each with the sizes of its embeds and its number of files), in as few messages as
    Discord's limits allow without two turns of play in one: split where a new turn starts (:func:`runs`) and
    where the next step would not fit; each message's steps with their turn."""
    out: list[tuple[str | None, list[S]]] = []
    for turn, run in runs(items, turn_of):
        group: list[S] = []
        sizes: list[int] = []
        files = 0
        for item in run:
            more, more_files = size_of(item)
            if more and sizes and not fits([*sizes, *more], files + more_files):
                out.append((turn, group))
                group, sizes, files = [], [], 0
            group.append(item)
            sizes.extend(more)
            files += more_files
        out.append((turn, group))
    return out


def step_sizes(
    shown: tuple[object, tuple[Sequence[Sized], Sequence[object]] | None],
) -> tuple[list[int], int]:
    """A step's embeds' sizes and its number of files (none when it shows nothing), for :func:`pack`."""
    return ([len(e) for e in shown[1][0]], len(shown[1][1])) if shown[1] else ([], 0)


def already_shown(
    shown_files: Iterable[str],
    shown_texts: Iterable[tuple[str | None, str | None]],
    files: Iterable[str],
    text: tuple[str | None, str | None] | None,
) -> bool:
    """Whether a step is already in a post found again after a restart: one of its files (its board, named after
    its step) is attached there, or an embed there has its title and account."""
    if set(files) & set(shown_files):
        return True
    return text is not None and text in set(shown_texts)
