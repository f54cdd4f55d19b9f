"""A real llama-server on the offline SmolLM2 GGUF (the llama_pair fixture): greedy plain and n-gram sides agree,
the acceptance the arena shows is the server's own draft_n_accepted, and Stop ends the generation on the server
(docs/DESIGN.md §4.7)."""

from __future__ import annotations

import json
import threading
import time
from contextlib import closing

import pytest

from app.cli import main
from app.core.errors import StoppedError
from app.engine import llamacpp, rounds
from app.engine.http import Endpoint, get_json, stream_post
from app.engine.race import race_llamacpp
from tests.app_server import wait_until
from tests.engine_follow import CODE_EDIT, arena_threads, check_prefix, follow


def _processing(endpoint: Endpoint) -> bool:
    """Whether llama-server's slot is still generating."""
    return get_json(endpoint, "/slots")[0]["is_processing"]


def test_greedy_plain_and_ngram_agree_and_acceptance_is_the_servers(llama_pair):
    assisted, plain = llama_pair
    race = race_llamacpp(assisted.url, plain.url, CODE_EDIT, 40)
    out = race.to_dict()
    reported = out["engine"]["reported"]["assisted"]
    assert out["identical"] is True, (out["baseline"]["text"], out["assisted"]["text"])
    assert out["baseline"]["new_tokens"] == out["assisted"]["new_tokens"] > 0
    assert reported["draft_n"] > 0, "ngram-simple drafted nothing on a code edit"
    assert sum(r["accepted"] for r in out["assisted"]["rounds"]) == reported["draft_n_accepted"]
    assert sum(r["drafted"] for r in out["assisted"]["rounds"]) == reported["draft_n"]
    assert race.status_source == rounds.PER_STEP
    accepted = sum(t["status"] == "accepted" for t in out["assisted"]["tokens"])
    assert accepted <= reported["draft_n_accepted"]  # a round cut by the end keeps its drafts only
    assert out["method"] == "llama.cpp ngram-simple" and out["engine"]["version"]
    assert out["baseline"]["tokens_per_second"] > 0 and reported["predicted_per_second"] > 0


def test_stop_ends_the_generation_on_the_server(llama_pair):
    _, plain = llama_pair
    endpoint, stop = Endpoint(plain.url, "plain endpoint"), threading.Event()
    body = llamacpp.completion_body("Count from 1 to 5000, one number per line.", 4000) | {"ignore_eos": True}
    chunks = 0
    with pytest.raises(StoppedError):
        with closing(stream_post(endpoint, "/completion", body, stop=stop)) as stream:
            for _, data in stream:
                chunks += 1
                if chunks == 3:
                    assert get_json(endpoint, "/slots")[0]["is_processing"]
                if chunks == 5:  # from another thread, as the page's Stop does
                    threading.Thread(target=stop.set).start()
    assert 5 <= chunks < 4000
    wait_until(lambda: not _processing(endpoint), 5, "the server kept generating after Stop", interval=0.05)
    start = time.monotonic()
    assert llamacpp.read_side(endpoint, "Hi", 4).token_ids
    assert time.monotonic() - start < 10


