"""English written below the page reaches a Korean or Indonesian visitor translated (docs/DESIGN.md §4.10): every
sentence template the page can show from the floors below (tests/message_templates.py harvests them: ArenaError
lines, progress and loading messages, the why sentence, the trust verdicts) has its translation in ``ko`` and ``id``
with the same placeholders, and :func:`~app.core.words.translate` gives a line of each template back in the
visitor's language with its values in place."""

from __future__ import annotations

import itertools
import re
from collections import Counter

import pytest

from app.core.words import DEFAULT, LANGUAGES, files, placeholders, speaking, table, translate
from tests.message_templates import DYNAMIC, harvest, templates

OTHERS = [lang for lang in LANGUAGES if lang != DEFAULT]
HARVEST = harvest()
TEMPLATES = HARVEST.templates
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def untranslated(found: dict[str, list[str]], lang: str) -> list[str]:
    """The templates of `found` that `lang`'s messages lack, with where each comes from."""
    messages = table(lang)["messages"]
    return sorted(f"{template}  ({', '.join(places)})" for template, places in found.items() if template not in messages)


def render(template: str, values: dict[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def samples(template: str) -> dict[str, str]:
    """A value for each placeholder of `template`: distinct, and no sentence of any template."""
    return {name: f"\u27e8v{i}\u27e9" for i, name in enumerate(sorted(placeholders(template)), 1)}


def test_the_harvest_finds_the_page_s_sentences():
    assert len(TEMPLATES) > 200
    for sentence in ("Unknown preset '{preset_id}'. Known presets: {presets}.",  # an ArenaError
                     "Drafts were accepted {acceptance_rate} ({accepted} of {drafted})",  # the why sentence
                     "within this race's noise (\u00b1{band}, from the spread of plain's steps)",  # a trust verdict
                     "Downloading {name} ({index} of {count}): {got} of {size}, {speed}/s, about {secs} s left",
                     "Converting {gguf_file} ({size_mb} MB) to {dtype_name} once (about {size_mb_2} s on two cores); "
                     "later loads take seconds"):  # progress
        assert sentence in TEMPLATES, sentence
    assert not any(place.startswith("app/cli/") for places in TEMPLATES.values() for place in places)


@pytest.mark.parametrize("lang", OTHERS)
def test_every_template_has_its_translation_with_the_same_placeholders(lang):
    assert not untranslated(TEMPLATES, lang), untranslated(TEMPLATES, lang)[:20]
    messages = table(lang)["messages"]
    wrong = [t for t in TEMPLATES if placeholders(t) != placeholders(messages[t])]
    assert not wrong, wrong[:10]
    for template in TEMPLATES:  # a placeholder is named as often as in English (none dropped, none doubled)
        english, theirs = Counter(PLACEHOLDER.findall(template)), Counter(PLACEHOLDER.findall(messages[template]))
        assert set(theirs) == set(english), template


@pytest.mark.parametrize("lang", OTHERS)
def test_messages_json_holds_no_stale_template_and_is_translated(lang):
    """messages.json of each language holds the harvested templates, the same in both languages, none left in
    English (messages-*.json files of other surfaces may add their own)."""
    theirs = files(lang)["messages.json"]
    assert set(theirs) <= set(TEMPLATES), sorted(set(theirs) - set(TEMPLATES))[:10]
    assert set(theirs) == set(files(OTHERS[0])["messages.json"])
    same = [t for t, text in theirs.items() if text == t]
    assert not same, same[:10]


def test_a_new_untranslated_error_is_caught():
    """The harvest reads an f-string given to ArenaError (or a subclass) as a template, and the check names it when a
    language lacks it."""
    source = '''
from app.core.errors import ArenaError

class OddError(ArenaError):
    pass

def check(thing, n):
    if n > 1:
        raise ArenaError(f"Brand new {thing.name} problem with {n + 1} parts.")
    hint = f" Did you mean {thing}?" if n else ""
    raise OddError(f"Odd {thing}.{hint}")
'''
    found = harvest({"app/odd.py": source}).templates
    assert set(found) == {"Brand new {name} problem with {n} parts.", "Odd {thing}. Did you mean {thing}?",
                          "Odd {thing}."}
    assert [line.split("  (")[0] for line in untranslated(found, "ko")] == sorted(found)
    assert harvest({"app/odd.py": "from x import ArenaError\nraise ArenaError(message)\n"}).dynamic == ["app/odd.py:2"]


def test_only_the_known_sites_pass_on_a_line_made_elsewhere():
    sites = Counter(place.rsplit(":", 1)[0] for place in HARVEST.dynamic)
    assert dict(sites) == DYNAMIC, dict(sites)


@pytest.mark.parametrize("lang", OTHERS)
def test_a_line_of_each_template_comes_back_translated_with_its_values(lang):
    messages, wrong = table(lang)["messages"], []
    for template in TEMPLATES:
        values = samples(template)
        english = render(template, values)
        with speaking(lang):
            got = translate(english)
        if got != render(messages[template], values):
            wrong.append((english, got))
    assert not wrong, wrong[:5]


def test_english_stays_english():
    for template in itertools.islice(TEMPLATES, 50):
        line = render(template, samples(template))
        assert translate(line) == line
        with speaking("en"):
            assert translate(line) == line


def test_the_why_sentence_of_a_race_reads_in_korean_and_indonesian():
    line = ("Drafts were accepted 56% (14 of 25); here prompt lookup pays off above 16% at 4 drafts a round. "
            "It paid: 1.96\u00d7 faster.")
    with speaking("ko"):
        ko = translate(line)
    with speaking("id"):
        id_ = translate(line)
    assert ko == ("초안 수락률 56%(초안 25개 중 14개 수락); 여기서는 라운드당 초안 4개일 때 수락률이 16%를 넘으면 "
                  "prompt lookup 방식이 이득이에요. 이득이었어요: 1.96× 더 빨랐어요.")
    assert "Drafts" not in id_ and "It paid" not in id_ and "1.96\u00d7 lebih cepat" in id_ and "56%" in id_


def test_the_most_specific_template_wins_and_values_that_are_sentences_are_translated():
    with speaking("ko"):
        hinted = translate("Unknown preset 'x'. Did you mean 'y'? Known presets: a, b.")
        nested = translate("Could not load a tokenizer from 'a/b': Local model folder /m does not exist.")
    assert hinted == "알 수 없는 프리셋 'x'이에요. 'y'을(를) 말한 건가요? 알려진 프리셋: a, b."
    assert nested == "'a/b'에서 토크나이저를 불러올 수 없어요: 로컬 모델 폴더 /m이(가) 없어요."


def test_braces_in_a_value_are_harmless_and_an_unknown_sentence_stays():
    with speaking("id"):
        line = translate("Cannot use {0} {x} as a local model folder: {oops}")
        mixed = translate("Something else entirely. No round drafted anything.")
    assert line == "Tidak dapat memakai {0} {x} sebagai folder model lokal: {oops}"
    assert mixed == "Something else entirely. Tidak ada putaran yang mengusulkan kandidat."


def test_sentences_joined_by_a_semicolon_are_translated_each():
    with speaking("ko"):
        got = translate("Drafts were accepted 50% (1 of 2); nothing was drafted, so both sides decoded plainly and the "
                        "gap is the machine's noise")
    assert got == ("초안 수락률 50%(초안 2개 중 1개 수락); 초안이 하나도 없어서 양쪽 모두 일반 디코딩으로 생성했고, "
                   "차이는 머신의 잡음이에요")


def test_templates_is_the_harvest():
    assert templates() == TEMPLATES
