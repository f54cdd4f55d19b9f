"""Hostile inputs and cancelled jobs (issue 12): one regression test per defect a probe of the running app found.

Two in-process servers: ``local`` allows local folders (so races run on the tiny models, long enough to be
cancelled mid-way) and ``remote`` is launched as a share link would be (hub ids only). Every bad input must
come back as one clean line that names where the value came from, never a traceback or a misleading result.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import gradio_client
import pytest

from app.cli import main
from app.core.errors import ArenaError
from app.core.hub import unknown_model
from app.core.knobs import FLAG, REQUEST, Origin
from app.core.requests import build_request, read_text_file
from app.core.sources import MAX_ID_CHARS, resolve
from app.race.result import AssistedResult, RaceResult, SideResult
from app.race import _sides, lifecycle
from tests.app_server import launched, wait_until
from tests.fuzzing import raw_json_client
from tests.helpers import ROOT

PROMPT = "The cat likes the dog and the dog likes the cat"
OUR_THREADS = ("race-", "api-")
GENERIC = "verbose error reporting"  # gradio's message for an exception that is not a gr.Error


@pytest.fixture(scope="module")
def local(tiny):
    """(client, url) of a server that allows local folders, with a high token cap so a race can run for seconds."""
    with launched(allow_local_models=True, max_new_tokens_cap=4096, concurrency_limit=1) as (url, _):
        yield gradio_client.Client(url, verbose=False), url


@pytest.fixture(scope="module")
def remote():
    """A client of a server launched as a share link is: hub ids only, a small token cap."""
    with launched(max_new_tokens_cap=16) as (url, _):
        with raw_json_client():  # lone surrogates and NaN reach the server, as from a raw HTTP client
            yield gradio_client.Client(url, verbose=False)


@pytest.fixture
def races(monkeypatch):
    """Every race (app/race/lifecycle.py ``RaceRun``) the API endpoints create during the test."""
    made, real = [], lifecycle.RaceRun.__init__

    def recorded(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(lifecycle.RaceRun, "__init__", recorded)
    return made


def sides(race) -> list:
    """The race's two sides as a follower sees them (none before it starts)."""
    snap = race.snapshot()
    return [] if snap is None else list(snap.sides.values())


def our_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith(OUR_THREADS)]


def wait_for(condition, timeout: float = 120.0, what: str = "condition") -> None:
    wait_until(condition, timeout, f"timed out waiting for {what}", interval=0.02)


def long_race(tiny) -> dict:
    """A prompt-lookup race on the tiny model that would take far longer than the test waits (it never hits EOS)."""
    return dict(preset="prompt-lookup", target=tiny["llama_target"], prompt=PROMPT, max_new_tokens=4000,
                prompt_lookup_num_tokens=3, chat_template=False, api_name="/race")


def api_error(call) -> str:
    with pytest.raises(Exception) as info:
        call()
    message = str(info.value)
    assert GENERIC not in message and "Traceback" not in message and "\n" not in message.strip(), message
    return message


def cli_error(capsys, *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and lines[0].startswith("error: "), (code, out, err)
    return lines[0]


# ----- 1. cancel means stop ----------------------------------------------------------------------------------------
def assert_stopped(race) -> None:
    assert race.join(60), "a generate() thread kept running after its job was cancelled"
    wait_for(lambda: sides(race) and all(s.done for s in sides(race)), 30, "the reader to see both sides end")
    assert any(s.stopped for s in sides(race)), "the race ran to its end instead of being stopped"
    assert max(len(s.tokens) for s in sides(race)) < 4000


def test_a_cancelled_api_race_stops_both_generate_threads(local, races, tiny):
    client, _ = local
    client.predict(**{**long_race(tiny), "max_new_tokens": 4})  # loads the model; its threads end
    wait_for(lambda: not our_threads(), 30, "the warm-up race's threads to end")
    for _ in range(3):  # a small storm: each cancelled race must stop, none may pile up
        before = len(races)
        job = client.submit(**long_race(tiny))
        wait_for(lambda: len(races) > before and sides(races[-1]) and sides(races[-1])[0].tokens,
                 what="the race to start")
        assert job.cancel()
        assert_stopped(races[-1])
    wait_for(lambda: not our_threads(), 30, "the API and race threads to end")
    after = client.predict(**{**long_race(tiny), "max_new_tokens": 6})  # the slot is free and the next race runs
    assert after["assisted"]["new_tokens"] == 6 and after["identical"] is True


def test_a_disconnected_api_client_stops_its_race(local, races, tiny):
    """A client process that dies mid-race (its event stream open, as any client that waits for the result)."""
    _, url = local
    job = long_race(tiny)
    script = ("import gradio_client, time\n"
              f"c = gradio_client.Client({url!r}, verbose=False)\n"
              f"j = c.submit(preset='prompt-lookup', target={job['target']!r}, prompt='x y x y x y', "
              "max_new_tokens=4000, prompt_lookup_num_tokens=3, chat_template=False, api_name='/race')\n"
              "while not j.outputs(): time.sleep(0.02)\n"  # the first keep-alive update arrived: the stream is open
              "print('streaming', flush=True)\n"
              "time.sleep(600)\n")
    client = subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                              stdout=subprocess.PIPE, text=True)
    try:
        assert client.stdout.readline().strip() == "streaming"
        assert races and not (sides(races[-1]) and all(s.done for s in sides(races[-1])))  # not over (maybe loading)
    finally:
        client.kill()
        client.wait(30)
    assert_stopped(races[-1])


