"""A scenario's problems speak the reader's language. rules/ builds ``Problem(path, key, params)``
data and never a sentence; the words live in data/locales/{en,es}/*.toml and ``data/i18n.py`` writes them.

Two checks: a static scan of rules/ (every problem key used there is in both catalogs, and nothing but a key is
ever passed as a problem's message: no f-string, no ``str(exc)``), and a corpus of broken scenarios, one or more
per ruleset and layer, whose every problem reads in English and in Spanish with nothing left untranslated."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from data import SCENARIO_DIR
from data.i18n import catalog, has, phrase_text, problem_text
from rules.errors import Phrase, Problem, ScenarioError
from rules.scenario import load_scenario
from tests.paths import ROOT

KEY = re.compile(r"^problem\.[a-z0-9_]+(\.[a-z0-9_]+)*$")
#: the words of a problem or of an engine refusal's detail (``syntax.<ruleset>.*``), as keys named in rules/
WORDS = re.compile(r"^(problem|syntax)\.[a-z0-9_]+(\.[a-z0-9_]+)*$")


def rules_sources() -> list[Path]:
    return sorted((ROOT / "rules").rglob("*.py"))


def problem_keys_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and WORDS.match(node.value)
    }


def test_every_problem_and_syntax_key_in_rules_is_in_both_catalogs() -> None:
    used = {key: path for path in rules_sources() for key in problem_keys_in(path)}
    assert len(used) > 100, "the scan found the keys"
    missing = [
        f"{path.relative_to(ROOT)}: {key} ({lang})"
        for key, path in sorted(used.items())
        for lang in ("en", "es")
        if key not in catalog(lang)
    ]
    assert not missing, "\n".join(missing)


def message_argument(call: ast.Call) -> ast.expr | None:
    """The message of ``ctx.error(path, KEY, …)`` / ``Problem(path, KEY, …)``; a ``not_a_table=`` shape."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in ("error", "Problem") and len(call.args) >= 2:
        return call.args[1]
    return None


def is_key(arg: ast.expr) -> bool:
    """A literal ``problem.…`` key, a choice between two, or a variable (set from keys the catalog scan checks)."""
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, str) and bool(KEY.match(arg.value))
    if isinstance(arg, ast.IfExp):
        return is_key(arg.body) and is_key(arg.orelse)
    return isinstance(arg, ast.Name)


def test_no_problem_message_is_an_english_literal() -> None:
    """Every problem reported in rules/ names a catalog key (a literal ``problem.…``, or a variable holding one),
    never a sentence, an f-string or an exception's English text."""
    bad: list[str] = []
    calls = 0
    for path in rules_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            shapes = [kw.value for kw in node.keywords if kw.arg == "not_a_table"]
            message = message_argument(node)
            for arg in [*shapes, *([message] if message is not None else [])]:
                calls += 1
                if not is_key(arg):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(arg)}")
    assert calls > 100
    assert not bad, "problem messages that are not catalog keys:\n" + "\n".join(bad)


def test_every_problem_key_in_the_catalogs_is_used() -> None:
    """No dead problem text: each ``problem.*`` key of the catalogs is named in rules/, bot/ or data/."""
    sources = [*rules_sources(), *(ROOT / "bot").rglob("*.py"), *(ROOT / "data").glob("*.py")]
    used = {key for path in sources for key in problem_keys_in(path)}
    unused = sorted(k for k in catalog("en") if WORDS.match(k) and k not in used)
    assert not unused, unused


# --- a corpus of broken scenarios -------------------------------------------------------------------------------


def mutate(name: str, *replacements: tuple[str, str], append: str = "") -> str:
    text = (SCENARIO_DIR / f"{name}.toml").read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text, (name, old)
        text = text.replace(old, new, 1)
    return text + append


EXO_SHIP = """
[[units]]
id = "{id}"
side = "red"
at = "{at}"
{extra}
"""

