"""Vector movement (EXO-2.3, EXO-4.2, EXO-4.3): orders turn the bow and push the vector; then inertia moves."""

from __future__ import annotations

from rules.hexgrid import Hex

TURN_RIGHT, TURN_LEFT, ACCELERATE = "D", "I", "A"
ORDER_LETTERS = (TURN_RIGHT, TURN_LEFT, ACCELERATE)


def execute_orders(facing: int, vector: Hex, moves: str) -> tuple[int, Hex]:
    """Run written orders in order (EXO-4.2): D/I turn one hexside, A moves the vector one hex toward the bow
    as it points at that moment of the string. Returns the new facing and vector."""
    for letter in moves:
        if letter == TURN_RIGHT:
            facing = (facing + 1) % 6
        elif letter == TURN_LEFT:
            facing = (facing - 1) % 6
        elif letter == ACCELERATE:
            vector = vector.neighbor(facing)
    return facing, vector


def inertial_move(at: Hex, vector: Hex) -> tuple[Hex, Hex]:
    """EXO-4.3: the ship moves onto its vector and the vector moves by the same displacement."""
    velocity = vector - at
    return vector, vector + velocity


def is_one_change(written: str, change: str) -> bool:
    """EXO-4.1 critical: ``change`` differs from ``written`` by one replaced or one deleted letter (or not at all)."""
    if change == written:
        return True
    if len(change) == len(written):
        return sum(a != b for a, b in zip(change, written, strict=True)) == 1
    if len(change) == len(written) - 1:
        return any(written[:i] + written[i + 1 :] == change for i in range(len(written)))
    return False


def change_options(written: str) -> tuple[str, ...]:
    """Every order string a critical pilot may choose (EXO-4.1): unchanged first, then deletions, then replacements."""
    out: list[str] = [written]
    for i in range(len(written)):
        deleted = written[:i] + written[i + 1 :]
        if deleted not in out:
            out.append(deleted)
    for i, letter in enumerate(written):
        for other in ORDER_LETTERS:
            if other != letter:
                replaced = written[:i] + other + written[i + 1 :]
                if replaced not in out:
                    out.append(replaced)
    return tuple(out)
