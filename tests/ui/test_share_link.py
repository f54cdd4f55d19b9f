"""A share link that is safe to hand out: one way in with the launch's limits, budgets, bounded uploads and exports,
inert downloads (docs/DESIGN.md §4 and §7)."""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import gradio as gr
import httpx
import pytest

from app.bench.runner import Bench, BenchPlan
from app.bench.suite import SuitePrompt
from app.core.errors import ArenaError
from app.core.loader import MODEL_CACHE, LoadOptions, ModelCache
from app.core.presets import get_preset
from app.core.requests import Limits, build_request
from app.core.sources import resolve
from app.planner.plan import PlanOptions, plan_for_preset, plan_work_tokens
from app.core.cells import csv_cell, md_cell
from app.core.words import t
from app.ui.config import UIConfig, parse_args
from app.ui.exports import prune
from app.ui.race.api import parameters
from app.ui.race.controls import CONCURRENT, FAIR
from app.ui.race.session import Session
from app.ui.page import MAX_UPLOAD_BYTES
from app.ui.upload_budget import CACHE_FULL, OVER_BUDGET, Ticket, UploadLedger, UploadLimits
from app.ui.uploads import TOO_LARGE
from app.ui.visitors import BUSY, visitor_key
from tests import fuzzing, page_client, page_events
from tests.app_server import held_races
from tests.helpers import race_controls

PROMPT = "Repeat: red, green, blue."


def _controls(**changes) -> list:
    return race_controls("offline-prompt-lookup", PROMPT, 8, chat_template=True, **changes)


def _last_status(frames: list, ui) -> str:
    return next(f[ui.status] for f in reversed(frames) if ui.status in f)


def _unquoted(line: str) -> str:
    """A status line with its quoted model name taken out (a long one, a test worker's temporary folder, is shortened
    and loses its closing quote: app/core/knobs.py ``shown``)."""
    return re.sub(r"&#x27;.*?(?:&#x27;|\.\.\. \(\d+ characters\))", "X", line)


# ----- one way in ----------------------------------------------------------------------------------------------------
def test_the_safe_side_is_the_default():
    limits = Limits()
    assert not limits.allow_local and not limits.trust_remote_code and limits.work_tokens is not None
    with pytest.raises(ArenaError, match="looks like a local path"):
        resolve("/etc")
    assert LoadOptions().allow_local is False


def test_tune_refuses_a_local_folder_with_the_same_line_as_race(built, tiny, monkeypatch):
    """The probe's finding: Tune loaded and measured a local folder on a server without --allow-local-models."""
    monkeypatch.setattr(gr, "Warning", lambda message: None)
    handlers, ui = built.race.handlers, built.race.ui
    loads = MODEL_CACHE.load_count
    lines = {}
    controls = _controls(target=tiny["llama_target"])
    for name, frames in (("race", lambda: handlers.race_click(Session(), CONCURRENT, *controls)),
                         ("measure", lambda: handlers.race_click(Session(), FAIR, *controls)),
                         ("tune", lambda: handlers.tune_stream(Session(), *controls))):
        lines[name] = _last_status(list(frames()), ui)
    assert len(set(lines.values())) == 1, lines
    assert "looks like a local path" in lines["tune"] and "--allow-local-models" in lines["tune"]
    for folder in ("/etc", os.path.expanduser("~/.ssh"), "/nonexistent"):  # no oracle for which folders exist
        line = _last_status(list(handlers.tune_stream(Session(), *_controls(target=folder))), ui)
        assert _unquoted(line) == _unquoted(lines["tune"]) and folder in line
    assert MODEL_CACHE.load_count == loads


def test_the_planner_page_refuses_local_folders_before_loading(built, tiny, monkeypatch):
    monkeypatch.setattr(gr, "Warning", lambda message: None)
    frames = list(built.planner.handlers.plan_measure(
        SimpleNamespace(cancel=threading.Event(), running=False, plan=None), "offline-uad", "/etc", "", "", 8, 24,
        4096, "bfloat16", "", 720))
    assert "looks like a local path" in str(frames[-1])


