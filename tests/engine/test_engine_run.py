"""EngineRun, the engine race: a Run like a transformers race (docs/DESIGN.md §4.7), against the fake engines
(tests/engine_fake.py): snapshots while it streams agree with the final result token for token and status for
status, statuses an engine reports only at the end are "pending" until then, a stop ends the open request and
leaves no thread behind, every fault is one line that the failing side's snapshot carries, and the request builder
checks what a transformers request is checked for, with the same lines."""

from __future__ import annotations

import re
import threading

import pytest

from app.core.errors import ArenaError
from app.core.requests import Limits, build_request
from app.engine import rounds
from app.engine.http import Timeouts
from app.engine.request import DEFAULT_MAX_NEW_TOKENS, build_engine_request
from app.engine.run import EngineRun, run_engine
from app.engine.target import ENGINE_NAMES, EngineTarget, find_target
from tests.engine_fake import IDS, PROMPT_TOKENS
from tests.engine_follow import Follower, arena_threads, check_prefix, follow

FAST = Timeouts(connect=2.0, read=2.0, total=20.0)


def _request(engine_pair, engine="llama.cpp", limits=Limits.operator(), **kw):
    assisted, plain = engine_pair
    target = EngineTarget("fake", assisted.url, plain.url, engine, "fake" if engine == "vllm" else None)
    return build_engine_request(target, kw.pop("prompt", "hello there"), kw.pop("max_new_tokens", len(IDS)),
                                limits=limits, timeouts=FAST, **kw)


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_snapshots_agree_with_the_result_token_for_token(engine_pair, engine):
    for fake in engine_pair:
        fake.delay = 0.01
    race, seen, final = follow(EngineRun(_request(engine_pair, engine)))
    a, b = race.result.assisted, race.result.baseline
    assert race.result.identical and a.token_ids == IDS and not race.result.stopped
    assert len(seen) > 4, "the follower saw the race only at its ends"
    live_only = engine != "llama.cpp"  # vLLM and SGLang report the statuses with their final chunk
    for snap in seen:
        assert snap.sequential is True and set(snap.sides) == {"baseline", "assisted"}
        plain, assisted = snap.sides["baseline"], snap.sides["assisted"]
        assert all(t.status == "target" for t in plain.tokens) and plain.rounds == ()
        assert [t.id for t in plain.tokens] == b.token_ids[:len(plain.tokens)]
        check_prefix(assisted, a.tokens, a.rounds, allow_pending=live_only)
        if not assisted.done:
            assert all(t.status == rounds.PENDING for t in assisted.tokens) or not live_only
        if assisted.started:
            assert plain.done, "sequential: plain ends before assisted starts"
    assert any(0 < len(s.sides["assisted"].tokens) < len(IDS) and not s.sides["assisted"].done for s in seen)
    side = final.sides["assisted"]
    assert side.done and side.tokens == tuple(a.tokens) and side.rounds == tuple(a.rounds)
    assert list(side.token_times) == a.token_times and side.seconds == a.seconds == side.elapsed
    assert final.sides["baseline"].done and list(final.sides["baseline"].token_times) == b.token_times
    assert all(t.status != rounds.PENDING for t in a.tokens)


def test_prepare_checks_the_pair_and_returns_the_setup(engine_pair):
    run = EngineRun(_request(engine_pair))
    assert run.snapshot() is None and not run.running() and run.join(0)
    setup = run.prepare()
    assert (setup.device, setup.model, setup.engine, setup.version) == ("llama.cpp server", "fake.gguf", "llama.cpp",
                                                                        "b0-fake")
    assert setup.prompt_text == "<user>hello there<assistant>" and setup.prompt_tokens == 2
    assert not [r for r in engine_pair[0].requests + engine_pair[1].requests if r == "POST /completion"]
    result = run.run()
    assert run.setup.speculative_type == "ngram-simple" and run.race.result is result
    assert result.method == "llama.cpp ngram-simple" and run.json()["engine"]["name"] == "llama.cpp"
    assert run.facts()["engine"]["speculative_type"] == "ngram-simple"
    assert run.sequential and run.request.max_new_tokens == len(IDS)


def test_a_stop_mid_stream_ends_the_request_and_leaves_no_thread(engine_pair):
    for fake in engine_pair:
        fake.delay = 0.05
    before = arena_threads()
    run = EngineRun(_request(engine_pair))
    follower = Follower(run)
    worker = threading.Thread(target=lambda: setattr(run, "outcome", run.run()))
    worker.start()
    while (snap := run.snapshot()) is None or len(snap.sides["assisted"].tokens) < 2:
        assert worker.is_alive()
        threading.Event().wait(0.01)
    run.stop()
    worker.join(10)
    follower.stop()
    run.close("test")
    assert not worker.is_alive() and not run.running() and run.join(0)
    result = run.outcome
    assert result.stopped and result.baseline.token_ids == IDS and 2 <= len(result.assisted.token_ids) < len(IDS)
    snap = run.snapshot()
    assert snap.sides["assisted"].stopped and snap.sides["assisted"].done and not snap.sides["baseline"].stopped
    assert [t.status for t in snap.sides["assisted"].tokens] == [t.status for t in result.assisted.tokens]
    assert arena_threads() == before, threading.enumerate()