CORPUS: dict[str, str] = {
    "not-toml": 'ruleset = "exo"\nname = [x\n',
    "toml-twice": 'ruleset = "exo"\n[board]\nwidth = 3\n[board]\n',
    "toml-unclosed": 'ruleset = "exo"\nname = "x',
    "toml-control-char": 'ruleset = "exo"\nname = "\x01"\n',
    "common-types": (
        'ruleset = "skirmish"\nlayers = ["night", "night"]\nname = 3\nseed = [1]\nsides = []\nunits = [3]\n'
        '[board]\nwidth = true\nterrain = { "0101" = 3 }\n'
    ),
    "common-board": 'ruleset = "mech"\nname = "x"\n[[sides]]\nid = "a"\n',
    "common-sides": (
        'ruleset = "skirmish"\nname = "x"\n[board]\nwidth = 5\nheight = 5\n[[sides]]\nid = "a"\n[[sides]]\nid = "a"\n'
        '[[units]]\nside = "a"\nat = "2020"\n'
    ),
    "ruleset-typo": mutate("exo-duel", ('ruleset = "exo"', 'ruleset = "exoo"')),
    "common-keys": mutate(
        "exo-duel",
        ("seed = 11", 'seed = 11\nnmae = "x"\ndice = [0, "a"]\nlayers = ["nope", 7]'),
        ('id = "red"', 'id = "red!"'),
        ('color = "#3060c0"', 'color = "blue"'),
        ('at = "0512"', 'at = "0000"'),
        ('facing = "N"', 'facing = "UP"'),
        ('id = "pirata"', 'id = "halcon"'),
        ('side = "blue"', 'side = "green"'),
        ('at = "0708"', "at = 7"),
        append='\n[[units]]\nid = "far"\nside = "red"\nname = "' + "F" * 80 + '"\nat = "zz"\n',
    ),
    "layer-elsewhere": mutate("exo-duel", ("seed = 11", 'seed = 11\nlayers = ["night", "night"]')),
    "exo-units": mutate(
        "exo-duel",
        ('weapons = ["APt", "Lx2"]', 'weapons = ["APt", "Zt", 3]\nvector = "0510"'),
        ("structure = 3\ncabin = 2\ncargo = 1", "structure = 0\ncabin = 2\ncargo = 1"),
        ('station = "gunner"', 'station = "cook"'),
        ("gunnery = 15,", "cooking = 15,"),
        ('{ name = "Rhea"', '{ name = "Kal"'),
        ('kind = "asteroid"', 'kind = "asteroid"\narmor = 2'),
        ("cabin = 2\ncargo = 2", 'cabin = 0\ncargo = 2\ncrew = ["x"]'),
        append=EXO_SHIP.format(id="odd", at="0303", extra='kind = "planet"'),
    ),
    "exo-crew": mutate(
        "exo-duel",
        (
            '{ name = "Rhea", station = "pilot"',
            '{ name = "Ana", station = "captain" },\n  { name = "Kal", station = "captain" },\n  { name = "Rhea", station = "pilot"',
        ),
    ),
    "exo-rounds": mutate(
        "exo-duel",
        ('{ by = "Kal", weapon = 1, target = "pirata" }', '{ by = "Kall", weapon = 7, target = "pirat" }'),
        (
            'orders.pirata = { move = "I"',
            'orders.ghost = { move = "I" }\norders.nave = 3\norders.pirata = { move = "X"',
        ),
    ),
    "exo-orders-not-a-table": mutate("exo-duel", ("[[rounds]]", "[[rounds]]\norders = 3\n\n[[rounds]]")),
    "mech-units": mutate(
        "mech-duel",
        (
            'weapons = [{ type = "ac20", loc = "rt" }',
            'weapons = ["ppc", { type = "ac2O", loc = "rt" }, { type = "zzz", loc = "rt" }, { type = "ppc", loc = "tail" }, { type = "ppc", loc = "la", rear = true }',
        ),
        (
            "tonnage = 50\nwalk = 4\nheat_sinks = 13",
            'kind = "tank"\ntonnage = 53\nheat_sinks = 13\narmor = { tail = 2, ct = -1 }\nstructure = { head = 0 }',
        ),
        ('"0910" = "rough"', '"0910" = "swamp"'),
        ('"1106" = 1', '"1106" = "high"'),
        append='\n[options]\nsecret_declarations = "yes"\n',
    ),
    "mech-vehicles": mutate(
        "mech-mixed",
        ("tonnage = 60\nwalk = 4", "tonnage = 60\njump = 2\nwalk = 4"),
        ('at = "0916"', 'at = "0815"'),
    ),
    "mech-rounds": mutate(
        "mech-mixed",
        ("orders.bulldog = { mode", 'orders.tank = { mode = "walk" }\norders.bulldog = { mode'),
        ('orders.phawk = { mode = "walk", path = ["0805"]', 'orders.phawk = { mode = "fly", path = ["0805"]'),
    ),
    "mech-rounds-illegal": mutate(
        "mech-mixed",
        (
            'orders.phawk = { mode = "walk", path = ["0805"]',
            'orders.phawk = { mode = "walk", path = ["0805", "0806", "0807", "0808", "0809", "0810", "0811", "0812"]',
        ),
    ),
    "mech-orders-not-a-table": mutate("mech-mixed", ("[[rounds]]", "[[rounds]]\norders = 3\n\n[[rounds]]")),
    "mech-state": mutate(
        "mech-mixed",
        ("secret_declarations = true", 'secret_declarations = "yes"'),
        ('at = "0815"', 'at = "0608"'),
        ('at = "0916"', 'at = "0804"'),
    ),
    "ocs": mutate(
        "ocs-gazala",
        ("strength = 6\nar = 5", 'strength = -1\nmode = "flying"\nar = 5'),
        ('hedgehog = { "0608" = 2 }', 'hedgehog = { "0608" = 9 }'),
        ('"0509" = "close"', '"0509" = "swamp"'),
        ("ar = 4\nsteps = 2", "steps = 2"),
    ),
    "ocs-sides": mutate(
        "ocs-gazala", ('at = "0506"', 'at = "0705"'), ('"0509" = "close"', '"0509" = "clos"')
    ),
    "ocs-rounds": mutate(
        "ocs-gazala",
        (
            'orders.mode = [{ unit = "marcks", to = "normal" }]',
            'orders.mode = [{ unit = "marck", to = "sleepy" }, 3]',
        ),
        (
            'orders.move = [{ unit = "marcks", to = "0903" }]',
            'orders.move = [{ unit = "marcks", to = 903 }]\norders.supply = []',
        ),
        ('retreats = { rtr7 = "0805" }', 'retreats = { rtr8 = "0805" }, losses = { attacker = "pz21" }'),
        (
            '{ attackers = ["marcks"], defender = "0904", kind = "overrun" }',
            '{ attackers = ["marck"], defender = "0904", kind = "overrun" }, { attackers = [], defender = "0904" }, 5',
        ),
    ),
    "ocs-orders-not-a-table": mutate("ocs-gazala", ("[[rounds]]", "[[rounds]]\norders = 3\n\n[[rounds]]")),
    "pbw-units": mutate(
        "pbw-brawl",
        ("initiative = 5\n", ""),
        ("resistance = { head = 6, ", "resistance = { "),
        (
            'weapons = [{ type = "knife", held = false }]',
            'weapons = [{ type = "knif" }, { type = "fists", held = true }, { type = "knife", ammo = 2 }, 3]',
        ),
        (
            'weapons = [{ type = "baton" }]',
            'weapons = [{ type = "baton", held = true }, { type = "knife", held = true }]',
        ),
    ),
    "pbw-state": mutate(
        "pbw-brawl",
        ('at = "0404"', 'at = "0302"'),
        ('at = "0607"', 'at = "0407"'),
        ('"0506" = "cover"', '"0506" = "lava"'),
    ),
    "skirmish-units": mutate("skirmish-corridor", ("ap = 6\nranged = 17", "ranged = 17")),
    "skirmish-state": mutate(
        "skirmish-corridor",
        ("ap = 6\nranged = 17", 'ap = 6\nranged = 17\nastride = "0205"'),
        ('side = "rfp"\nunit = "bravo"\nat = "0105"', 'side = "tyr"\nunit = "alpha"\nat = "0202"'),
        ('at = "0307"', 'at = "0206"'),
        ("long_range = true", 'long_range = "yes"'),
        ('"0102" = "obstacle"', '"0102" = "lava"'),
    ),
    "skirmish-astride": mutate(
        "skirmish-corridor",
        ("long_range = true", "long_range = true\nhalf_hexes = true"),
        ("ap = 6\nranged = 17", 'ap = 6\nranged = 17\nastride = "0209"'),
        ("ap = 5\nranged = 15", 'ap = 5\nranged = 15\nastride = "0307"'),
    ),
    "skirmish-rounds": mutate(
        "skirmish-corridor",
        ('draw = ["delta", "alpha", "charlie", "bravo"]', 'draw = ["delta", "alpha", "alpha", "charly"]'),
        ('kara = ["overwatch ask"], zug', 'kara = "overwatch ask", zorg = [], zug'),
        ('"move 0305", "shoot tyrano"', '"move 0305", "fly tyrano"'),
        (
            'reactions = [{ by = "kara", answer = "fire" }',
            'reactions = [{ by = "karla", answer = "maybe" }, 3',
        ),
    ),
    "pbw-rounds": mutate(
        "pbw-brawl",
        ("orders.lola = { segments", "orders.lolo = { segments = [] }\norders.lola = { segments"),
        ("orders.nacho = {", "orders.nacho = 3\norders.nacho_x = {"),
        (
            'orders.rafa = { segments = [{ action = "move", path = ["0406", "0405"] }',
            'orders.rafa = { change = [{ action = "defend" }, 4], segments = [{ action = "fly" }',
        ),
    ),
    "pbw-illegal": mutate(
        "pbw-brawl",
        (
            '{ action = "melee", target = "sole" }, { action = "defend" }] }',
            '{ action = "melee", target = "nacho" }, { action = "defend" }] }',
        ),
    ),
    "night": mutate(
        "skirmish-night",
        ("wind = true", 'wind = "yes"\nmoon = 1'),
        ('discipline = "normal"', 'discipline = "sleepy"\nmotorized = "no"'),
    ),
}


