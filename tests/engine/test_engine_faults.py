"""Engine races against fake local servers (tests/engine_fake.py): the statuses from the engine's own counters, the
vLLM and SGLang formats, and every fault as one line without a hang (docs/DESIGN.md §4.7)."""

from __future__ import annotations

import threading
import time

import pytest

from app.core.errors import ArenaError
from app.engine import adapters, rounds
from app.engine.http import Endpoint, Timeouts
from app.engine.race import race_llamacpp, race_openai
from app.race.result import RaceResult
from tests.engine_fake import IDS

FAST = Timeouts(connect=2.0, read=1.0, total=10.0)


def _race(engine_pair, **kw):
    return race_llamacpp(engine_pair[0].url, engine_pair[1].url, "hello", len(IDS), timeouts=FAST, **kw)


def test_statuses_come_from_the_engines_per_chunk_counters(engine_pair):
    race = _race(engine_pair)
    out = race.to_dict()
    assert race.status_source == rounds.PER_STEP and out["assisted"]["status_source"] == "engine-per-step"
    assert [t["status"] for t in out["assisted"]["tokens"]] == [
        "target", "accepted", "accepted", "resampled", "target", "accepted", "accepted", "bonus", "target", "target"]
    assert [(r["drafted"], r["accepted"]) for r in out["assisted"]["rounds"]] == [(3, 2), (2, 2)]
    assert sum(r["accepted"] for r in out["assisted"]["rounds"]) == out["engine"]["reported"]["assisted"][
        "draft_n_accepted"] == 4
    assert out["identical"] is True and out["preset"] == "endpoint" and out["method"] == "llama.cpp ngram-simple"
    assert out["engine"]["name"] == "llama.cpp" and out["engine"]["version"] == "b0-fake"
    assert out["engine"]["reported"]["baseline"]["draft_n"] == 0
    assert "POST /apply-template" in engine_pair[0].requests


def test_the_json_keeps_every_key_of_a_transformers_race(engine_pair):
    out = _race(engine_pair).to_dict()
    for key in ("preset", "method", "target", "assistant", "mode", "do_sample", "device", "baseline", "assisted",
                "speedup", "identical", "first_divergence", "why", "knobs", "threads"):
        assert key in out
    for key in ("text", "token_ids", "new_tokens", "seconds", "tokens_per_second", "ttft_seconds", "tokens",
                "rounds", "acceptance_rate", "mean_accepted_length", "acceptance_by_position"):
        assert key in out["assisted"]
    assert out["assisted"]["acceptance_rate"] == pytest.approx(4 / 5)
    back = RaceResult.from_dict(out, "engine race")  # readable wherever a transformers race is (replay, bench)
    assert [t.status for t in back.assisted.tokens] == [t["status"] for t in out["assisted"]["tokens"]]


def _one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert "\n" not in message and message
    return message


@pytest.mark.parametrize("mode, words", [("http500", "refused the request: HTTP 500: the fake broke"),
                                         ("drop", "died mid-stream after 3 tokens"),
                                         ("slow", "too slow"),
                                         ("malformed", "malformed output"),
                                         ("endless", "endless output")])
def test_each_fault_is_one_line_without_a_hang(engine_pair, mode, words):
    engine_pair[1].mode = mode
    start = time.monotonic()
    with pytest.raises(ArenaError) as excinfo:
        _race(engine_pair)
    assert words in _one_line(excinfo)
    assert "plain endpoint" in str(excinfo.value)
    assert time.monotonic() - start < 5


def test_a_down_engine_is_one_line():
    with pytest.raises(ArenaError) as excinfo:
        race_llamacpp("http://127.0.0.1:9", "http://127.0.0.1:9", "x", 4, timeouts=FAST)
    assert "is down: nothing answers at http://127.0.0.1:9" in _one_line(excinfo)


def test_plain_against_plain_is_not_a_race(engine_pair):
    engine_pair[0].spec = False
    with pytest.raises(ArenaError, match="no speculative decoding configured.*plain against plain is not a race"):
        _race(engine_pair)
    engine_pair[0].slots = False  # a server that does not say: it drafts nothing, so it is refused after the request
    with pytest.raises(ArenaError, match="drafted nothing.*plain against plain is not a race"):
        _race(engine_pair)


def test_a_plain_endpoint_that_drafts_is_refused(engine_pair):
    engine_pair[1].spec = True
    with pytest.raises(ArenaError, match="plain endpoint .* speculates"):
        _race(engine_pair)


def test_one_llamacpp_endpoint_asks_for_a_plain_partner(engine_pair):
    with pytest.raises(ArenaError, match="--plain-endpoint URL2"):
        race_llamacpp(engine_pair[0].url, None, "x", 4, timeouts=FAST)