def test_the_endpoint_result_is_still_the_contract_dict(local, tiny):
    client, _ = local
    result = client.predict(**{**long_race(tiny), "max_new_tokens": 5})
    assert isinstance(result, dict) and result["mode"] == "concurrent" and result["assisted"]["new_tokens"] == 5
    job = client.submit(**{**long_race(tiny), "max_new_tokens": 3})
    assert job.result(timeout=120)["baseline"]["new_tokens"] == 3
    assert all(o is None or isinstance(o, dict) for o in job.outputs())  # keep-alive updates are None


# ----- 2. seeds outside 0..2**63-1 -----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [2 ** 70, -2 ** 63 - 1, 2 ** 63, -1, 10 ** 400],
                         ids=["2**70", "-2**63-1", "2**63", "-1", "10**400"])
def test_seeds_outside_64_bits_are_clean_errors(remote, capsys, seed):
    for endpoint in ("/race", "/measure"):
        message = api_error(lambda: remote.predict(prompt="x", seed=seed, api_name=endpoint))
        assert "request: seed must be between 0 and 9223372036854775807" in message
    line = cli_error(capsys, "race", "--preset", "offline-prompt-lookup", "--prompt", "x", "--seed", str(seed))
    assert "--seed" in line and "between 0 and 9223372036854775807" in line


def test_the_largest_seed_is_accepted():
    assert build_request("offline-prompt-lookup", "x", {}, 2 ** 63 - 1).seed == 2 ** 63 - 1
    assert build_request("offline-prompt-lookup", "x", {}, "").seed is None


# ----- 3. model ids longer than 255 characters, odd characters --------------------------------------------------------
LONG_IDS = ["a" * 500, "owner/" + "b" * 300, "a" * (MAX_ID_CHARS + 1)]
ODD_IDS = ["a\x00b", "a\nb/c", "\u202eevil/model", "bad id with spaces", "\u6a21\u578b/\u540d", "a/b/c", "../up",
           "/etc", "~root/x", "C:\\models\\x", "pypi:pip/x.gguf", "x" * 40 + "\ud800"]


@pytest.mark.parametrize("field", ["target", "assistant"])
def test_long_model_ids_are_refused_before_any_filesystem_call(remote, capsys, field, monkeypatch):
    message = api_error(lambda: remote.predict(preset="drafter", prompt="x", **{field: "a" * 500}, api_name="/race"))
    assert f"request: {field} is 500 characters long; a model id has at most 255" in message
    line = cli_error(capsys, "race", "--preset", "drafter", "--prompt", "x", f"--{field}", "a" * 500)
    assert f"--{field} is 500 characters long" in line

    def no_filesystem(*args, **kwargs):
        raise AssertionError("a filesystem call was made for an over-long id")

    monkeypatch.setattr(os.path, "lexists", no_filesystem)
    monkeypatch.setattr("pathlib.Path.is_dir", no_filesystem)
    for spec in LONG_IDS:
        for allow_local in (True, False):
            with pytest.raises(ArenaError, match=f"at most {MAX_ID_CHARS}"):
                resolve(spec, allow_local=allow_local)


def test_long_and_odd_ids_on_the_planner_are_clean_errors(remote):
    message = api_error(lambda: remote.predict(preset="offline-uad", target="a" * 500, max_new_tokens=8,
                                               api_name="/plan"))
    assert "target is 500 characters long" in message
    for spec in ODD_IDS:
        api_error(lambda: remote.predict(preset="offline-uad", target=spec, max_new_tokens=8, api_name="/plan"))


