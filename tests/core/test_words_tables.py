"""One table of words (app/core/words, docs/DESIGN.md §4.10): every language has every file and key of English with
the same placeholders, no Korean or Indonesian text is left in English, and every key the code asks for exists."""

from __future__ import annotations

import ast
import re

import pytest

from app.core.words import DEFAULT, LANGUAGES, files, msg, placeholders, speaking, t, table, translate
from tests.helpers import ROOT

OTHERS = [lang for lang in LANGUAGES if lang != DEFAULT]
#: Texts that read the same in every language: units, symbols, names and code (checked as a whole text).
SAME_EVERYWHERE = re.compile(r"^[\s\W\d]*$|^(tok/s|α|τ|γ|c|TV|p-value|GPU|CPU|JSON|HTML|CSV|vLLM|SGLang|llama\.cpp|"
                             r"transformers|generate\(\)|[A-Za-z]+\(\)|\{\w+\}.*)$")


def english_files() -> dict[str, dict[str, str]]:
    return files(DEFAULT)


@pytest.mark.parametrize("lang", OTHERS)
def test_every_language_has_every_key_with_the_same_placeholders(lang):
    theirs = files(lang)
    for name, english in english_files().items():
        assert name in theirs, f"{lang}/{name} is missing"
        missing = set(english) - set(theirs[name])
        extra = set(theirs[name]) - set(english)
        assert not missing and not extra, (lang, name, sorted(missing)[:10], sorted(extra)[:10])
        wrong = [k for k, text in english.items() if placeholders(text) != placeholders(theirs[name][k])]
        assert not wrong, (lang, name, wrong[:10])


@pytest.mark.parametrize("lang", OTHERS)
def test_no_text_is_left_in_english(lang):
    words = table(lang)
    left = [k for k, text in table(DEFAULT).items()
            if words.get(k) == text and re.search(r"[A-Za-z]{3}", text) and not SAME_EVERYWHERE.match(text)]
    assert not left, (lang, left[:20])


def test_a_key_lives_in_one_file():
    seen: dict[str, str] = {}
    for name, part in english_files().items():
        for key in part:
            assert key not in seen, f"{key} is in {seen[key]} and {name}"
            seen[key] = name


def _asked_keys() -> set[tuple[str, str, str]]:
    """(function, key, where) of every literal key the code passes to t() or label()."""
    out = set()
    for path in (ROOT / "app").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("t", "label") and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                out.add((node.func.id, node.args[0].value, f"{path.relative_to(ROOT)}:{node.lineno}"))
    return out


def test_every_key_the_code_asks_for_has_an_english_text():
    """A t() key in the English table; a label() key there or among the words the page makes at launch (the preset
    list's, the knobs' and the engines' entries, app/ui/page.py ``launch_kwargs``)."""
    from app.ui.page import launch_kwargs

    english, gradio = table(DEFAULT), launch_kwargs()["i18n"].translations[DEFAULT]
    missing = sorted(f"{key} ({where})" for fn, key, where in _asked_keys()
                     if key not in english and not (fn == "label" and key in gradio))
    assert not missing, missing[:20]


def test_a_translated_line_keeps_its_values():
    with speaking("ko"):
        assert t("player.clock", now="1.00", total="2.00").count("1.00") == 1
        assert translate("nothing matches this line") == "nothing matches this line"  # not a msg(): as it is
        assert translate(msg("No round drafted anything.")) != "No round drafted anything."
    with speaking("xx"):  # an unknown language is English
        assert t("pane.baseline") == "Plain"
