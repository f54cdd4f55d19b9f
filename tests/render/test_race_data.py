"""The race's data for the player (app/render/race_data.py, app/render/live.py): what a frame holds, that each token is
encoded once and that consecutive frames differ only by what is new, so gradio's streaming diff sends only that."""

from __future__ import annotations

from gradio.utils import diff

from app.race.protocol import RaceSnapshot, SideSnapshot
from app.race.protocol import Round, Token
from app.race.result import AssistedResult, RaceResult, SideResult
from app.render.live import LiveFrames, side_phase
from app.render.race_data import (T_STATUS_INDEX, SideCodec, player_words, idle_data, recorded_data, round_item,
                                  token_item)

TOKENS = [Token(1, "The", "resampled", 0.5, 0.4), Token(2, " cat", "accepted", 0.9), Token(3, " sat", "accepted"),
          Token(4, " on", "bonus"), Token(5, "</s>", "target", special=True)]
TIMES = [0.1, 0.2, 0.2, 0.2, 0.3]
ROUNDS = [Round(3, 0, 'A "dog" <b>', rejected_p_target=0.1234, rejected_p_draft=0.5), Round(2, 2, ""), Round(0, 0, "")]


def _snap(n_assisted: int, n_rounds: int, *, assisted_done: bool = False, baseline_done: bool = True,
          sequential: bool = True, kept: float | None = None) -> RaceSnapshot:
    base = [Token(i, f" b{i}", "target") for i in range(5)]
    baseline = SideSnapshot(tuple(base), (), tuple(TIMES), 0.1, 0.3 if baseline_done else 0.0, None, baseline_done,
                            False, True, 0.3)
    assisted = SideSnapshot(tuple(TOKENS[:n_assisted]), tuple(ROUNDS[:n_rounds]), tuple(TIMES[:n_assisted]), 0.1,
                            0.3 if assisted_done else 0.0, None, assisted_done, False, True, 0.25)
    return RaceSnapshot(sequential, {"baseline": baseline, "assisted": assisted}, kept)


def test_a_token_is_id_text_status_time_probabilities_and_marker():
    assert token_item(TOKENS[0], 0.12345, True) == [1, "The", "resampled", 0.1235, 0.5, 0.4, None]
    assert token_item(TOKENS[1], 0.2, False)[T_STATUS_INDEX] == "target"  # every baseline token is the target's
    assert token_item(TOKENS[4], 0.3, True)[-1] == "\u23ce end"  # a special token shows a small marker
    assert token_item(Token(6, "x", "no-such-status"), 0.0, True)[T_STATUS_INDEX] == "target"
    assert round_item(ROUNDS[0]) == [3, 0, 'A "dog" <b>', 0.123, 0.5]  # text as it is: the player sets textContent


def test_each_token_is_encoded_once_and_every_frame_is_a_fresh_list():
    codec = SideCodec(True)
    first, _ = codec.encode(TOKENS[:3], TIMES[:3], ROUNDS[:1])
    second, rounds = codec.encode(TOKENS, TIMES, ROUNDS)
    assert first is not second and len(rounds) == 3
    assert first[0] is second[0] and first[1] is second[1]  # kept, not re-encoded
    assert second[2] is not first[2]  # the newest token of the last frame is re-encoded (its text may grow)
    grown = [Token(t.id, t.text, t.status) for t in TOKENS]
    grown[-1].text += "!"  # a side's end flushes the rest of its text into its last token
    assert codec.encode(grown, TIMES, ROUNDS)[0][-1][1] == "</s>!"


def test_consecutive_frames_differ_only_by_what_is_new():
    """gradio sends a streaming event's output as the diff from the last one (gradio.utils.diff): new tokens are
    'add' edits of the token list; nothing already sent goes out again."""
    frames = LiveFrames(("plain", "assisted"), sequential=True, max_tokens=8)
    early = frames.frame(_snap(2, 1))
    later = frames.frame(_snap(5, 3, assisted_done=True))
    edits = diff(early, later)
    token_edits = [e for e in edits if e[1][:3] == ["sides", "assisted", "tokens"]]
    assert [e[0] for e in token_edits] == ["add", "add", "add"] and {e[1][3] for e in token_edits} == {2, 3, 4}
    assert not [e for e in edits if e[1][:2] == ["sides", "baseline"] and e[1][2] in ("tokens", "rounds")]
    assert not [e for e in edits if e[1] == ["words"]]  # the player's words go once, with the first frame