@pytest.mark.parametrize("spec", ODD_IDS)
def test_odd_model_ids_are_clean_errors_everywhere(remote, capsys, spec):
    api_error(lambda: remote.predict(preset="drafter", prompt="x", target=spec, api_name="/race"))
    if "\x00" not in spec and "\ud800" not in spec:  # a real command line cannot carry these
        cli_error(capsys, "race", "--preset", "drafter", "--prompt", "x", "--target", spec)
    with pytest.raises(ArenaError) as info:
        resolve(spec, allow_local=False)
    assert "\n" not in str(info.value) and "\x00" not in str(info.value)
    try:  # with local folders allowed, an existing folder (/etc) resolves; anything else is a clean error
        resolve(spec, allow_local=True)
    except ArenaError as exc:
        assert "\n" not in str(exc) and "\x00" not in str(exc)


# ----- 4. /plan with a non-numeric alpha ------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", ["abc", "", "nan", "1e999", [0.5], {"a": 1}])
def test_plan_with_a_non_numeric_alpha_is_a_clean_error(remote, alpha):
    message = api_error(lambda: remote.predict(alpha=alpha, c=0.05, api_name="/plan"))
    assert "alpha" in message


def test_plan_calculator_still_works(remote):
    plan = remote.predict(alpha=0.8, c=0.05, api_name="/plan")
    assert plan["mode"] == "calculator" and plan["best_gamma"] == 8


# ----- 5. --prompt-file /dev/zero -------------------------------------------------------------------------------------
def test_prompt_file_dev_zero_is_a_bounded_read(capsys):
    line = cli_error(capsys, "race", "--preset", "offline-prompt-lookup", "--prompt-file", "/dev/zero")
    assert "is larger than 1000 kB" in line
    with pytest.raises(ArenaError, match="larger than 1 kB"):
        read_text_file("/dev/zero", max_bytes=1000)


def test_prompt_file_with_odd_names_is_a_clean_error():
    for name in ("a\x00b", "\ud800", "x" * 5000):
        with pytest.raises(ArenaError, match="Cannot read prompt file"):
            read_text_file(name)


# ----- 6. an error makes the whole result an error --------------------------------------------------------------------
def failed_result() -> RaceResult:
    return RaceResult(preset="p", method="drafter", target="t", assistant="a", mode="concurrent", do_sample=False,
                      device="cpu", baseline=SideResult(), assisted=AssistedResult(),
                      errors={"baseline": "boom", "assisted": "boom"})


def test_a_failed_result_claims_neither_identical_nor_a_speedup():
    result = failed_result()
    with pytest.raises(ArenaError, match="^baseline and assisted failed: boom$"):
        result.raise_if_failed()
    data = result.to_dict()
    assert data["identical"] is False and data["speedup"] == 0.0 and data["errors"]


@pytest.fixture
def failing_assisted_side(monkeypatch):
    """Make every assisted generate() call fail the way a bad setting would."""
    real = _sides.generate_call

    def fail(setup, assisted, *args, **kwargs):
        if assisted:
            raise ArenaError("the assisted side failed on purpose")
        return real(setup, assisted, *args, **kwargs)

    monkeypatch.setattr(_sides, "generate_call", fail)


def test_a_failed_side_is_an_api_error_not_a_result(local, tiny, failing_assisted_side):
    client, _ = local
    for endpoint in ("/race", "/measure"):
        message = api_error(lambda: client.predict(**{**long_race(tiny), "max_new_tokens": 4, "api_name": endpoint}))
        assert "assisted failed: the assisted side failed on purpose" in message


def test_a_failed_side_is_the_same_line_on_the_page_in_the_visitor_s_language(local_built, tiny, failing_assisted_side):
    """The Race button's last status says what the API and the CLI say (RaceResult.failure), and in Korean it is that
    line translated (the page once wrote its own English "assisted: ..." line, which no catalog could translate)."""
    from app.core.words import speaking
    from app.ui.race.controls import CONCURRENT
    from app.ui.race.session import Session
    from tests.helpers import race_controls

    ui, handlers = local_built.race.ui, local_built.race.handlers
    controls = race_controls("prompt-lookup", PROMPT, 4, target=tiny["llama_target"], chat_template=False)
    lines = {}
    for lang in ("en", "ko"):
        with speaking(lang):
            frames = list(handlers.race_click(Session(), CONCURRENT, *controls))
        lines[lang] = next(f[ui.status] for f in reversed(frames) if ui.status in f)
    assert "status-error" in lines["en"] and "assisted failed: the assisted side failed on purpose" in lines["en"]
    assert "assisted failed" not in lines["ko"] and "the assisted side failed on purpose" in lines["ko"]


