"""Sentences written below the page reach a Korean or Indonesian visitor translated whole (docs/DESIGN.md §4.10):
Babel's extractor finds every ``msg(...)`` template of app/ (app/core/words/catalogs.py, in process), each has a
confirmed (not fuzzy) translation in ``ko`` and ``id`` with the same fields, no catalog keeps a template the code no
longer has, every error and progress line of app/ outside app/cli is a ``msg(...)``, a template is translated before
its values go in (values that are messages translated in turn), and a Korean why panel and error line hold no English
sentence."""

from __future__ import annotations

import ast
import copy
import pickle
import re
from collections import Counter

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from app.core.errors import ArenaError
from app.core.words import LOCALE, Message, catalog, fields, join, msg, read_catalog, speaking, translate
from app.core.words.catalogs import CATALOGS, TEMPLATE, extract
from tests.helpers import ROOT

EXTRACTED = extract()
#: Calls whose first argument is a line the page shows (an error's, a progress message) besides ArenaError's kin.
LINE_CALLS = {"progress"}


def entries(lang: str) -> dict:
    """`lang`'s catalog as Babel reads it: message id -> its entry."""
    with (LOCALE / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return {m.id: m for m in read_po(f) if m.id}


def test_the_extraction_finds_the_page_s_sentences():
    assert len(EXTRACTED) > 300
    for sentence in ("Unknown preset '{preset_id}'. Known presets: {presets}.",  # an ArenaError
                     "Drafts were accepted {acceptance_rate} ({accepted} of {drafted})",  # the why sentence
                     "within this race's noise (\u00b1{band}, from the spread of plain's steps)",  # a trust verdict
                     "Use the {label} ({listed}).",  # the planner's advice
                     "Downloading {name} ({index} of {count}): {got} of {size}, {speed}/s, about {secs} s left"):
        assert any(m.startswith(sentence) for m in EXTRACTED), sentence
    assert not any(place.startswith("app/cli/") for places in EXTRACTED.values() for place in places)


@pytest.mark.parametrize("lang", CATALOGS)
def test_every_template_has_a_confirmed_translation_with_the_same_fields(lang):
    theirs = entries(lang)
    missing = sorted(m for m in EXTRACTED if m not in theirs or not theirs[m].string or theirs[m].fuzzy)
    assert not missing, missing[:10]
    wrong = [m for m in EXTRACTED if Counter(fields(m)) != Counter(fields(theirs[m].string))]
    assert not wrong, wrong[:10]
    same = [m for m in EXTRACTED if theirs[m].string == m and re.search(r"[a-z]{3} [a-z]{3}", m)]
    assert not same, same[:10]  # an English sentence copied as its own translation


@pytest.mark.parametrize("lang", CATALOGS)
def test_no_catalog_keeps_a_stale_template(lang):
    """The .po files and messages.pot hold exactly the templates the code has (`python -m app.core.words.catalogs`
    brings them up to date)."""
    assert sorted(set(entries(lang)) - set(EXTRACTED)) == []
    with TEMPLATE.open("rb") as f:
        assert {m.id for m in read_po(f) if m.id} == set(EXTRACTED)


def test_a_reworded_template_comes_back_fuzzy_and_stays_english(tmp_path):
    """What `pybabel update` does with a reworded sentence: its old translation, marked fuzzy; a fuzzy entry is not
    used until a translator confirms it."""
    old = Catalog(locale="ko")
    old.add("It paid: {speedup}\u00d7 faster.", "\uc774\ub4dd\uc774\uc5c8\uc5b4\uc694: {speedup}\u00d7 \ub354 "
                                                "\ube68\ub790\uc5b4\uc694.")
    template = Catalog()
    template.add("It paid off: {speedup}\u00d7 faster.")
    old.update(template)
    entry = old["It paid off: {speedup}\u00d7 faster."]
    assert entry.fuzzy and entry.string.startswith("\uc774\ub4dd")
    path = tmp_path / "messages.po"
    with path.open("wb") as f:
        write_po(f, old)
    assert read_catalog(path) == {}


# ----- every line the page shows from below is a message ---------------------------------------------------------
def _call_name(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _error_classes(trees: dict[str, ast.Module]) -> set[str]:
    """ArenaError and every class of the sources that derives from it (directly or not)."""
    found, bases = {"ArenaError"}, {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
    while more := {name for name, of in bases.items() if of & found} - found:
        found |= more
    return found


def _worded(node: ast.expr) -> bool:
    """Whether `node` is English text written in place: an f-string, or a literal with a word in it."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(re.search(r"[A-Za-z]{2}", node.value))
    if isinstance(node, ast.BinOp):
        return _worded(node.left) or _worded(node.right)
    if isinstance(node, ast.IfExp):
        return _worded(node.body) or _worded(node.orelse)
    return False


def plain_lines(sources: dict[str, str]) -> list[str]:
    """file:line of every ArenaError(...) (or subclass) and progress(...) call of `sources` (file -> Python source)
    given English text in place rather than a msg(...)."""
    trees = {rel: ast.parse(text) for rel, text in sources.items()}
    calls = _error_classes(trees) | LINE_CALLS
    return [f"{rel}:{node.lineno}" for rel, tree in trees.items() for node in ast.walk(tree)
            if isinstance(node, ast.Call) and node.args and _call_name(node) in calls and _worded(node.args[0])]


def test_every_error_and_progress_line_below_the_page_is_a_message():
    sources = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in sorted((ROOT / "app").rglob("*.py"))}
    assert not plain_lines({rel: s for rel, s in sources.items() if not rel.startswith("app/cli/")})


def test_the_check_finds_an_f_string_and_a_worded_literal():
    source = '''
class OddError(ArenaError):
    pass

def check(thing, progress):
    progress(f"Loading {thing}")
    progress(msg("Loading {thing}", thing=thing))
    if thing:
        raise OddError("Odd thing." if thing else "")
    raise ArenaError(msg("Brand new {thing}.", thing=thing))
'''
    assert plain_lines({"app/odd.py": source}) == ["app/odd.py:6", "app/odd.py:9"]


# ----- a message is translated whole, before its values go in ---------------------------------------------------
def test_a_message_is_its_english_text_and_keeps_its_template():
    line = msg("It paid: {speedup}\u00d7 faster.", speedup="1.96")
    assert line == "It paid: 1.96\u00d7 faster." and isinstance(line, str)
    assert line.template == "It paid: {speedup}\u00d7 faster." and line.values == {"speedup": "1.96"}
    assert str(line) is line and copy.deepcopy(line).template == line.template
    assert pickle.loads(pickle.dumps(line)).values == line.values
    assert msg("{x:.2f} s", x=1.234) == "1.23 s"


def test_a_template_is_translated_before_its_values_go_in():
    inner = msg("Local model folder {shown} does not exist.", shown="/m {x}")
    line = msg("Could not load a tokenizer from '{spec}': {exc}", spec="a/b", exc=ArenaError(inner))
    assert line == "Could not load a tokenizer from 'a/b': Local model folder /m {x} does not exist."
    with speaking("ko"):
        ko = translate(line)
    assert ko == "'a/b'\uc5d0\uc11c \ud1a0\ud06c\ub098\uc774\uc800\ub97c \ubd88\ub7ec\uc62c \uc218 \uc5c6\uc5b4\uc694: " \
                 "\ub85c\uceec \ubaa8\ub378 \ud3f4\ub354 /m {x}\uc774(\uac00) \uc5c6\uc5b4\uc694."
    assert translate(line) == line  # English: the line itself


def test_plain_text_stays_as_it_is():
    with speaking("id"):
        assert translate("No round drafted anything.") == "No round drafted anything."  # not a message: as it is
        assert translate(msg("No round drafted anything.")) == "Tidak ada putaran yang mengusulkan kandidat."
        assert translate(None) is None


def test_joined_messages_are_translated_each_and_an_error_keeps_its_message():
    parts = [msg("No round drafted anything."), "plain"]
    joined = join(parts, "; ")
    assert joined == "No round drafted anything.; plain"
    error = ArenaError(join([msg("No round drafted anything."), msg("No round drafted anything.")]))
    assert isinstance(str(error), Message)
    with speaking("id"):
        assert translate(joined) == "Tidak ada putaran yang mengusulkan kandidat.; plain"
        assert translate(str(error)).count("Tidak ada putaran") == 2


def test_each_language_s_catalog_is_read_without_its_fuzzy_entries():
    for lang in CATALOGS:
        assert len(catalog(lang)) == len([e for e in entries(lang).values() if e.string and not e.fuzzy])
    assert catalog("en") == {}


def test_every_msg_call_gives_its_template_s_fields():
    """A msg(...) of app/ with a written template gives a value for each of its fields and no other (a missing one
    fails only when the line is made, maybe on a rare error path)."""
    wrong = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _call_name(node) == "msg" and node.args \
                    and isinstance(node.args[0], ast.Constant) and all(k.arg for k in node.keywords):
                if {name for name, _ in fields(node.args[0].value)} != {k.arg for k in node.keywords}:
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not wrong, wrong


# ----- what main's sentence matcher got wrong: English spliced into a Korean line ----------------------------------
#: English words no Korean sentence holds (two in one piece of text: an English sentence left in it).
ENGLISH = {"the", "and", "of", "to", "is", "a", "or", "use", "during", "failed", "here", "not", "with", "new", "tokens",
           "fewer", "smaller", "model", "race", "again", "was", "were", "drafts", "accepted", "check"}
HANGUL = re.compile("[\uac00-\ud7a3]")
#: Two errors of one race, as the race writes them (app/race/workers.py describe_error).
FAILED = msg("Generation failed ({type}): {first}", type="RuntimeError", first="boom")
OUT_OF_MEMORY = msg("Out of GPU memory during generation: use fewer new tokens, a smaller model or 4-bit quantization.")


def english_pieces(html: str) -> list[str]:
    """The visible texts and tooltips of `html` that hold an English sentence (two English words or more)."""
    pieces = re.split(r"<[^>]+>", html) + re.findall(r'(?:title|aria-label)="([^"]*)"', html)
    return [p.strip() for p in pieces if sum(w in ENGLISH for w in re.findall(r"[a-z]+", p.lower())) >= 2]


def test_a_korean_why_panel_holds_no_english_sentence():
    """The check of the conditions failed with two errors joined: main's matcher cut the line at '; ' and left the
    second error English inside the Korean panel; a message is translated whole, each part in turn."""
    from app.race.trust import Conditions
    from app.race.why import explain_race
    from app.render.why_panel import why_panel_html
    from tests.fakes import ROUNDS, fake_result, lookup_preset

    result = fake_result(lookup_preset(), 0.5, ROUNDS)
    result.conditions = Conditions("cpu_share", 1.0, 1.0, True, join([FAILED, OUT_OF_MEMORY], "; "))
    result.why = explain_race(result, result.knobs)
    assert "Out of GPU memory" in result.why.verdict  # English below the page
    with speaking("ko"):
        html = why_panel_html(result)
    assert HANGUL.search(html) and "RuntimeError" in html
    assert not english_pieces(html), english_pieces(html)


def test_a_korean_error_line_holds_no_english_sentence():
    """Both sides of a race failed: the line (RaceResult.failure, raised as one ArenaError) in the status box and in a
    popup reads in Korean, each side's error translated; main's matcher left the second one English."""
    from app.render.status import status_html
    from app.ui import popups
    from tests.fakes import ROUNDS, fake_result, lookup_preset

    result = fake_result(lookup_preset(), 0.5, ROUNDS, errors={"baseline": FAILED, "assisted": OUT_OF_MEMORY})
    with pytest.raises(ArenaError) as error:
        result.raise_if_failed()
    assert str(error.value) == ("baseline failed: Generation failed (RuntimeError): boom; assisted failed: Out of GPU "
                                "memory during generation: use fewer new tokens, a smaller model or 4-bit quantization.")
    with speaking("ko"):
        box, popup = status_html(str(error.value), "error"), popups.error(error.value).line
    for line in (box, popup):
        assert HANGUL.search(line) and "boom" in line
        assert not english_pieces(line), english_pieces(line)


def test_a_race_read_back_from_its_json_speaks_korean_again():
    """A file keeps plain English; a race read back (here the gallery's, through its JSON) gets its verdict's reason
    and its explanation back as messages where this code writes the same English (app/race/why.py ``reworded``),
    and only there: an older wording stays as saved."""
    from app.race.result import RaceResult
    from app.render.why_panel import why_words
    from app.replay.gallery import load_gallery

    gallery = load_gallery()
    races = [gallery.load(i).result for i in range(len(gallery.entries))]
    won = next(r for r in races if r.verdict.kind == "win")
    level = next(r for r in races if r.verdict.kind == "level")  # a verdict with a reason (a win or a loss has none)
    data = won.to_dict()
    back = RaceResult.from_dict(data)
    assert isinstance(back.why.verdict, Message) and back.why.verdict == won.why.verdict
    older = dict(data, why=dict(data["why"], verdict="An older wording. " + data["why"]["verdict"], sentences=[]))
    with speaking("ko"):
        words, again = why_words(back.why), why_words(RaceResult.from_dict(older).why)
    assert HANGUL.search(words) and not english_pieces(words), words
    assert again == "An older wording. " + words
    reason = RaceResult.from_dict(level.to_dict()).verdict.reason
    assert isinstance(reason, Message) and reason
    with speaking("ko"):
        assert HANGUL.search(translate(reason))
