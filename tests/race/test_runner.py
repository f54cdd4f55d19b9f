"""The race (app/race/lifecycle.py ``RaceRun``): events, stop, errors, and no state leaking between runs."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from app.core.requests import RaceRequest
from app.race import _sides
from app.race.lifecycle import RaceRun, stop_every_race
from app.race.protocol import DoneEvent, ErrorEvent, RoundEvent, TokenEvent
from app.race.tracer import TraceStreamer

from tests.helpers import LOCAL, OPERATOR, ROOT, make_preset

PROMPT = "The cat likes the dog and the dog likes"


def race_of(preset, cache, sequential: bool = False, seed: int | None = None) -> RaceRun:
    return RaceRun(RaceRequest(preset, PROMPT, seed, OPERATOR), sequential, cache=cache)


def race_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("race-")]


def test_events_are_typed_and_end_with_done(tiny, cache):
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=3)
    race = race_of(preset, cache)
    events = list(race.events())
    assert {type(e) for e in events} == {TokenEvent, RoundEvent, DoneEvent}
    for side in ("baseline", "assisted"):
        mine = [e for e in events if e.side == side]
        assert isinstance(mine[-1], DoneEvent) and sum(isinstance(e, DoneEvent) for e in mine) == 1
    assert not any(isinstance(e, RoundEvent) for e in events if e.side == "baseline")
    assert race.join(5)


def test_stop_ends_both_threads_promptly(tiny, cache, monkeypatch):
    before = len(race_threads())
    streamers: list[TraceStreamer] = []  # what each side has generated, as its worker sees it

    class Seen(TraceStreamer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            streamers.append(self)

    monkeypatch.setattr(_sides, "TraceStreamer", Seen)
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=3,
                         max_new_tokens=1000)
    race = race_of(preset, cache)
    seen = 0
    at_stop: dict[str, int] = {}
    for event in race.events():
        if isinstance(event, TokenEvent):
            seen += 1
            if seen == 10:
                at_stop = {s.side: len(s.token_ids) for s in streamers}
                race.stop()
    assert race.join(5), "worker threads still running after stop"
    # each side ends after its current forward pass: at most the round in flight (k + 1 tokens) more
    final = {s.side: len(s.token_ids) for s in streamers}
    assert final["baseline"] <= at_stop.get("baseline", 0) + 2
    assert final["assisted"] <= at_stop.get("assisted", 0) + 2 * (3 + 1)
    assert len(race_threads()) == before
    result = race.result().to_dict()
    assert result["stopped"] is True
    assert result["baseline"]["new_tokens"] < 1000 and result["assisted"]["new_tokens"] < 1000


def test_stop_during_sequential_warm_up_or_run(tiny, cache):
    preset = make_preset("layerskip", tiny["llama_target"], assistant_early_exit=2, max_new_tokens=1000)
    race = race_of(preset, cache, sequential=True)
    running = threading.Thread(target=race.run, name="test-race")
    running.start()
    time.sleep(0.3)
    race.stop()
    running.join(30)
    assert not running.is_alive() and race.join(5) and not race.running()


def test_generation_error_becomes_an_error_event(tiny, cache, monkeypatch):
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=3)
    real = _sides.generate_call  # where the workers call generate()

    def broken(setup, assisted, *args, **kw):
        model, kwargs = real(setup, assisted, *args, **kw)
        if assisted:
            kwargs["num_beams"] = "not a number"  # transformers raises inside generate()
        return model, kwargs

    monkeypatch.setattr(_sides, "generate_call", broken)
    race = race_of(preset, cache)
    events = list(race.events(timeout=60))
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.side for e in errors] == ["assisted"]
    assert errors[0].message.startswith("Generation failed") and "\n" not in errors[0].message
    assert race.result().to_dict()["errors"] == {"assisted": errors[0].message}
    baseline = race.snapshot().sides["baseline"]
    assert baseline.error is None and baseline.tokens


def test_runs_do_not_leak_state(tiny, cache):
    """Run A, B, A: the heuristic draft length and early exit's layer count must not carry over."""
    a = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=2,
                    num_assistant_tokens_schedule="heuristic")
    b = make_preset("layerskip", tiny["llama_target"], assistant_early_exit=1, num_assistant_tokens=6)
    first = race_of(a, cache, sequential=True).run().to_dict()
    race_of(b, cache).run().to_dict()
    again = race_of(a, cache, sequential=True).run().to_dict()
    assert [r["drafted"] for r in first["assisted"]["rounds"]] == [r["drafted"] for r in again["assisted"]["rounds"]]
    assert first["assisted"]["token_ids"] == again["assisted"]["token_ids"]
    target = cache.get_model(tiny["llama_target"], LOCAL).model
    drafter = cache.get_model(tiny["llama_drafter"], LOCAL).model
    assert target.config.num_hidden_layers == 4 and target.model.config.num_hidden_layers == 4
    assert drafter.generation_config.num_assistant_tokens in (None, 20)  # untouched by the heuristic


