"""What a person reads says what it means: no Python reprs, a bad trace named for what is wrong with it, the gallery's
outcome against what its prompt was picked for, prompt lookup's near-zero c explained with a scaled figure, and no
replacement character where a generation ended inside a character. No models are loaded."""

from __future__ import annotations

import copy
import dataclasses
import re

import pytest

from app.core.errors import ArenaError
from app.core.knobs import knobs_text
from app.race.tracer import Detokenizer
from app.render.why_panel import why_panel_html
from app.replay.gallery import load_gallery
from app.replay.tracefile import parse_trace
from app.render.replay_tab import gallery_samples, outcome_text

#: Signs of a Python value printed as is.
REPR = re.compile(r"[{}]|'\w+':|\bNone\b|NoneType|\bTrue\b|\bFalse\b")


class ByteTokenizer:
    """Token i is the byte i: a character of several UTF-8 bytes takes several tokens, as in byte-level BPE."""

    def decode(self, ids, skip_special_tokens=False, clean_up_tokenization_spaces=False):
        return bytes(ids).decode("utf-8", errors="replace")


def test_a_character_is_held_back_until_complete():
    detok, ga = Detokenizer(ByteTokenizer()), list("가".encode())
    assert [detok.push(b) for b in b"ok "] == ["o", "k", " "]
    assert [detok.push(b) for b in ga] == ["", "", "가"]


def test_a_generation_that_ends_inside_a_character_shows_nothing_for_it():
    detok, ids = Detokenizer(ByteTokenizer()), list("한국".encode())[:-1]  # cut by the token budget
    texts = [detok.push(b) for b in ids]
    tail = detok.flush()
    assert "".join(texts) + tail == "한" and "\ufffd" not in tail
    assert detok.text(ids) == "한"


def test_a_complete_text_is_kept_whole():
    detok = Detokenizer(ByteTokenizer())
    assert detok.text(list("한국".encode())) == "한국" and detok.flush() == ""


# ----- a file that is not a trace ------------------------------------------------------------------------------
@pytest.mark.parametrize("data,needle", [
    ({"notes": "mine"}, 'it has no "format" field'),
    ({"preset": "x", "baseline": {}, "assisted": {}}, "a race's result without the trace around it"),
    ({"format": "something else"}, "its \"format\" field says \u201csomething else\u201d"),
    ({"format": None}, 'its "format" field is null'),
    ({"format": 3}, 'its "format" field is 3'),
    ([1, 2], "found a list"),
])
def test_a_bad_trace_says_what_is_wrong(data, needle):
    with pytest.raises(ArenaError) as err:
        parse_trace(data, "notes.json")
    message = str(err.value)
    assert needle in message and not REPR.search(message), message
    assert message.startswith("notes.json: is not")


def test_a_trace_field_of_the_wrong_kind_is_named_in_json_words():
    trace = copy.deepcopy(load_gallery().load(0).data)
    trace["version"] = "1"
    with pytest.raises(ArenaError, match='got "1"'):
        parse_trace(trace, "t.json")
    trace["version"], trace["environment"] = 1, None
    with pytest.raises(ArenaError, match=r"environment has the wrong type \(null\)"):
        parse_trace(trace, "t.json")


# ----- the gallery ---------------------------------------------------------------------------------------------
def test_the_gallery_says_what_a_prompt_was_picked_for_and_whether_it_did():
    assert outcome_text(0.96, "slower", "win") == "0.96\u00d7 slower \u00b7 picked to show a win; it did not win here"
    assert outcome_text(2.17, "faster", "win") == "2.17\u00d7 faster \u00b7 picked to show a win"
    assert outcome_text(0.54, "slower", "lose") == "0.54\u00d7 slower \u00b7 picked to show a loss"
    assert outcome_text(1.2, "faster", "lose").endswith("; it did not lose here")
    rows = gallery_samples(load_gallery())
    assert rows and not any("chosen to" in row[1] for row in rows)


# ----- the why panel -------------------------------------------------------------------------------------------
def lookup_race(**why):
    """The gallery's winning prompt-lookup race, its explanation's fields replaced by `why`."""
    result = load_gallery().load(0).result
    assert result.method == "prompt-lookup"
    return dataclasses.replace(result, why=dataclasses.replace(result.why, **why))


def test_the_why_panel_explains_prompt_lookups_free_drafting():
    html = why_panel_html(lookup_race(cost_ratio=0.0001, verify_slope=0.0, break_even_acceptance=0.0))
    assert "pays off above 0%" not in html
    assert "drafting is free" in html and "the cost is verifying" in html
    assert "any accepted draft pays" in html
    assert "\u2248 0" in html and "0.000<" not in html  # c and the verify slope read as about zero, not 0.000


def test_the_positions_figure_has_a_scale_and_its_words_clear_of_the_bars():
    html = why_panel_html(lookup_race(break_even_acceptance=0.3))
    figure = html[html.index('class="why-plot"'):html.index('class="why-xs"')]
    assert all(f">{v}%<" in figure for v in (0, 50, 100))  # the axis
    assert "break-even" not in re.sub(r'title="[^"]*"', "", figure)  # the line has no label over the bars
    assert "drafting pays when more than 30% of drafts are accepted" in html
    positions = html[html.index('class="why-xs"'):]
    assert "<i>1</i>" in positions and "<i>1</i>" not in figure


def test_a_drafter_race_gets_no_copying_note():
    result = lookup_race()
    assert "copies its drafts" not in why_panel_html(dataclasses.replace(result, method="drafter"))


# ----- planner progress ----------------------------------------------------------------------------------------
def test_knobs_read_as_words():
    text = knobs_text({"num_assistant_tokens": 20, "num_assistant_tokens_schedule": "constant",
                       "assistant_confidence_threshold": 0.4})
    assert text == "draft length k 20, draft length schedule constant, confidence threshold 0.4"
    assert not REPR.search(text) and knobs_text({}) == "the preset's settings"


def test_planner_progress_and_the_why_sentence_read_as_words(monkeypatch):
    """The planner's progress names the knobs in words (no Python dict), and prompt lookup's free drafting reads as
    "any accepted draft pays", not "pays off above 0%"."""
    import dataclasses

    from app.planner import check
    from app.race import lifecycle
    from app.race.why import _what_happened
    from tests.fakes import ROUNDS, fake_result, lookup_preset

    preset = lookup_preset()
    monkeypatch.setattr(lifecycle, "run_race", lambda request, **kw: fake_result(preset, 0.5, ROUNDS))
    said = []
    check.race_prompts(preset, ["a"], {"num_assistant_tokens": 20}, 0.1, check.Limits.operator(), said.append)
    assert said and "{" not in said[0] and "'" not in said[0] and "20" in said[0]
    result = fake_result(preset, 0.5, ROUNDS)
    free = dataclasses.replace(result.why, break_even_acceptance=0.001, gamma=3.0)
    assert "any accepted draft pays" in _what_happened(result, free) and "above 0%" not in _what_happened(result, free)
    costly = dataclasses.replace(result.why, break_even_acceptance=0.4, gamma=3.0)
    assert "pays off above 40%" in _what_happened(result, costly)