def test_the_cli_races_the_engine(llama_pair, capsys):
    assisted, plain = llama_pair
    status = main(["race", "--endpoint", assisted.url, "--plain-endpoint", plain.url, "--prompt", CODE_EDIT,
                   "--max-new-tokens", "16", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["preset"] == "endpoint" and out["mode"] == "sequential"
    assert out["assisted"]["status_source"] == "engine-per-step"
    assert sum(r["accepted"] for r in out["assisted"]["rounds"]) == out["engine"]["reported"]["assisted"][
        "draft_n_accepted"]


def test_the_plain_server_does_not_speculate(llama_pair):
    assisted, plain = llama_pair
    assert llamacpp.speculative_slots(Endpoint(assisted.url)) is True
    assert llamacpp.speculative_slots(Endpoint(plain.url)) is False


def _run(llama_pair, prompt: str, max_new_tokens: int, **kw):
    from app.core.requests import Limits
    from app.engine.request import build_engine_request
    from app.engine.run import EngineRun
    from app.engine.target import EngineTarget

    assisted, plain = llama_pair
    return EngineRun(build_engine_request(EngineTarget("llama", assisted.url, plain.url), prompt, max_new_tokens,
                                          limits=Limits.operator(), **kw))


def test_live_snapshots_of_the_real_server_agree_with_its_result(llama_pair):
    race, seen, final = follow(_run(llama_pair, CODE_EDIT, 40))
    a = race.result.assisted
    assert race.status_source == rounds.PER_STEP and sum(r.drafted for r in a.rounds) > 0
    partial = [s for s in seen if 0 < len(s.sides["assisted"].tokens) < len(a.tokens)]
    assert partial, "no snapshot caught the assisted side streaming"
    for snap in seen:  # statuses live from the per-chunk counters: never pending, always the result's
        check_prefix(snap.sides["assisted"], a.tokens, a.rounds, allow_pending=False)
    assert final.sides["assisted"].tokens == tuple(a.tokens) and final.sides["assisted"].rounds == tuple(a.rounds)


def test_an_engine_runs_stop_ends_the_generation_on_the_server(llama_pair):
    _, plain = llama_pair
    endpoint, before = Endpoint(plain.url, "plain endpoint"), arena_threads()
    run = _run(llama_pair, "Count from 1 to 5000, one number per line.", 2000)
    worker = threading.Thread(target=run.run)
    worker.start()

    def five_tokens() -> bool:
        assert worker.is_alive(), "the engine race ended before it had five plain tokens"
        return (snap := run.snapshot()) is not None and len(snap.sides["baseline"].tokens) >= 5

    wait_until(five_tokens, 60, "the engine race did not stream five plain tokens", interval=0.02)
    assert get_json(endpoint, "/slots")[0]["is_processing"]
    run.stop()
    worker.join(10)
    run.close("test")
    wait_until(lambda: not _processing(endpoint), 5, "the server kept generating after Stop", interval=0.05)
    assert run.race.result.stopped and run.snapshot().sides["baseline"].stopped
    assert not worker.is_alive() and arena_threads() == before


def test_the_plan_shows_the_alpha_of_the_engines_own_rounds(llama_pair, monkeypatch):
    """plan --endpoint on the real server (docs/DESIGN.md §5.17): its alpha is the per-token alpha of the rounds read
    from the engine's own draft_n / draft_n_accepted, and its decode speedup the engine's predicted_per_second
    assisted over plain."""
    from app.core.requests import Limits
    from app.core.theory import per_token_alpha
    from app.engine.target import EngineTarget
    from app.planner import engine_plan
    from app.planner.plan import PlanOptions
    from app.planner.request import engine_requests

    raced, real = [], engine_plan.run_engine
    monkeypatch.setattr(engine_plan, "run_engine", lambda *a, **kw: raced.append(real(*a, **kw)) or raced[-1])
    assisted, plain = llama_pair
    requests = engine_requests(EngineTarget("llama", assisted.url, plain.url), [CODE_EDIT], 40, Limits.operator())
    plan = engine_plan.plan_on_engine(requests, PlanOptions(limits=Limits.operator()))
    (race,) = raced
    reported, steps = race.engine["reported"], race.result.assisted.rounds
    assert race.status_source == rounds.PER_STEP and reported["assisted"]["draft_n"] > 0
    assert sum(r.accepted for r in steps) == reported["assisted"]["draft_n_accepted"] == plan.engine.alpha_observed.accepted
    assert sum(r.drafted for r in steps) == reported["assisted"]["draft_n"] == plan.engine.alpha_observed.drafted
    assert plan.alpha == round(per_token_alpha(steps), 4) and 0 < plan.alpha <= 1
    own = reported["assisted"]["predicted_per_second"] / reported["baseline"]["predicted_per_second"]
    assert plan.engine.speedup.decode == pytest.approx(own, rel=1e-3)
    assert plan.c >= 0 and plan.engine.c.what.endswith(engine_plan.ENGINE_TIMES) and plan.engine.identical
    out = plan.to_dict()
    assert out["mode"] == "measured" and out["engine"]["version"] and out["method"] == "llama.cpp ngram-simple"