def test_close_stops_a_run_that_a_caller_abandoned(engine_pair):
    engine_pair[1].mode = "slow"  # the plain side hangs for 3 s after its first token
    before = arena_threads()
    run = EngineRun(_request(engine_pair), reap_seconds=5)
    worker = threading.Thread(target=run.run)
    worker.start()
    while (snap := run.snapshot()) is None or not snap.sides["baseline"].tokens:
        threading.Event().wait(0.01)
    run.close("the tab went away")
    assert not run.running() and run.stop_event.is_set()
    worker.join(5)
    assert arena_threads() == before


@pytest.mark.parametrize("side, mode, words", [("baseline", "drop", "died mid-stream after 3 tokens"),
                                               ("assisted", "malformed", "malformed output"),
                                               ("assisted", "error-chunk", "failed mid-stream")])
def test_a_fault_is_one_line_on_the_failing_side(engine_pair, side, mode, words):
    fake = engine_pair[0 if side == "assisted" else 1]
    fake.mode = mode
    run = EngineRun(_request(engine_pair, "sglang" if mode == "error-chunk" else "llama.cpp"))
    with pytest.raises(ArenaError) as excinfo:
        run.run()
    message = str(excinfo.value)
    assert words in message and "\n" not in message
    snap = run.snapshot()
    assert snap.sides[side].error == message and snap.sides[side].done
    other = snap.sides["assisted" if side == "baseline" else "baseline"]
    assert other.error is None and other.done
    assert other.stopped == (side == "baseline")  # a side the failed race never reached ends as stopped


def test_plain_against_plain_fails_on_the_assisted_side(engine_pair):
    engine_pair[0].spec = False
    run = EngineRun(_request(engine_pair, "vllm"))
    with pytest.raises(ArenaError, match="not a race"):
        run.run()
    assert "not a race" in run.snapshot().sides["assisted"].error and run.snapshot().sides["baseline"].done


def test_the_prompt_length_is_the_engines_count(engine_pair):
    limits = Limits(max_prompt_tokens=3)
    with pytest.raises(ArenaError, match="^The prompt is 4 tokens; this server accepts at most 3.$"):
        EngineRun(_request(engine_pair, limits=limits, prompt="one two three four", max_new_tokens=4)).prepare()
    assert "POST /completion" not in engine_pair[1].requests  # llama.cpp counted it before generating
    run = EngineRun(_request(engine_pair, "sglang", limits=Limits(max_prompt_tokens=PROMPT_TOKENS - 1),
                             max_new_tokens=4))
    with pytest.raises(ArenaError, match=f"^The prompt is {PROMPT_TOKENS} tokens"):  # counted on its first chunk
        run.run()
    assert run.snapshot().sides["baseline"].error.startswith("The prompt is")


def test_the_request_builder_says_what_a_transformers_request_says():
    target = EngineTarget("llama", "http://127.0.0.1:9", "http://127.0.0.1:10")
    small = Limits(max_new_tokens=16, work_tokens=50)

    def line(call):
        with pytest.raises(ArenaError) as excinfo:
            call()
        return str(excinfo.value)

    assert line(lambda: build_engine_request(target, "x", 32, limits=small)) == line(
        lambda: build_request("offline-prompt-lookup", "x", {"max_new_tokens": 32}, limits=small))
    assert line(lambda: build_engine_request(target, "x", 0, limits=small)) == line(
        lambda: build_request("offline-prompt-lookup", "x", {"max_new_tokens": 0}, limits=small))
    budget = line(lambda: build_engine_request(target, "x", 16, limits=Limits(work_tokens=20)))
    assert budget == ("This race would generate about 61 tokens; this server allows 20 per request: ask for fewer "
                      "new tokens.")  # both sides, a warm-up of each and the plain probe after the assisted side
    assert re.sub(r"\d+", "N", budget) == re.sub(r"\d+", "N", line(
        lambda: build_request("offline-prompt-lookup", "x", {"max_new_tokens": 16}, limits=Limits(work_tokens=20))))
    assert "one prompt at a time" in line(lambda: build_engine_request(target, ["a", "b"], 8))
    assert "The prompt is empty" in line(lambda: build_engine_request(target, "  ", 8))
    assert "characters long" in line(lambda: build_engine_request(target, "x" * 1_000_001, 8))
    assert build_engine_request(target, "x", None).max_new_tokens == DEFAULT_MAX_NEW_TOKENS


def test_a_visitor_names_an_engine_never_a_url():
    targets = (EngineTarget("llama", "http://127.0.0.1:9"), EngineTarget("gpu", "http://10.0.0.2:8000"))
    assert find_target("gpu", targets) is targets[1]
    with pytest.raises(ArenaError, match=r"^Unknown engine 'http://evil:1'\. Known engines: llama, gpu\.$"):
        find_target("http://evil:1", targets)


def test_run_engine_closes_in_its_finally(engine_pair):
    before = arena_threads()
    race = run_engine(_request(engine_pair, "vllm"))
    assert race.status_source == rounds.PER_STEP and arena_threads() == before
