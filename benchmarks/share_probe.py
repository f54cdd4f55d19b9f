"""The share-link probe: what a visitor holding the link can try, against a running app, and what held.

    python -m benchmarks.share_probe [--keep-log]

Starts ``python app.py --public`` (a share link's settings without opening a tunnel) as a separate process and
sends every reproduction of the share-link issue the way the page or gradio_client would (raw queue events,
uploads, the named API), then prints one line per check: what was sent, the answer's first line, whether it held,
and whether the server was idle afterwards (no busy thread in its process, read from /proc as
benchmarks/cancel_storm.py does). Exit status 1 when anything did not hold.
"""

from __future__ import annotations

import argparse
import csv
import html
import io
import json
import os
import re
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable

import httpx

from benchmarks.cancel_storm import ROOT, Watched
from tests.app_server import free_port
from tests.page_client import call, event_named, inputs_for, shown_text

Check = Callable[["Probe"], tuple[str, bool]]


class Probe:
    """A running ``app.py --public`` and a raw client of its page."""

    def __init__(self, port: int, log: Path):
        import subprocess

        self.url = f"http://127.0.0.1:{port}"
        # Its visitors come as a proxy on this machine would send them (each named in X-Forwarded-For), so loopback
        # is the trusted proxy here, as a Space's own proxy is there.
        self.server = subprocess.Popen([sys.executable, "app.py", "--public", "--port", str(port),
                                        "--forwarded-allow-ips", "127.0.0.1"], cwd=ROOT,
                                       stdout=open(log, "w"), stderr=subprocess.STDOUT)
        self.watched = Watched(self.server.pid)
        self.http = httpx.Client(timeout=httpx.Timeout(30, read=300))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                self.config = self.http.get(f"{self.url}/config").json()
                break
            except (httpx.HTTPError, ValueError):
                time.sleep(0.5)
        else:
            raise SystemExit("the app did not start within 120 s")

    def event(self, name: str, timeout: float = 300, visitor: str = "81.2.69.160", **inputs: Any) -> str:
        """Send the page event `name` with its untouched inputs changed by `inputs`; returns what the visitor sees."""
        event = event_named(self.config, name)
        http = httpx.Client(timeout=httpx.Timeout(30, read=timeout), headers={"X-Forwarded-For": visitor})
        kind, answer = call(http, self.url, event["fn_index"], inputs_for(event, **inputs), timeout)
        return shown_text(answer) if kind == "completed" else f"{kind}: {answer}"

    def idle(self) -> bool:
        """No thread of the server busy (at most one, gradio's own) over two quiet windows."""
        time.sleep(0.5)
        return all(self.watched.window(0.5)["busy"] <= 1 for _ in range(2))

    def close(self) -> None:
        self.server.terminate()
        self.server.wait(30)


STATUS = re.compile(r'<span class="status-icon">[^<]*</span>([^<]*)</div>')


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [s for item in items for s in _strings(item)]


def first_line(text: str) -> str:
    """The last status line a page event showed, or its error message, or the start of what it showed."""
    try:
        strings = _strings(json.loads(text))
    except ValueError:
        return text[:160]
    found = [m for s in strings for m in STATUS.findall(s)]
    return html.unescape(found[-1] if found else " ".join(strings)[:160]).strip()


def tune_local_folders(p: Probe) -> tuple[str, bool]:
    answers = {folder: first_line(p.event("tune_stream", target=folder)) for folder in
               ("/etc", "~/.ssh", "/nonexistent", "~/.cache")}
    same = len({a.replace(f, "X") for f, a in answers.items()}) == 1
    return answers["/etc"], same and all("looks like a local path" in a for a in answers.values())


def bench_hours(p: Probe) -> tuple[str, bool]:
    answer = first_line(p.event("run", **{"bench-presets": ["offline-prompt-lookup", "offline-early-exit", "offline-uad"],
                                         "bench-limit": 10, "bench-repeats": 1, "bench-max-new-tokens": 512}))
    return answer, "this server allows" in answer


def planner_minutes(p: Probe) -> tuple[str, bool]:
    prompts = "\n".join(f"Summarise item {i} of the list." for i in range(8))
    answer = first_line(p.event("plan_measure", **{"plan-prompts": prompts, "plan-max-new-tokens": 128}))
    return answer, "this server allows" in answer


def behind_a_long_race(p: Probe, tokens: int, then: Callable[[], Any]) -> Any:
    """`then()` while a race of `tokens` tokens from the probe's own visitor is queued or running."""
    first = threading.Thread(target=p.event, args=("race_click",), kwargs={"prompt": "Count: one, two, three,",
                                                                            "max-new-tokens": tokens})
    first.start()
    time.sleep(1.5)
    try:
        return then()
    finally:
        first.join(300)


def second_job(p: Probe) -> tuple[str, bool]:
    answer = behind_a_long_race(p, 64, lambda: first_line(p.event("race_click", prompt="x", **{"max-new-tokens": 8})))
    return answer, "already have a run queued or running" in answer


