"""Traces and the replay page without a browser: save and load round trip, the page's events equal the race's,
nothing is loaded from the network, and every malformed trace is one clean line (docs/DESIGN.md §4)."""

from __future__ import annotations

import ast
import copy
import html
import json
import random
import re
from html.parser import HTMLParser

import pytest

from app.cli import main
from app.core.errors import ArenaError
from app.core.words import speaking
from app.render.replay_page import replay_html
from app.replay.gallery import GALLERY_DIR, load_gallery
from app.replay.tracefile import FORMAT, VERSION, load_trace, parse_trace, save_trace
from tests.helpers import ROOT
from tests.page_texts import english_left

PROMPT = "The cat likes"


def race_args(tiny, *extra: str) -> list[str]:
    return ["race", "--preset", "drafter", "--target", tiny["llama_target"], "--assistant", tiny["llama_drafter"],
            "--prompt", PROMPT, "--max-new-tokens", "16", "--num-assistant-tokens", "3", *extra]


@pytest.fixture(scope="module")
def recorded(tiny, tmp_path_factory, one_torch_thread):
    """(the --json result, the trace file) of one tiny-model race run with --json --save-trace."""
    path = tmp_path_factory.mktemp("trace") / "race.json"
    import io
    from contextlib import redirect_stdout

    out = io.StringIO()
    with redirect_stdout(out):
        code = main(race_args(tiny, "--json", "--save-trace", str(path)))
    assert code == 0
    return json.loads(out.getvalue()), path