def test_a_failed_side_is_cli_exit_2_with_one_line(capsys, tiny, failing_assisted_side):
    for extra in ([], ["--json"], ["--sequential"]):
        line = cli_error(capsys, "race", "--preset", "prompt-lookup", "--target", tiny["llama_target"],
                         "--no-chat-template", "--prompt", PROMPT, "--max-new-tokens", "4", *extra)
        # the warm-up of --sequential fails before either side runs, so it names both
        assert line.endswith("failed: the assisted side failed on purpose"), line


# ----- 7. messages name where the bad value came from -----------------------------------------------------------------
def test_range_errors_blame_the_request_the_flag_or_the_preset_file(remote, capsys):
    message = api_error(lambda: remote.predict(prompt="x", prompt_lookup_num_tokens=999, api_name="/race"))
    assert "request: prompt_lookup_num_tokens must be between 1 and 64; got 999" in message
    assert ".yaml" not in message
    line = cli_error(capsys, "race", "--preset", "offline-prompt-lookup", "--prompt", "x",
                     "--prompt-lookup-num-tokens", "999")
    assert "--prompt-lookup-num-tokens" in line and ".yaml" not in line
    from app.core.presets import get_preset

    with pytest.raises(ArenaError, match=r"^mine\.yaml: field 'prompt_lookup_num_tokens'"):
        get_preset("offline-prompt-lookup").with_overrides({"prompt_lookup_num_tokens": 999}, Origin("preset", "mine.yaml"))
    for origin, start in ((REQUEST, "request: target"), (FLAG, "--target")):
        with pytest.raises(ArenaError, match=f"^{start}"):
            build_request("drafter", "x", {"target": "a" * 300}, origin=origin)


# ----- 8. unknown ids get one message whether or not a folder of that name exists ------------------------------------
def test_unknown_ids_get_one_message_whether_or_not_a_folder_exists(remote, tmp_path, monkeypatch):
    (tmp_path / "shadow-model").mkdir()
    (tmp_path / "owner" / "shadow").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)  # the in-process server's working directory
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from app.core.sources import hub_reachable

    hub_reachable.cache_clear()
    try:
        messages = {}
        for spec in ("shadow-model", "no-such-model-here", "owner/shadow", "owner/no-such-model"):
            message = api_error(lambda: remote.predict(preset="offline-prompt-lookup", prompt="x", target=spec,
                                                       max_new_tokens=8, api_name="/race"))
            messages[spec] = message.replace(spec, "ID")
            planner = api_error(lambda: remote.predict(preset="offline-uad", target=spec, max_new_tokens=8,
                                                       api_name="/plan"))
            assert planner.replace(spec, "ID") == str(unknown_model("ID"))
        assert len(set(messages.values())) == 1, messages
        assert messages["shadow-model"] == str(unknown_model("ID"))
    finally:
        hub_reachable.cache_clear()
    assert resolve(str(tmp_path / "shadow-model"), allow_local=True).kind == "local"  # allowed by the launch flag


# ----- 9. a refusal is one sentence: one wording for the token cap, the value as the caller wrote it ------------------
@pytest.mark.parametrize("tokens", [17, 600, 100000])
def test_the_token_cap_is_one_sentence_on_every_endpoint(remote, tokens):
    """The probe got "must be between 1 and 4096" for 100000 and "above this server's cap of 512" for 600 (the
    planner names its fields as its form does)."""
    for endpoint, name in (("/race", "request: max_new_tokens"), ("/measure", "request: max_new_tokens"),
                           ("/plan", "Max new tokens")):
        kwargs = {"preset": "offline-uad"} if endpoint == "/plan" else {"prompt": "x"}
        message = api_error(lambda: remote.predict(**kwargs, max_new_tokens=tokens, api_name=endpoint))
        assert message == f"{name} must be between 1 and 16; got {tokens}", message


def test_a_named_api_refusal_is_plain_text(remote):
    """Nothing draws a named API's refusal as HTML: the value comes back as it was sent, not escaped."""
    message = api_error(lambda: remote.predict(preset="<img src=x onerror=alert(1)>", prompt="x", api_name="/race"))
    assert "Unknown preset '<img src=x onerror=alert(1)>'" in message and "&lt;" not in message
