"""``hexdirector`` command line: run the bot, simulate and validate scenario files, verify an export's dice
offline (DESIGN §6)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from bot.text.account import describe, event_json
from data import SCENARIO_DIR
from data.i18n import LANGUAGES, language_of, phrase_text, t
from render.phase import phase_title
from rules.errors import GameError, Phrase, Problem, ScenarioError
from rules.registry import ruleset_for
from rules.ruleset import DiceFactory, RoundSpec, Ruleset, SimStep
from rules.scenario import Scenario, load_scenario

EXIT_OK, EXIT_ERROR, EXIT_INVALID = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        return int(args.func(args))
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        if args.command == "run":  # the bot logs its own faults with their traceback
            raise
        # the offline commands never end in a traceback: one line to quote when reporting the fault
        print(_one_line(t("cli.fault", getattr(args, "lang", "en"), detail=_fault(exc))), file=sys.stderr)
        return EXIT_ERROR


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hexdirector", description="Tactical hex-board encounters for Discord.")
    sub = p.add_subparsers(dest="command")

    run = sub.add_parser("run", help="run the Discord bot (token from DISCORD_TOKEN or .env)")
    run.set_defaults(func=_cmd_run)

    sim = sub.add_parser("sim", help="resolve a scenario file offline with the real engine")
    sim.add_argument("scenario", type=Path)
    sim.add_argument("--seed", type=int, default=None, help="seed for the dice generator")
    sim.add_argument("--dice", type=_dice_list, default=None, help="scripted dice, e.g. 4,5,2")
    sim.add_argument("--out", type=Path, default=None, help="write a board image after every phase here")
    sim.add_argument("--json", action="store_true", help="print JSON lines instead of a readable account")
    sim.add_argument(
        "--lang", default="en", help="language of the readable account and of any problems (en, es)"
    )
    sim.set_defaults(func=_cmd_sim)

    demo = sub.add_parser("demo", help="run every bundled scenario into ./demo-out/")
    demo.add_argument("--out", type=Path, default=Path("demo-out"))
    demo.add_argument("--lang", default="en", help="language of the accounts and images (en, es)")
    demo.set_defaults(func=_cmd_demo)

    val = sub.add_parser(
        "validate",
        help="check a scenario file and report every problem",
        description="Check a scenario file and report every problem, one a line: FILE:LINE: PATH: MESSAGE, "
        "where PATH is the place in the file (units[3].crew: the crew of the fourth [[units]]). "
        "Exit 0 when the file is valid, 2 when it has problems.",
    )
    val.add_argument("scenario", type=Path)
    val.add_argument(
        "--lang",
        default="en",
        choices=LANGUAGES,
        help="language of the problem messages (default: en, whatever the shell's LANG, so scripts read the "
        "same text everywhere)",
    )
    val.set_defaults(func=_cmd_validate)

    ver = sub.add_parser(
        "verify",
        help="check every roll of an exported encounter against its revealed seeds",
        description="Draw every sealed step of an encounter export (/encounter export) again from its revealed "
        "seed and its stored orders, and report, step by step, the director's rolls, undone steps and the first "
        "roll that does not match. Exit 0 when every step verifies, 2 when one does not.",
    )
    ver.add_argument("export", type=Path)
    ver.add_argument("--lang", default="en", choices=LANGUAGES, help="language of the report (default: en)")
    ver.set_defaults(func=_cmd_verify)
    return p


def _dice_list(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--dice takes whole numbers separated by commas, got {text!r}"
        ) from None
    if any(not 1 <= v <= 10 for v in values):
        raise argparse.ArgumentTypeError("scripted dice are between 1 and 10")
    return values


def _cmd_run(args: argparse.Namespace) -> int:
    from bot.process.launcher import launch

    return launch()


def _load(
    path: Path, *, dice: tuple[int, ...] | None = None, seed: int | None = None, lang: str | None = None
) -> Scenario:
    """The one reading of a scenario file that ``validate`` and ``sim`` share: every check made before the first
    step is made here (the loader runs each ruleset's and layer's checks of every ``[[rounds]]`` entry)."""
    if not path.is_file():
        raise ScenarioError([Problem("", "problem.file_not_found", {"path": str(path)})])
    try:
        return load_scenario(path, dice=dice, seed=seed, lang=lang)
    except ScenarioError:
        raise
    except Exception as exc:  # a checker's own fault is still a problem line, never a traceback
        raise ScenarioError([Problem("", "problem.unreadable", {"detail": _fault(exc)}, 1)]) from None


def _fault(exc: Exception) -> str:
    """A fault of ours in one short line: its kind and first words, for the person to quote when reporting it."""
    text = str(exc).splitlines()[0][:160] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


#: characters that end a line for a reader or a tool (``str.splitlines``): a key or value the file wrote with
#: one of them is shown escaped, so each problem stays on one line
_LINE_BREAKS = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


def _one_line(text: str) -> str:
    return _LINE_BREAKS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _print_problems(path: Path, problems: list[Problem], lang: str) -> None:
    """``FILE:LINE: PATH: MESSAGE`` a problem, on stderr, the message in ``lang`` (the shape tools parse)."""
    for p in problems:
        where = p.path or t("problem.file", lang)
        print(_one_line(f"{path}:{p.line or '-'}: {where}: {phrase_text(p, lang)}"), file=sys.stderr)


def _cmd_validate(args: argparse.Namespace) -> int:
    try:
        scenario = _load(args.scenario)
    except ScenarioError as exc:
        _print_problems(args.scenario, exc.problems, args.lang)
        print(t("cli.problems", args.lang, count=len(exc.problems), path=args.scenario), file=sys.stderr)
        return EXIT_INVALID
    s = scenario.state
    counts = {"sides": len(s.sides), "units": len(s.units), "rounds": len(scenario.rounds)}
    print(t("cli.valid", args.lang, path=args.scenario, ruleset=s.ruleset, name=s.name, **counts))
    return EXIT_OK


def _cmd_verify(args: argparse.Namespace) -> int:
    from bot.service.records import parse_export
    from bot.verify import report_lines, verify_document

    report = verify_document(parse_export(Path(args.export).read_bytes()))
    for line in report_lines(report, args.lang):
        print(_one_line(line))
    return EXIT_OK if report.ok else EXIT_INVALID


def _cmd_sim(args: argparse.Namespace) -> int:
    try:
        scenario = _load(args.scenario, dice=args.dice, seed=args.seed, lang=language_of(args.lang))
    except ScenarioError as exc:
        _print_problems(args.scenario, exc.problems, language_of(args.lang))
        return EXIT_INVALID
    return simulate(
        scenario, out=args.out, as_json=args.json, lang=args.lang, stream=sys.stdout, source=args.scenario
    )


def simulate(
    scenario: Scenario,
    *,
    out: Path | None = None,
    as_json: bool = False,
    lang: str = "en",
    stream: TextIO,
    source: Path | None = None,
) -> int:
    """Play every ``[[rounds]]`` entry; print the account; write images to ``out``. Exit code as the CLI: a
    round the engine refuses is one line on stderr, ``FILE:LINE: error: round N: …`` (the line of that
    ``[[rounds]]`` entry when the scenario came from ``source``), and exit 2."""
    ruleset = ruleset_for(scenario.state)
    state = scenario.state
    writer = _image_writer(out, lang)
    if writer is not None:
        writer(SimStep(round=0, phase="start", state=state, events=()))
    for spec in scenario.rounds:
        try:
            for step in ruleset.simulate_round(state, spec, DiceFactory()):
                _print_step(step, ruleset, as_json=as_json, lang=lang, stream=stream)
                if writer is not None:
                    writer(step)
                state = step.state
        except GameError as exc:
            print(_one_line(_where(source, spec) + _round_error(spec.index, exc, lang)), file=sys.stderr)
            return EXIT_INVALID
        except Exception as exc:  # an engine fault: a line naming the round, never a traceback
            reason = t("cli.engine_failed", lang, detail=_fault(exc))
            line = _where(source, spec) + t("cli.round_error", lang, round=spec.index, who="", reason=reason)
            print(_one_line(line), file=sys.stderr)
            return EXIT_INVALID
        if state.over:
            break
    if not as_json:
        winner = state.winner
        if state.over:
            name = next((s.name_in(lang) for s in state.sides if s.id == winner), None)
            key = "cli.over_winner" if name else "cli.over_none"
            print(t(key, lang, side=name), file=stream)
    return EXIT_OK


def _where(source: Path | None, spec: RoundSpec) -> str:
    """``FILE:LINE: `` of a ``[[rounds]]`` entry, the shape of ``validate``'s problem lines ("" without a file)."""
    if source is None:
        return ""
    return f"{source}:{spec.line or '-'}: "