class Tags(HTMLParser):
    """Every tag and its attributes."""

    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def parse_page(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    return tags


def embedded_race(page: str) -> dict:
    """The race's data a replay page's player draws (app/render/race_data.py)."""
    return json.loads(re.search(r'<script type="application/json" id="race-data">(.*?)</script>', page, re.S).group(1))


# ----- round trip ------------------------------------------------------------------------------------------
def test_save_trace_with_json_round_trips(recorded):
    printed, path = recorded
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT and data["version"] == VERSION and data["prompt"] == PROMPT
    assert {"device", "device_name", "dtype", "torch", "transformers", "gradio", "python", "threads_per_side",
            "cores"} <= set(data["environment"])
    assert data["settings"]["preset"] == "drafter" and data["settings"]["knobs"]["num_assistant_tokens"] == 3
    assert data["settings"]["mode"] == "concurrent" and data["settings"]["max_new_tokens"] == 16
    texts = data["result"]["baseline"].pop("token_texts")
    assert data["result"] == printed  # the trace's result is the --json object plus the baseline texts
    trace = load_trace(path)
    a, b = trace.result.assisted, trace.result.baseline
    assert [t.id for t in a.tokens] == printed["assisted"]["token_ids"]
    assert [t.status for t in a.tokens] == [t["status"] for t in printed["assisted"]["tokens"]]
    assert a.token_times == printed["assisted"]["token_times"] and b.token_times == printed["baseline"]["token_times"]
    assert trace.baseline_texts == texts and len(texts) == b.new_tokens
    # greedy and lossless: the same ids, decoded in context the same way on both sides
    assert trace.result.identical and texts == [t.text for t in a.tokens]
    assert trace.verdict == printed["why"]["verdict"]


def test_replay_events_equal_the_race(recorded):
    """The page's player draws the race's own tokens, statuses and times (its drawing: tests/render/test_player_browser.py
    and tests/ui/test_replay_browser.py)."""
    printed, path = recorded
    trace = load_trace(path)
    sides = embedded_race(replay_html(trace))["sides"]
    assisted = [(t["text"], t["status"], time) for t, time in
                zip(printed["assisted"]["tokens"], printed["assisted"]["token_times"])]
    assert [(tok[1], tok[2], tok[3]) for tok in sides["assisted"]["tokens"]] == assisted
    assert [(tok[1], tok[3]) for tok in sides["baseline"]["tokens"]] == list(zip(trace.baseline_texts,
                                                                                 printed["baseline"]["token_times"]))
    assert {tok[2] for tok in sides["baseline"]["tokens"]} == {"target"}
    assert [r[:3] for r in sides["assisted"]["rounds"]] == [[r["drafted"], r["accepted"], r["rejected_text"]]
                                                            for r in printed["assisted"]["rounds"]]


def test_save_trace_without_json_prints_the_human_output(tiny, tmp_path, capsys, one_torch_thread):
    path = tmp_path / "human.json"
    code = main(race_args(tiny, "--max-new-tokens", "6", "--sequential", "--save-trace", str(path)))
    out = capsys.readouterr().out
    assert code == 0 and "fair race on" in out and not out.lstrip().startswith("{")
    trace = load_trace(path)
    assert trace.result.mode == "sequential" and trace.settings["mode"] == "sequential"
    assert trace.result.baseline.new_tokens == 6


def test_save_trace_to_a_missing_folder_fails_before_racing(capsys, tmp_path):
    code = main(["race", "--preset", "offline-prompt-lookup", "--prompt", "x", "--save-trace",
                 str(tmp_path / "nope" / "t.json")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "does not exist" in err and "Traceback" not in err


def test_a_failed_race_has_no_trace(recorded):
    from app.race.result import RaceResult
    from app.replay.tracefile import build_trace

    result = RaceResult.from_dict(recorded[0])
    result.errors = {"assisted": "boom"}
    with pytest.raises(ArenaError, match="no trace"):
        build_trace(None, result)


# ----- the page ----------------------------------------------------------------------------------------------
def test_page_loads_nothing_from_the_network(recorded):
    page = replay_html(load_trace(recorded[1]))
    tags = parse_page(page).tags
    assert not [t for t, _ in tags if t in ("link", "img", "iframe", "object", "embed", "audio", "video", "source")]
    assert not [a for _, a in tags if "src" in a or "href" in a]
    assert "@import" not in page and not re.search(r"url\(\s*['\"]?(?!#)", page)
    assert not re.search(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}/", page.split("<script>")[0].split("</style>")[0])
    assert page.count("<script>") == 1 and "<style>" in page  # inline only


def test_page_shows_the_recording_stats_and_legend(recorded):
    trace = load_trace(recorded[1])
    page = replay_html(trace)
    r = trace.result
    assert "Recording" in page and "Not a live run" in page
    assert trace.environment["device_name"] in page and "transformers 5.24.0" in page
    assert f"{r.speedup:.2f}\u00d7" in page and "both at once" in page and "measured in a fair race" not in page
    assert "identical output" in page and "mean accepted length" in page and "acceptance rate" in page
    for status in ("accepted", "resampled", "bonus", "target"):
        assert f'class="tok tok-{status}">' in page  # the legend entry
    assert page.count('class="round"') == len(r.assisted.rounds)
    from app.render.html import esc

    assert esc(trace.verdict) in page


def test_model_and_user_text_is_escaped(recorded):
    data = json.loads(recorded[1].read_text(encoding="utf-8"))
    evil = "<script>alert(1)</script>"
    data["prompt"] = evil
    data["result"]["baseline"]["token_texts"][0] = evil
    data["result"]["assisted"]["tokens"][0]["text"] = evil
    data["environment"]["device_name"] = evil
    data["result"]["why"]["verdict"] = evil
    page = replay_html(parse_trace(data))
    assert "<script>alert" not in page and page.count("&lt;script&gt;alert(1)") >= 3  # prompt, machine, verdict
    embedded = re.search(r'<script type="application/json" id="race-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in embedded  # the race's data cannot close its script element
    race = embedded_race(page)
    assert race["sides"]["baseline"]["tokens"][0][1] == evil == race["sides"]["assisted"]["tokens"][0][1]


def test_one_stylesheet_and_one_status_table_for_app_page_and_terminal():
    from app.render.statuses import ANSI, STATUS_TABLE, status_table
    from app.render.style import PAGE_CSS as APP_CSS, RACE_CSS, REPLAY_CSS as CSS

    assert CSS.count(RACE_CSS) == 1 and APP_CSS.count(RACE_CSS) == 1
    rest = (CSS + APP_CSS).replace(RACE_CSS, "")
    for status in ("accepted", "resampled", "bonus", "target"):
        rule = re.search(r"^\.tok-%s \{[^}]*\}" % status, RACE_CSS, re.M).group(0)
        assert rule not in rest  # written once, in the shared sheet
        assert status_table()[status] == STATUS_TABLE[status] and ANSI[status] == STATUS_TABLE[status].ansi


def test_replay_package_never_imports_gradio_or_the_ui():
    for path in sorted((ROOT / "app" / "replay").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        names = {n.names[0].name.split(".")[0] for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Import)}
        names |= {n.module.split(".")[0] for n in ast.walk(ast.parse(text))
                  if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module}
        assert "gradio" not in names and "..ui" not in text, path


def test_replay_cli_writes_the_page_and_a_summary(recorded, tmp_path, capsys):
    out = tmp_path / "replay.html"
    assert main(["replay", str(recorded[1]), "--html", str(out), "--speed", "4"]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>") and 'data-speed="4"' in out.read_text()
    assert main(["replay", str(recorded[1])]) == 0
    summary = capsys.readouterr().out
    assert "recorded" in summary and "speedup" in summary and "why:" in summary


# ----- malformed traces ---------------------------------------------------------------------------------------
def _set(path: str, value):
    def change(d):
        *parents, last = path.split(".")
        for p in parents:
            d = d[int(p)] if isinstance(d, list) else d[p]
        if value is KeyError:
            del d[last]
        else:
            d[int(last) if isinstance(d, list) else last] = value
    return change


MALFORMED = [
    ("format", _set("format", "something else"), "is not an assisted-decoding-arena trace"),
    ("version newer", _set("version", 2), "newer version"),
    ("version text", _set("version", "1"), "version must be a whole number"),
    ("date", _set("recorded_at", "yesterday"), "recorded_at is not an ISO 8601 date"),
    ("no environment", _set("environment", KeyError), "environment is missing"),
    ("no result", _set("result", KeyError), "result is missing"),
    ("result list", _set("result", []), "result has the wrong type"),
    ("status", _set("result.assisted.tokens.0.status", "great"), "assisted.tokens.0.status must be one of"),
    ("token id", _set("result.assisted.tokens.0.id", "x"), "assisted.tokens.0.id has the wrong type"),
    ("round", _set("result.assisted.rounds.0.accepted", 99), "accepts 99 of"),
    ("times length", _set("result.baseline.token_times", [0.1]), "token_times must have one time per token"),
    ("times back", _set("result.assisted.token_times.1", -1), "seconds (numbers from 0)"),
    ("texts", _set("result.baseline.token_texts", KeyError), "result.baseline.token_texts is missing"),
    ("texts type", _set("result.baseline.token_texts.0", 5), "token_texts must be"),
    ("mode", _set("result.mode", "fast"), "mode must be one of"),
    ("ids", _set("result.assisted.token_ids.0", 10**6), "tokens do not match"),
]


@pytest.mark.parametrize("name,change,needle", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_trace_is_one_clean_line(recorded, tmp_path, capsys, name, change, needle):
    data = json.loads(recorded[1].read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ArenaError, match=re.escape(needle)) as err:
        load_trace(path)
    assert str(err.value).startswith("bad.json")
    code = main(["replay", str(path), "--html", str(tmp_path / "out.html")])
    out, stderr = capsys.readouterr()
    assert code == 2 and out == "" and stderr.count("\n") == 1 and needle in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out.html").exists()


@pytest.mark.parametrize("content,needle", [
    (b"", "is empty"), (b"{not json", "is not valid JSON (line 1"), (b"\xff\xfe\x00", "not UTF-8"),
    (b"[1, 2]", "a JSON object is expected"), (b'{"result": {}}', "is not an assisted-decoding-arena trace"),
    (b"[" * 100_000, "nests too deeply"),
])
def test_files_that_are_not_traces(tmp_path, content, needle):
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(ArenaError, match=re.escape(needle)):
        load_trace(path)


def test_size_cap_and_missing_file(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b" " * 2000 + b"{}")
    with pytest.raises(ArenaError, match="larger than"):
        load_trace(path, max_bytes=1000)
    with pytest.raises(ArenaError, match="Cannot read the trace"):
        load_trace(tmp_path / "absent.json")


def test_random_damage_is_a_trace_or_one_clean_line(recorded):
    """Seeded fuzz: delete or replace random fields; loading must give a Trace or an ArenaError, nothing else."""
    base = json.loads(recorded[1].read_text(encoding="utf-8"))
    rng = random.Random(7)
    junk = [None, -1, 1.5, "x", [], {}, True, [None], {"a": 1}, float("nan"), 10**30]

    def paths(d, prefix=()):
        items = d.items() if isinstance(d, dict) else enumerate(d) if isinstance(d, list) else []
        for k, v in items:
            yield prefix + (k,)
            yield from paths(v, prefix + (k,))

    all_paths = list(paths(base))
    errors = []
    for _ in range(300):
        data = copy.deepcopy(base)
        for p in rng.sample(all_paths, rng.randint(1, 3)):
            d = data
            try:
                for k in p[:-1]:
                    d = d[k]
                if isinstance(d, dict) and rng.random() < 0.3:
                    d.pop(p[-1], None)
                else:
                    d[p[-1]] = rng.choice(junk)
            except (KeyError, IndexError, TypeError):
                continue
        try:
            trace = parse_trace(data, "fuzz.json")
        except ArenaError as exc:
            errors.append(str(exc))
        else:
            replay_html(trace)  # whatever loads also renders
    bad = [e for e in errors if not e.startswith("fuzz.json") or "\n" in e]
    assert errors and not bad, bad[:5]  # some damage was refused, each time with one line naming the file


def test_save_trace_replaces_a_file_whole(recorded, tmp_path):
    data = json.loads(recorded[1].read_text(encoding="utf-8"))
    path = tmp_path / "copy.json"
    path.write_text("old", encoding="utf-8")
    save_trace(data, path)
    assert json.loads(path.read_text(encoding="utf-8")) == data
    assert [p.name for p in tmp_path.iterdir()] == ["copy.json"]
    with pytest.raises(ArenaError, match="is a folder"):
        save_trace(data, tmp_path)


def test_environment_names_the_gpu_on_cuda_and_the_cpu_otherwise(monkeypatch):
    import torch

    from app.core.machine import cpu_name, race_environment as environment

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: f"Test GPU {i}")
    assert environment("cuda:1", "bfloat16", None)["device_name"] == "Test GPU 1"
    env = environment("cpu", "float32", 2)
    assert env["device_name"] == cpu_name() and env["threads_per_side"] == 2 and env["cores"] >= 1
    assert env["transformers"] == "5.24.0" and env["python"].count(".") == 2


@pytest.mark.parametrize("lang", ["ko", "id"])
def test_the_gallery_replays_whole_in_the_language(lang):
    """Every race of the shipped gallery replays in Korean and Indonesian with no English sentence but the prompt,
    the models' texts (a rejected draft quoted in a tooltip too) and generate()'s arguments: the gallery is recorded
    with the words this code writes (a recording older than a reworded sentence kept it English in the middle of a
    Korean why line; python -m benchmarks.record_gallery --final records it again)."""
    gallery = load_gallery(GALLERY_DIR)
    assert gallery.entries
    for i in range(len(gallery.entries)):
        trace = gallery.load(i)
        theirs = (trace.prompt, trace.result.baseline.text, trace.result.assisted.text)
        with speaking(lang):
            page = re.sub(r"<(script|style)\b.*?</\1>", "", replay_html(trace), flags=re.S)
        pieces = [html.unescape(p).strip() for p in re.split(r"<[^>]+>", page) + re.findall(r'title="([^"]*)"', page)]
        ours = [re.sub(r"\u201c.*?\u201d", "", p) for p in pieces if p and not any(p in text for text in theirs)]
        assert not english_left(ours, lang), (gallery.entries[i].file, english_left(ours, lang))