def test_the_token_cap_is_checked_where_the_request_is_built():
    """One wording for the cap, however far above it a number is (the probe got two: the knob's own range for
    100000, "above this server's cap" for 600)."""
    for tokens in (17, 600, 100000):
        with pytest.raises(ArenaError, match=f"^request: max_new_tokens must be between 1 and 16; got {tokens}$"):
            build_request("offline-prompt-lookup", "x", {"max_new_tokens": tokens}, limits=Limits(max_new_tokens=16))
    assert build_request("offline-prompt-lookup", "x", {"max_new_tokens": 16}, limits=Limits(max_new_tokens=16))


# ----- budgets -------------------------------------------------------------------------------------------------------
def test_public_pages_get_the_lower_budgets(monkeypatch):
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("SYSTEM", raising=False)
    local, shared = parse_args([]), parse_args(["--share"])
    assert not local.is_public and shared.is_public
    assert shared.limits.work_tokens < local.limits.work_tokens
    assert shared.bench_seconds is not None and local.bench_seconds is None
    monkeypatch.setenv("SPACE_ID", "someone/arena")
    assert parse_args([]).is_public and parse_args(["--no-public"]).is_public is False
    custom = parse_args(["--work-budget-tokens", "1234", "--bench-minutes", "1", "--max-model-gb", "2", "--queue-size", "3"])
    assert (custom.limits.work_tokens, custom.bench_seconds, custom.limits.max_model_bytes, custom.queue_size) == (
        1234, 60, 2_000_000_000, 3)
    assert local.limits.max_model_bytes and local.memory_budget_bytes() > 0  # a default derived from this machine


def test_a_request_over_the_work_budget_is_refused_before_any_load():
    with pytest.raises(ArenaError, match="this server allows 100 per request"):
        build_request("offline-prompt-lookup", "x", {"max_new_tokens": 64}, limits=Limits(work_tokens=100))
    preset = get_preset("offline-prompt-lookup")
    options = PlanOptions(max_new_tokens=512, limits=Limits(work_tokens=8000))
    assert plan_work_tokens(preset, 8, options) > 8000  # the probe's 8 prompts x 512 tokens
    loads = MODEL_CACHE.load_count
    with pytest.raises(ArenaError, match="planner measurement would generate about"):
        plan_for_preset(preset, ["a"] * 8, options)
    assert MODEL_CACHE.load_count == loads


def test_the_benchmark_page_counts_its_work_and_stops_at_its_time_limit():
    preset = get_preset("offline-prompt-lookup")
    prompts = [SuitePrompt(f"p{i}", "qa", f"prompt {i}") for i in range(3)]

    def slow_race(p, prompt, stop):
        stop.wait(5)  # a race that runs until Stop
        return SimpleNamespace(errors={}, stopped=stop.is_set())

    bench = Bench(BenchPlan([preset], prompts, repeats=2, max_new_tokens=10), slow_race, time_limit=0.3)
    assert bench.work_tokens == 2 * (8 + 8) + 6 * (2 * 10 + 16)  # warm-up race, then 6 sequential races
    start = time.monotonic()
    rows = bench.run()
    assert time.monotonic() - start < 3 and bench.timed_out and bench.stopped and rows == []


def test_the_benchmark_tab_refuses_work_over_the_budget(built, monkeypatch):
    monkeypatch.setattr(gr, "Warning", lambda message: None)
    handlers = built.bench.handlers
    handlers.racer_factory = lambda limits: lambda *race: pytest.fail("no race may start")
    config = handlers.config
    handlers.config = UIConfig(work_budget_tokens=500)
    try:
        frames = list(handlers.run(SimpleNamespace(bench=None, progress=None), ["offline-prompt-lookup"], None,
                                   ["qa", "rag"], "all", 2, 1, 64))
    finally:
        handlers.config = config
    assert "this server allows 500 per request" in str(frames[-1])


