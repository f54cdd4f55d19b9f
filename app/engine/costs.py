"""Why an engine's speculation wins or loses, from the engine's own timings (docs/DESIGN.md §4.7): what one round of
drafting and verifying cost, in plain decode steps, against the tokens it kept.

llama.cpp reports per side ``predicted_n`` tokens in ``predicted_ms`` of generation (prompt processing excluded) and, for
the drafting side, ``draft_n`` drafted and ``draft_n_accepted`` accepted tokens. Each round of the drafting side keeps
its accepted drafts plus one token of the target, so it ran R = predicted_n - draft_n_accepted rounds. A round pays when
it keeps more tokens than the plain steps it cost: tokens per round > round time / plain step time. The engine does not
time the drafting and the verification apart, so a round's cost is their sum.
"""

from __future__ import annotations

from typing import Any


def _number(figures: dict[str, Any], key: str) -> float | None:
    value = figures.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def round_costs(reported: dict[str, Any]) -> dict[str, Any] | None:
    """``{"plain_step_ms", "round_ms", "round_in_plain_steps", "rounds", "tokens_per_round", "drafted_per_round",
    "pays", "sentence"}`` from the ``engine.reported`` object (per side what the engine reported); None when the
    engine gave no generation timings or nothing was drafted."""
    plain, assisted = reported.get("baseline") or {}, reported.get("assisted") or {}
    p_ms, p_n = _number(plain, "predicted_ms"), _number(plain, "predicted_n")
    a_ms, a_n = _number(assisted, "predicted_ms"), _number(assisted, "predicted_n")
    drafted, accepted = _number(assisted, "draft_n") or 0, _number(assisted, "draft_n_accepted") or 0
    if not (p_ms and p_n and a_ms and a_n and drafted) or a_n - accepted <= 0:
        return None
    step = p_ms / p_n
    rounds = a_n - accepted
    round_ms = a_ms / rounds
    cost, kept = round_ms / step, a_n / rounds
    pays = kept > cost
    sentence = (f"Each round drafted {drafted / rounds:.1f} tokens and verified them in one pass: {round_ms:.0f} ms, "
                f"the time of {cost:.1f} plain steps ({step:.0f} ms each, the engine's own timings), and it kept "
                f"{kept:.1f} tokens; " + ("so drafting pays: a round keeps more tokens than the plain steps it costs."
                                          if pays else "so drafting loses: a round costs more plain steps than the "
                                                       "tokens it keeps (a cheaper drafter or a cheaper batched "
                                                       "verification would change that)."))
    return {"plain_step_ms": round(step, 3), "round_ms": round(round_ms, 3), "round_in_plain_steps": round(cost, 3),
            "rounds": int(rounds), "tokens_per_round": round(kept, 3), "drafted_per_round": round(drafted / rounds, 3),
            "pays": pays, "sentence": sentence}