def test_uad_sampling_leaves_the_cached_assistant_intact(tiny, cache):
    preset = make_preset("uad", tiny["llama_target"], tiny["llama_other_tokenizer"], do_sample=True)
    assistant = cache.get_model(tiny["llama_other_tokenizer"], LOCAL).model
    embed, head = type(assistant.get_input_embeddings()), type(assistant.lm_head)
    race_of(preset, cache, sequential=True, seed=1).run().to_dict()
    assert type(assistant.get_input_embeddings()) is embed and type(assistant.lm_head) is head


def test_tokenizer_copies_are_made_once_and_reused(tiny, cache):
    preset = make_preset("uad", tiny["llama_target"], tiny["llama_other_tokenizer"], num_assistant_tokens=2)
    for _ in range(3):
        race_of(preset, cache).run().to_dict()
    target_pool = cache.tokenizer_pool(tiny["llama_target"], allow_local=True)
    assistant_pool = cache.tokenizer_pool(tiny["llama_other_tokenizer"], allow_local=True)
    assert target_pool.copies_made <= 3  # prompt encoding, the reader, the UAD generate call
    assert assistant_pool.copies_made <= 1


def test_start_stop_cycles_leave_no_threads(tiny, cache):
    """The short version of benchmarks/soak.py."""
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], max_new_tokens=1000)
    race_of(preset, cache).prepare()  # the models loaded before counting threads
    before = threading.active_count()
    for _ in range(5):
        race = race_of(preset, cache)
        for event in race.events():
            if isinstance(event, TokenEvent):
                race.stop()
        assert race.join(5)
    assert threading.active_count() == before


#: A process that leaves in the middle of a race, as the CLI does on Ctrl-C ("error: interrupted", exit 130): its
#: race's workers are inside torch's parallel loops, SmolLM2 at two threads.
LEAVES_MID_RACE = """
import sys, threading, time
from app.core.requests import Limits, build_request
from app.race.lifecycle import RaceRun
request = build_request("offline-prompt-lookup", "Write a long story about a dragon.", {"max_new_tokens": 400},
                        limits=Limits.operator())
run = RaceRun(request)
threading.Thread(target=run.run, name="race-reader", daemon=True).start()
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    snap = run.snapshot()
    if snap is not None and len(snap.sides["assisted"].tokens) >= 3:
        break
    time.sleep(0.02)
print("racing", flush=True)
sys.exit(130)
"""


@pytest.mark.slow
def test_a_process_that_leaves_mid_race_exits_with_its_own_status():
    """The interpreter ended the race's daemon workers inside torch and the process aborted ("terminate called
    without an active exception", status -6) on every Ctrl-C mid-race; now every started race is stopped and its
    workers joined at exit (``stop_every_race``, registered with atexit)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_WAIT_POLICY="ACTIVE")
    proc = subprocess.run([sys.executable, "-c", LEAVES_MID_RACE], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=300)
    assert proc.stdout == "racing\n", proc.stderr[-2000:]
    assert proc.returncode == 130 and "terminate called" not in proc.stderr, (proc.returncode, proc.stderr[-2000:])


def test_stop_every_race_ends_the_started_ones(tiny, cache):
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=3,
                         max_new_tokens=4000)
    race = race_of(preset, cache)
    events = race.events()
    next(events)  # started: its workers generate
    assert race.running()
    assert stop_every_race(30) >= 1
    assert not race.running()  # its workers joined
    list(events)  # the rest of the events end with both sides stopped
    assert all(r.stopped for r in race._reader.records.values())