def test_hub_model_size_is_checked_from_metadata_before_download(monkeypatch):
    """The weights from_pretrained would download are summed from the hub's file metadata (the local hub,
    tests/core/test_hub.py, runs the whole path)."""
    import huggingface_hub

    from app.core import download
    from app.core.hub import check_size, weight_files

    sizes = {"big/model": [("model-00001.safetensors", 9e9), ("model-00002.safetensors", 9e9), ("x.bin", 1e12)],
             "small/model": [("model.safetensors", 2e8), ("config.json", 700)], "old/model": [("pytorch_model.bin", 5e9)],
             "both/model": [("model.safetensors", 2e9), ("consolidated.safetensors", 2e9), ("onnx/model.onnx", 9e9)]}

    def info(repo_id):
        return SimpleNamespace(siblings=[SimpleNamespace(rfilename=n, size=s) for n, s in sizes[repo_id]])

    with pytest.raises(ArenaError, match="18.0 GB of weights; this server loads models of at most 10.0 GB"):
        check_size("big/model", weight_files(info("big/model")), 10_000_000_000)
    with pytest.raises(ArenaError, match="5.0 GB"):
        check_size("old/model", weight_files(info("old/model")), 1_000_000_000)
    check_size("small/model", weight_files(info("small/model")), 1_000_000_000)
    check_size("big/model", weight_files(info("big/model")), None)
    assert weight_files(info("both/model")) == [("model.safetensors", 2e9)]  # the file from_pretrained reads

    def model_info(self, repo_id, revision=None, files_metadata=False, timeout=None):
        return info(repo_id)

    monkeypatch.setattr(huggingface_hub.HfApi, "model_info", model_info)
    monkeypatch.setattr(download, "hub_reachable", lambda: True)
    with pytest.raises(ArenaError, match="at most 1.0 GB"):  # refused before from_pretrained is reached
        ModelCache().get_model("big/model", LoadOptions(max_model_bytes=1_000_000_000))


# ----- visitors, queue, uploads --------------------------------------------------------------------------------------
def test_a_visitor_is_the_connection_whatever_its_headers_say():
    """uvicorn has put a trusted proxy's visitor in ``client`` already (tests/ui/test_popups.py); a header alone decides
    nothing."""
    def request(host, forwarded=None):
        return SimpleNamespace(client=SimpleNamespace(host=host),
                               headers={"x-forwarded-for": forwarded} if forwarded else {})

    assert visitor_key(request("127.0.0.1")) == "127.0.0.1"
    assert visitor_key(request("10.0.0.2", "81.2.69.160")) == "10.0.0.2"
    assert visitor_key(request("81.2.69.160", "1.1.1.1, 10.0.0.9")) == "81.2.69.160"
    assert visitor_key(SimpleNamespace(client=None, headers={})) == "unknown"


def test_one_job_per_visitor_on_a_public_page(monkeypatch):
    """A second job from the same visitor, while one is running, is refused with one line; another visitor queues."""
    with page_events.public_page(max_new_tokens_cap=64, queue_size=5) as (url, app):
        assert app.demo._queue.max_size == 5 and app.demo.max_file_size and app.demo.delete_cache
        race = next(e for e in page_events.queued_events(app.demo) if e["name"] == "race")
        names = [p.name for p in parameters()]
        data = [p["props"].get("value") for p in race["inputs"]]
        data[names.index("prompt")], data[names.index("max_new_tokens")] = "Count: one, two, three, four,", 8
        with httpx.Client(timeout=60, headers={"X-Forwarded-For": "81.2.69.160"}) as http:
            first = threading.Thread(target=page_events.send, args=(http, url, race["fn_index"], data, 120))
            try:
                with held_races(monkeypatch) as wait_started:  # the first race runs until the second is answered
                    first.start()
                    wait_started()
                    outcome, detail = page_events.send(http, url, race["fn_index"], data, 60)
                    assert outcome == "clean_errors" and t(BUSY) in detail, detail
            finally:
                first.join(120)
        with httpx.Client(timeout=60, headers={"X-Forwarded-For": "81.2.69.160"}) as http:
            for _ in range(3):  # free again, also for a client that asks again the moment it has its answer
                assert page_events.send(http, url, race["fn_index"], data[:1] + ["x"] + data[2:], 120)[0] == "results"


