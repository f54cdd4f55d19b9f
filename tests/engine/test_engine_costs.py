"""app/engine/costs.py: a round's cost in plain steps, from the engine's own timings, against the tokens it kept; the
page's engine why panel (app/render/engine_panel.py) says the same figures as the command line, in the visitor's
language, and one line where the engine reported no timings (races against tests/engine_fake.py)."""

from __future__ import annotations

import pytest

from app.engine.costs import round_costs


def reported(plain_ms: float, assisted_ms: float, drafted: int, accepted: int, n: int = 48) -> dict:
    return {"baseline": {"predicted_ms": plain_ms, "predicted_n": n, "draft_n": 0, "draft_n_accepted": 0},
            "assisted": {"predicted_ms": assisted_ms, "predicted_n": n, "draft_n": drafted, "draft_n_accepted": accepted}}


def test_a_round_that_keeps_more_than_it_costs_pays():
    costs = round_costs(reported(plain_ms=4800, assisted_ms=2400, drafted=40, accepted=32))
    assert costs["rounds"] == 16 and costs["tokens_per_round"] == 3.0  # 48 tokens in 48 - 32 rounds
    assert costs["plain_step_ms"] == 100 and costs["round_ms"] == 150 and costs["round_in_plain_steps"] == 1.5
    assert costs["pays"] is True and "drafting pays" in costs["sentence"]


def test_a_round_that_costs_more_than_it_keeps_loses():
    # llama.cpp's draft-simple on two cores: rounds of 4 drafts cost about 4 plain steps and keep about 3 tokens
    costs = round_costs(reported(plain_ms=48 * 40, assisted_ms=16 * 160, drafted=64, accepted=32))
    assert costs["round_in_plain_steps"] == 4.0 and costs["tokens_per_round"] == 3.0
    assert costs["pays"] is False and "drafting loses" in costs["sentence"]


def test_nothing_to_say_without_timings_or_drafts():
    assert round_costs({}) is None
    assert round_costs(reported(plain_ms=4800, assisted_ms=2400, drafted=0, accepted=0)) is None
    assert round_costs({"baseline": {"predicted_ms": "x"}, "assisted": {}}) is None


#: The fake pair's figures (tests/engine_fake.py): plain 100 ms for 10 tokens (10 ms a step); assisted 10 tokens in
#: 70 ms with 5 drafted and 4 accepted, so 6 rounds of 12 ms (1.2 plain steps) that keep 1.7 tokens each.
FAKE_FIGURES = ("0.8 tokens", "12 ms", "1.2 plain steps", "10 ms each", "1.7 tokens")


def _fake_race(engine_pair):
    from app.engine.http import Timeouts
    from app.engine.race import race_llamacpp
    from tests.engine_fake import IDS

    return race_llamacpp(engine_pair[0].url, engine_pair[1].url, "hello", len(IDS),
                         timeouts=Timeouts(connect=2.0, read=1.0, total=10.0))


def test_the_page_and_the_command_line_say_the_same_round_costs(engine_pair):
    from app.cli.engine_race import engine_stats_line
    from app.render.engine_panel import engine_why_html

    race = _fake_race(engine_pair)
    page, line = engine_why_html(race), engine_stats_line(race)
    assert all(figure in page and figure in line for figure in FAKE_FIGURES), (page, line)
    assert "Drafting pays" in page and "drafting pays" in line and "Drafting loses" not in page
    assert "no decode timings" not in page


def test_a_round_that_costs_more_than_it_keeps_reads_as_a_loss_on_the_page(engine_pair):
    from app.render.engine_panel import engine_why_html

    engine_pair[0].predicted_ms = 200.0  # 6 rounds of 33 ms: 3.3 plain steps for 1.7 tokens
    page = engine_why_html(_fake_race(engine_pair))
    assert "Drafting loses" in page and "3.3 plain steps" in page and "1.7 tokens" in page


@pytest.mark.parametrize("lang, says", [("ko", "초안이 이득이에요"), ("id", "Kandidat menguntungkan")], ids=["ko", "id"])
def test_the_round_costs_read_in_the_visitor_s_language(engine_pair, lang, says):
    from app.core.words import speaking
    from app.render.engine_panel import round_costs_html

    race = _fake_race(engine_pair)
    with speaking(lang):
        html = round_costs_html(race)
    assert says in html and "12 ms" in html and "Drafting" not in html and "plain steps" not in html


def test_an_engine_without_decode_timings_says_so_in_one_line(engine_pair):
    from app.engine.http import Timeouts
    from app.engine.race import race_openai
    from app.render.engine_panel import engine_why_html
    from tests.engine_fake import IDS

    race = race_openai("vllm", engine_pair[0].url, engine_pair[1].url, "hello", len(IDS), model="fake",
                       timeouts=Timeouts(connect=2.0, read=1.0, total=10.0))
    assert race.engine["round_costs"] is None and sum(r.drafted for r in race.result.assisted.rounds)
    page = engine_why_html(race)
    assert page.count("reported no decode timings") == 1 and "drafting + verifying" not in page