def _round_error(index: int, exc: GameError, lang: str) -> str:
    """``error: round 2: unit ana: <the engine's refusal> [PBW-3]``; in English the engine's own message."""
    unit = exc.params.get("unit")
    who = t("cli.round_error_unit", lang, unit=unit) if unit else ""
    if language_of(lang) == "en":
        reason = exc.message + (f" [{exc.rule}]" if exc.rule else "")
    else:
        reason = phrase_text(Phrase.of_error(exc), lang)
    return t("cli.round_error", lang, round=index, who=who, reason=reason)


def _print_step(step: SimStep, ruleset: Ruleset, *, as_json: bool, lang: str, stream: TextIO) -> None:
    if as_json:
        for ev in step.events:
            print(event_json(ev, round=step.round, phase=step.phase), file=stream)
        units = {uid: ruleset.unit_summary(u) for uid, u in sorted(step.state.units.items())}
        record = {"type": "phase_end", "round": step.round, "phase": step.phase, "units": units}
        record.update(ruleset.board_summary(step.state))  # board-level fields (skirmish markers)
        print(json.dumps(record, ensure_ascii=False), file=stream)
        return
    print(t("cli.step", lang, when=phase_title(step.state, step.round, step.phase, lang)), file=stream)
    for ev in step.events:
        print(f"  {describe(ev, step.state, lang, markdown=False)}", file=stream)


def _image_writer(out: Path | None, lang: str = "en"):  # type: ignore[no-untyped-def]
    if out is None:
        return None
    from render.files import write_step_images

    out.mkdir(parents=True, exist_ok=True)

    def write(step: SimStep) -> None:
        write_step_images(out, step, lang)

    return write


def _cmd_demo(args: argparse.Namespace) -> int:
    out: Path = args.out
    files = sorted(SCENARIO_DIR.glob("*.toml"))
    if not files:
        print("no bundled scenarios", file=sys.stderr)
        return EXIT_ERROR
    status = EXIT_OK
    for path in files:
        target = out / path.stem
        target.mkdir(parents=True, exist_ok=True)
        with (target / "account.log").open("w", encoding="utf-8") as log:
            code = simulate(
                load_scenario(path, lang=language_of(args.lang)), out=target, lang=args.lang, stream=log
            )
        print(f"{path.name}: {'ok' if code == 0 else 'failed'} → {target}/")
        status = max(status, code)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