def corpus_problems() -> list[tuple[str, Problem]]:
    found: list[tuple[str, Problem]] = []
    for name, text in CORPUS.items():
        try:
            load_scenario(text)
        except ScenarioError as exc:
            found.extend((name, p) for p in exc.problems)
    return found


def keys_of(phrase: Phrase | Problem) -> list[str]:
    """The catalog keys a problem's text is written from: its own and every nested phrase's."""
    keys = [phrase.key]
    for value in phrase.params.values():
        if isinstance(value, Phrase):
            keys.extend(keys_of(value))
    return keys


def test_every_file_of_the_corpus_is_broken() -> None:
    broken = {name for name, _ in corpus_problems()}
    assert sorted(set(CORPUS) - broken) == []


def test_every_problem_of_the_corpus_reads_in_english_and_spanish() -> None:
    found = corpus_problems()
    bad: list[str] = []
    for name, problem in found:
        for key in keys_of(problem):
            bad.extend(f"{name}: {key} has no {lang} text" for lang in ("en", "es") if not has(key, lang))
        en, es = problem_text(problem, "en"), problem_text(problem, "es")
        for lang, text in (("en", en), ("es", es)):
            if re.search(r"\{\w+\}|problem\.|errors\.", text):
                bad.append(f"{name} ({lang}): unfilled: {text}")
        if problem.line:
            assert en.startswith(f"line {problem.line}: ") and es.startswith(f"línea {problem.line}: ")
    assert not bad, "\n".join(bad)