def test_a_wrong_model_name_is_one_line(engine_pair):
    with pytest.raises(ArenaError, match="Wrong model name 'other'"):
        _race(engine_pair, model="other")
    engine_pair[1].mode = "model404"
    with pytest.raises(ArenaError, match="does not serve that model"):
        race_openai("vllm", engine_pair[0].url, engine_pair[1].url, "x", 4, timeouts=FAST, model="nope")


def test_stop_closes_the_connection_at_once(engine_pair):
    engine_pair[1].mode, engine_pair[1].clean = "slow", 1  # the race's own plain request hangs, not its warm-up
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    start = time.monotonic()
    race = race_llamacpp(engine_pair[0].url, engine_pair[1].url, "x", len(IDS), stop=stop, timeouts=Timeouts(read=30.0))
    assert time.monotonic() - start < 2  # the fake sleeps 3 s: only a closed connection ends the read sooner
    assert race.result.stopped and race.to_dict()["stopped"] is True
    assert race.result.baseline.token_ids == IDS[:1] and race.result.assisted.token_ids == []


@pytest.mark.parametrize("engine, shape", [("vllm", "choice"), ("vllm", "metrics"), ("sglang", "cumulative"),
                                           ("sglang", "incremental"), ("sglang", "old-names")])
def test_vllm_and_sglang_formats(engine_pair, engine, shape):
    for fake in engine_pair:
        fake.vllm_shape = shape
        fake.sglang_incremental, fake.sglang_old_names = shape == "incremental", shape == "old-names"
    race = race_openai(engine, engine_pair[0].url, engine_pair[1].url, "hello", len(IDS), timeouts=FAST, model="fake")
    out = race.to_dict()
    assert out["identical"] and out["baseline"]["token_ids"] == IDS
    assert out["assisted"]["text"] == "".join(f"t{t} " for t in IDS)
    assert sum(r["accepted"] for r in out["assisted"]["rounds"]) == 4
    if engine == "vllm":  # detailed per-step arrays: exact
        assert race.status_source == rounds.PER_STEP
        assert out["engine"]["reported"]["assisted"]["engine_fields"]["per_step_accepted"] == [2, 2]
    else:  # a histogram only: the engine's counts, laid out in an order it did not report
        assert race.status_source == rounds.COUNTS
        assert out["engine"]["reported"]["assisted"]["engine_fields"]["spec_verify_ct"] == 2


@pytest.mark.parametrize("incremental", [False, True], ids=["cumulative", "incremental"])
def test_sglang_chunks_with_repeated_tokens_keep_every_token(engine_pair, incremental):
    """meta_info.completion_tokens tells cumulative chunks from incremental ones, even when each new chunk starts
    like the tokens so far (a repeated token)."""
    for fake in engine_pair:
        fake.ids, fake.sglang_incremental = [7] * 10, incremental
    race = race_openai("sglang", engine_pair[0].url, engine_pair[1].url, "hello", 10, timeouts=FAST)
    assert race.result.baseline.token_ids == [7] * 10 == race.result.assisted.token_ids
    assert race.result.assisted.text == "t7 " * 10


def test_vllm_streams_a_verify_steps_tokens_in_one_chunk(engine_pair):
    race = race_openai("vllm", engine_pair[0].url, engine_pair[1].url, "hello", len(IDS), timeouts=FAST, model="fake")
    times = race.result.assisted.token_times
    assert times[1] == times[2] == times[3] and times[5] == times[6] == times[7]  # a step's tokens arrive together
    body = engine_pair[0].bodies[-1]
    assert body["return_token_ids"] is True and body["stream_options"] == {"include_usage": True}


def test_vllm_without_per_request_metrics_is_not_a_race(engine_pair):
    engine_pair[0].spec = False
    with pytest.raises(ArenaError, match="per-request-spec-decode-stats.*not a race"):
        race_openai("vllm", engine_pair[0].url, engine_pair[1].url, "x", 4, timeouts=FAST, model="fake")


def test_reports_read_the_engines_field_names():
    sg = adapters.sglang_report({"spec_verify_ct": 3, "spec_accepted_drafts": 2, "spec_proposed_drafts": 9})
    assert (sg.drafted, sg.accepted, sg.steps) == (9, 2, 3)
    assert adapters.vllm_report({"metrics": {}}) is None
    sparse = adapters.vllm_report({"choices": [{"speculative_decoding_stats": {"acceptance_histogram": {"0": 1, "3": 2},
                                                                              "num_spec_tokens": 3}}]})
    assert sparse.histogram == ([1, 0, 0, 2], 3)
    with pytest.raises(ArenaError, match="malformed"):
        adapters.vllm_report({"metrics": {"speculative_decoding": {"num_draft_tokens": "many"}}})
    steps, source = rounds.choose(None, 7, 3)
    assert source == rounds.TOTALS and [(s.drafted, s.accepted) for s in steps] == [(7, 3)]


def test_a_bad_url_is_one_line():
    with pytest.raises(ArenaError, match="not an http"):
        Endpoint("ftp://x").parts()