@pytest.fixture
def upload_folder(tmp_path, monkeypatch) -> Path:
    """gradio's upload cache in a folder of the test's own (gradio reads GRADIO_TEMP_DIR as a page launches)."""
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path))
    return tmp_path


def _stored_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _upload(http: httpx.Client, url: str, size: int, name: str = "t.json") -> httpx.Response:
    """One upload request of `size` random bytes (distinct content every time: no content-hash folder is shared)."""
    return http.post(f"{url}/gradio_api/upload", files=[("files", (name, os.urandom(size)))])


def test_one_visitor_cannot_fill_the_disk_with_uploads(upload_folder):
    """The probe: eight uploads of 15 MB of random bytes from one client all answered 200 and stayed on disk for hours.
    A public page takes 64 MB from a visitor per 10 minutes: four of them; the other four get one line and store
    nothing, while another visitor still uploads. A streamed upload over the request's cap leaves no partial file."""
    with page_events.public_page() as (url, app):
        with httpx.Client(timeout=120, headers={"X-Forwarded-For": "81.2.69.160"}) as http:
            answers = [_upload(http, url, 15_000_000, f"t{i}.json") for i in range(8)]
        assert [a.status_code for a in answers] == [200] * 4 + [429] * 4, [a.text[:100] for a in answers]
        assert {a.text for a in answers[4:]} == {t(OVER_BUDGET, mb="64", minutes="10")}
        assert _stored_bytes(upload_folder) == 4 * 15_000_000
        with httpx.Client(timeout=120, headers={"X-Forwarded-For": "100.64.0.7"}) as other:
            assert _upload(other, url, 1_000_000).status_code == 200
            streamed = other.post(f"{url}/gradio_api/upload", content=iter([
                b"--x\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.json\"\r\n\r\n",
                *[os.urandom(1_000_000) for _ in range(MAX_UPLOAD_BYTES // 1_000_000 + 2)]]),  # no length
                headers={"Content-Type": "multipart/form-data; boundary=x"})
        assert streamed.status_code == 413 and streamed.text == t(TOO_LARGE, mb="16")
        assert _stored_bytes(upload_folder) == 4 * 15_000_000 + 1_000_000  # nothing of the refused uploads


def test_the_upload_cache_has_a_total_and_unused_uploads_go_early(upload_folder):
    """Every visitor within their own budget still cannot pass the cache's total; an upload no event used is removed
    long before gradio's 6-hour sweep, one an event received stays."""
    with page_events.public_page(upload_budget_mb=3, upload_cache_mb=4.5) as (url, app):
        answers = {}
        for visitor, last in (("100.64.0.1", 1_000_000), ("100.64.0.2", 600_000)):
            with httpx.Client(timeout=60, headers={"X-Forwarded-For": visitor}) as http:
                answers[visitor] = [_upload(http, url, size, f"{visitor}-{size}.json")
                                    for size in (1_000_000, 1_000_000, last)]
        first, second = answers["100.64.0.1"], answers["100.64.0.2"]
        assert [a.status_code for a in first + second] == [200, 200, 429] * 2
        assert first[2].text == t(OVER_BUDGET, mb="3", minutes="10")  # over the first visitor's own 3 MB
        assert second[2].text == t(CACHE_FULL, mb="4.5")  # 2.6 MB is within the second's budget, 4.6 over the total
        assert _stored_bytes(upload_folder) == 4_000_000
        kept = first[0].json()[0]
        replay = page_client.event_named(app.demo.get_config_file(), "uploaded")  # the Replay tab's upload box
        value = {"path": kept, "orig_name": "t.json", "meta": {"_type": "gradio.FileData"}}
        with httpx.Client(timeout=60) as http:
            page_client.send(http, url, replay["fn_index"], [value], 60)  # a trace it refuses: it received the file
            app.uploads.limits = replace(app.uploads.limits, unused=0.0)  # as if the uploads were hours old
            assert http.get(f"{url}/config").status_code == 200  # any request lets the page sweep
        assert [p for p in upload_folder.glob("*/*") if p.is_file()] == [Path(kept)]  # uploads: in content-hash folders
        with httpx.Client(timeout=60, headers={"X-Forwarded-For": "100.64.0.3"}) as http:
            assert _upload(http, url, 1_000_000).status_code == 200  # room again


def test_a_visitor_s_upload_budget_slides_with_its_window():
    now = [0.0]
    ledger = UploadLedger(UploadLimits(per_visitor=100, window=60), clock=lambda: now[0])
    ledger.settle(ledger.admit("v", 60), 60, [])
    assert ledger.admit("v", 60) == OVER_BUDGET and isinstance(ledger.admit("w", 60), Ticket)
    now[0] = 61.0  # the first upload left the window
    assert isinstance(ledger.admit("v", 60), Ticket)


def test_exports_are_pruned_by_count_and_age(tmp_path):
    for i in range(7):
        (tmp_path / f"f{i}.json").write_text("x")
        os.utime(tmp_path / f"f{i}.json", (time.time() - 100 + i, time.time() - 100 + i))
    (tmp_path / "folder").mkdir()
    os.utime(tmp_path / "folder", (time.time() - 10_000, time.time() - 10_000))
    assert prune(tmp_path, keep=5, max_age=3600) == 3  # the old folder and the two oldest files
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"f{i}.json" for i in range(2, 7)]


# ----- downloads -----------------------------------------------------------------------------------------------------
def test_download_cells_are_inert():
    assert md_cell("a|b") == "a\\|b" and "<" not in md_cell("<img src=x onerror=alert(1)>")
    assert md_cell("[x](javascript:alert(1))").startswith("\\[x\\]") and "\n" not in md_cell("a\nb")
    assert md_cell("the engine's machine") == "the engine's machine"  # a reason in a bench summary reads as written
    for formula in ("=HYPERLINK(\"http://x\")", "+1", "-2+3", "@SUM(A1)"):
        assert csv_cell(formula) == "'" + formula
    assert csv_cell(-2.5) == -2.5 and csv_cell("plain") == "plain"


def test_package_models_get_one_message_whether_the_package_or_the_file_is_missing():
    missing_package = str(pytest.raises(ArenaError, resolve, "pypi:no-such-dist/x.gguf").value)
    missing_file = str(pytest.raises(ArenaError, resolve, "pypi:pip/x.gguf").value)
    assert missing_package.replace("no-such-dist", "D") == missing_file.replace("pip", "D")


# ----- every queued event, fuzzed -------------------------------------------------------------------------------------
PER_EVENT = 22  # about 25 events: over 500 inputs in all


@pytest.mark.slow
def test_every_queued_event_of_the_page_survives_hostile_input():
    counts = fuzzing.Counts()
    with fuzzing.offline_hub(), fuzzing.watching_logs() as logged, fuzzing.raw_json_client(), \
            page_events.public_page(max_new_tokens_cap=16, work_budget_tokens=300) as (url, app):
        sent = page_events.fuzz_page(url, app.demo, PER_EVENT, counts, logged)
    print("\n" + counts.line("page events") + f" over {len(sent)} events")
    for problem in counts.problems:
        print("  " + problem)
    assert len(sent) == len(page_events.queued_events(app.demo)) >= 20 and counts.tried >= 500
    assert counts.tracebacks == 0 and counts.hangs == 0, counts.problems
    assert counts.results >= 50 and counts.clean_errors >= 100, counts.line("page events")