def test_a_frame_says_what_each_side_is_doing():
    frames = LiveFrames(("plain", "assisted"), sequential=True, max_tokens=8)
    data = frames.frame(_snap(2, 1, kept=1_700_000_000.0))
    assert data["v"] == 1 and data["mode"] == "sequential" and data["state"] == "racing" and data["clock"] == "live"
    assert data["kept"] and data["words"] == player_words() and data["words"]["phase"]["running"] == "racing"
    b, a = data["sides"]["baseline"], data["sides"]["assisted"]
    assert (b["phase"], a["phase"], a["max"], len(a["tokens"]), len(a["rounds"])) == ("done", "running", 8, 2, 1)
    assert a["started"] and a["elapsed"] == 0.25 and a["seconds"] is None and b["seconds"] == 0.3
    assert frames.frame(None)["sides"]["assisted"]["phase"] == "warmup"
    assert LiveFrames(("p", "a"), True, 8).race_id != frames.race_id  # the player starts over for a new race


def test_phases():
    waiting = SideSnapshot()
    assert side_phase(waiting, sequential=True, baseline_started=False) == "warmup"
    assert side_phase(waiting, sequential=True, baseline_started=True) == "waiting"
    assert side_phase(waiting, sequential=False, baseline_started=False) == "running"
    assert side_phase(SideSnapshot(done=True, error="boom"), True, True) == "error"
    assert side_phase(SideSnapshot(done=True, stopped=True), True, True) == "stopped"


def _result(**changes) -> RaceResult:
    fields = dict(preset="p", method="prompt-lookup", target="t", assistant=None, mode="sequential", do_sample=False,
                  device="cpu", baseline=SideResult("abcde", [1, 2, 3, 4, 9], 0.4, 0.1, [0.1, 0.2, 0.3, 0.35, 0.4],
                                                    ["a", "b", "c", "d", "e"]),
                  assisted=AssistedResult("x", [1, 2, 3, 4, 5], 0.3, 0.1, TIMES, [t.text for t in TOKENS],
                                          tokens=TOKENS, rounds=ROUNDS))
    fields.update(changes)
    return RaceResult(**fields)


def test_a_finished_race_is_whole_with_its_divergence_and_final_figures():
    frames = LiveFrames(("plain", "assisted"), sequential=True, max_tokens=8)
    frames.frame(_snap(2, 1))
    data = frames.finished(_result())
    assert data["state"] == "finished" and data["diverge_at"] == 4
    b, a = data["sides"]["baseline"], data["sides"]["assisted"]
    assert [t[1] for t in b["tokens"]] == ["a", "b", "c", "d", "e"] and b["seconds"] == 0.4
    assert [t[2] for t in a["tokens"]] == [t.status for t in TOKENS] and len(a["rounds"]) == 3
    failed = frames.failed("baseline failed: boom")
    assert {s["phase"] for s in failed["sides"].values()} == {"error"} and failed["state"] == "finished"
    assert LiveFrames(("p", "a"), True, 8).failed("boom")["sides"]["assisted"]["message"] == "boom"


def test_a_recording_replays_a_fair_race_as_it_was_raced():
    fair = recorded_data(_result(), ["a", "b", "c", "d", "e"], 8, ("plain", "assisted"))
    assert fair["clock"] == "recorded" and fair["plain_first"] is True and fair["kept"] is None
    kept = recorded_data(_result(baseline_kept_at=1_700_000_000.0), list("abcde"), 8, ("plain", "assisted"))
    assert kept["plain_first"] is False and kept["kept"]  # plain's run was kept: assisted raced it from zero
    both = recorded_data(_result(mode="concurrent"), list("abcde"), 8, ("plain", "assisted"))
    assert both["plain_first"] is False and both["mode"] == "concurrent"
    assert [t[3] for t in fair["sides"]["baseline"]["tokens"]] == [0.1, 0.2, 0.3, 0.35, 0.4]


def test_the_panes_start_empty():
    data = idle_data()
    assert {s["phase"] for s in data["sides"].values()} == {"idle"} and not data["sides"]["assisted"]["tokens"]