def queue_full(p: Probe) -> tuple[str, bool]:
    """One long race, then 20 one-token races from 20 other visitors at once: beyond the queue's size, refused."""
    answers: list[str] = []

    def one(i: int) -> None:
        answers.append(p.event("race_click", visitor=f"81.2.70.{i}", prompt="Hi", **{"max-new-tokens": 1}))

    def crowd() -> None:
        threads = [threading.Thread(target=one, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)

    behind_a_long_race(p, 256, crowd)
    full = [a for a in answers if "queue is full" in a.lower()]
    return f"{len(full)} of 20 refused: {full[0][:90] if full else '-'}", 0 < len(full) < 20


def big_upload(p: Probe) -> tuple[str, bool]:
    big = p.http.post(f"{p.url}/gradio_api/upload", files={"files": ("big.json", b"0" * 20_000_000)})
    small = p.http.post(f"{p.url}/gradio_api/upload", files={"files": ("small.json", b"{}")})
    return f"20 MB: HTTP {big.status_code}; 2 bytes: HTTP {small.status_code}", (big.status_code >= 400
                                                                                  and small.status_code < 400)


def upload_volume(p: Probe) -> tuple[str, bool]:
    """Eight uploads of 15 MB of random bytes from one visitor (distinct content, so no content-hash folder is
    shared): its budget takes some and refuses the rest with one line."""
    with httpx.Client(timeout=httpx.Timeout(30, read=300), headers={"X-Forwarded-For": "198.51.100.7"}) as http:
        answers = [http.post(f"{p.url}/gradio_api/upload", files={"files": (f"r{i}.json", os.urandom(15_000_000))})
                   for i in range(8)]
    codes = [a.status_code for a in answers]
    refused = [a.text for a in answers if a.status_code == 429]
    return f"HTTP {' '.join(map(str, codes))}: {refused[0] if refused else '-'}", codes[0] == 200 and bool(refused)


def package_ids(p: Probe) -> tuple[str, bool]:
    answers = [first_line(p.event("race_click", target=spec)).replace(spec, "ID")
               for spec in ("pypi:no-such-package/x.gguf", "pypi:pip/x.gguf")]
    return answers[0], answers[0] == answers[1]


def download_cells(p: Probe) -> tuple[str, bool]:
    suite = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
    suite.write(json.dumps({"id": '=HYPERLINK("http://example.com")', "category": "a|b <img src=x onerror=alert(1)>",
                            "prompt": "Repeat: red, green, blue."}) + "\n")
    suite.close()
    uploaded = p.http.post(f"{p.url}/gradio_api/upload", files={"files": ("suite.jsonl", open(suite.name, "rb"))})
    path = uploaded.json()[0]
    filedata = {"path": path, "orig_name": "suite.jsonl", "meta": {"_type": "gradio.FileData"}}
    session, changed = uuid.uuid4().hex, event_named(p.config, "suite_changed")  # offers the suite's categories
    call(p.http, p.url, changed["fn_index"], inputs_for(changed, **{"bench-suite": filedata}), 60, session)
    event = event_named(p.config, "run")
    data = inputs_for(event, **{"bench-presets": ["offline-prompt-lookup"], "bench-max-new-tokens": 8,
                                "bench-suite": filedata, "bench-categories": ["a|b <img src=x onerror=alert(1)>"]})
    kind, answer = call(p.http, p.url, event["fn_index"], data, 300, session)
    files = re.findall(r'"path": "([^"]+(?:results\.csv|summary\.md))"', shown_text(answer)) if kind == "completed" else []
    texts = {Path(f).name: p.http.get(f"{p.url}/gradio_api/file={f}").text for f in files}
    rows = list(csv.DictReader(io.StringIO(texts.get("results.csv", ""))))
    inert = bool(rows) and rows[0]["prompt_id"].startswith("'=") and "<img" not in texts.get("summary.md", "<img")
    if not rows:
        return f"no results: {first_line(shown_text(answer) if kind == 'completed' else str(answer))}", False
    return f"results.csv prompt_id {rows[0]['prompt_id']}; summary.md has no raw <img>", inert


CHECKS: list[tuple[str, Check]] = [
    ("Tune with local folders (/etc, ~/.ssh, /nonexistent, ~/.cache)", tune_local_folders),
    ("Benchmark: 3 presets x 70 prompts x 512 tokens", bench_hours),
    ("Planner: 8 prompts x 128 tokens (the slider's most)", planner_minutes),
    ("A second job from the same visitor", second_job),
    ("The queue: 20 visitors at once behind a running race", queue_full),
    ("Uploads: 20 MB vs 2 bytes", big_upload),
    ("Uploads: 8 x 15 MB of random bytes from one visitor", upload_volume),
    ("pypi: ids of a missing package vs a missing file", package_ids),
    ("Downloads: '=HYPERLINK' id and '|<img>' category", download_cells),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep-log", action="store_true", help="print the server log's path instead of deleting it")
    args = ap.parse_args()
    log = Path(tempfile.mkdtemp(prefix="share-probe-")) / "server.log"
    probe = Probe(free_port(), log)
    failed = 0
    try:
        print(f"{'check':<62} {'held':<5} {'idle':<5} answer")
        for label, check in CHECKS:
            started = time.monotonic()
            answer, held = check(probe)
            idle = probe.idle()
            failed += not (held and idle)
            print(f"{label:<62} {'yes' if held else 'NO':<5} {'yes' if idle else 'NO':<5} {answer} "
                  f"({time.monotonic() - started:.1f} s)", flush=True)
    finally:
        probe.close()
    print(f"server log: {log}" if args.keep_log else "", end="")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