def test_the_corpus_covers_most_problem_keys() -> None:
    """The corpus reaches most of the problems rules/ can report (the rest are covered by the static scan)."""
    hit = {key for _, p in corpus_problems() for key in keys_of(p) if key.startswith("problem.")}
    defined = {k for k in catalog("en") if k.startswith("problem.")}
    assert len(hit) >= 0.6 * len(defined), sorted(defined - hit)


@pytest.mark.parametrize(
    ("name", "path", "english", "spanish"),
    [
        ("ruleset-typo", "ruleset", "(did you mean 'exo'?)", "(¿quisiste decir 'exo'?)"),
        ("exo-rounds", "rounds[0].orders.halcon.fire[0].by", "did you mean 'Kal'", "¿quisiste decir 'Kal'?"),
        (
            "exo-rounds",
            "rounds[0].orders.halcon.fire[0].target",
            "did you mean 'pirata'",
            "¿quisiste decir 'pirata'?",
        ),
        (
            "exo-crew",
            "units[0].crew",
            "one crew member per cabin point",
            "un tripulante por punto de Cabina",
        ),
        ("common-keys", "units[0].facing", "bad facing 'UP'", "orientación incorrecta 'UP'"),
        (
            "skirmish-rounds",
            "rounds[0].actions.veddio[1]",
            "unknown action 'fly'",
            "acción desconocida 'fly'",
        ),
        ("pbw-units", "units[0].weapons[0].type", "did you mean 'knife'", "¿quisiste decir 'knife'?"),
        ("toml-twice", "", "the table [board] is declared twice", "la tabla [board] se declara dos veces"),
        (
            "toml-unclosed",
            "",
            "(at the end of the file): a text is not closed",
            "(al final del archivo): un texto no",
        ),
        ("pbw-rounds", "rounds[0].orders.rafa", "unknown action 'fly'", "acción desconocida 'fly'"),
        ("ocs-rounds", "rounds[0].orders.combat[3]", "needs its attackers", "necesita sus atacantes"),
        ("mech-rounds", "rounds[0].orders.phawk", "mode fly is not one of", "el movimiento fly no es"),
    ],
)
def test_a_problem_keeps_its_path_suggestion_and_fix_in_both_languages(
    name: str, path: str, english: str, spanish: str
) -> None:
    """What a problem says stays precise in either language: the key path, what is wrong, the nearest right
    name; the file's own words (ids, names) are quoted as written."""
    problems = [p for n, p in corpus_problems() if n == name and p.path == path]
    assert problems, [p.path for n, p in corpus_problems() if n == name]
    assert any(english in phrase_text(p, "en") for p in problems), [phrase_text(p, "en") for p in problems]
    assert any(spanish in phrase_text(p, "es") for p in problems), [phrase_text(p, "es") for p in problems]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_facings_a_problem_lists_are_the_ones_the_reader_may_write(lang: str) -> None:
    """HEX-2: a bad facing lists the sides (Spanish: SO and NO) and vertices in the reader's words, and each name
    listed is read back as the facing it names."""
    from data.i18n import t
    from rules.hexgrid import HexSide, Vertex

    sides = t("problem.hexsides", lang).split(", ")
    vertices = t("problem.vertices", lang).split(", ")
    assert [int(HexSide.parse(name)) for name in sides] == list(range(6))
    assert [int(Vertex.parse(name)) for name in vertices] == list(range(6))
    assert ("SO" in sides) == (lang == "es")
