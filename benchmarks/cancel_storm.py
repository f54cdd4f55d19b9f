"""Cancel storm: ten API races cancelled mid-way must leave the server idle and the next race at normal speed.

    python -m benchmarks.cancel_storm [--cancels 10] [--preset offline-prompt-lookup] [--reference-tokens 48]

Starts ``python app.py`` as a separate process (the server a share link exposes) and drives it through
gradio_client, as the probe in issue 12 did: one reference race, then `--cancels` races of up to
`--storm-tokens` tokens, each cancelled (``job.cancel()``) 0.1-2 s after the server acknowledged it, then the same
reference race again. The server process is watched through /proc: its threads and the CPU each uses. Prints the
idle level before the storm (threads, busy threads: those using at least 2 clock ticks in 0.25 s, cores), the peak
thread count during the storm, the same figures every 0.25 s after the last cancel and when the server was idle
again (no more busy threads than before, CPU within 0.05 cores of before), how long each cancelled race's
workers took to end (from the server's log), and the reference race's tokens/s before and after. An idle
thread more than before is gradio's worker pool (anyio keeps an idle worker for a while), not a race.

Before the fix (issue 12): threads climbed from 7 to 53, both cores stayed busy for seconds after the last
cancel, and the next race took 20.9 s instead of 2.5 s.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gradio_client import Client

from tests.app_server import free_port

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = "Count from 1 to 500, separated by commas."
LONG = "Count from 1 to 500, separated by commas, and do not stop early."
TICKS = os.sysconf("SC_CLK_TCK")


class Watched:
    """Thread count and CPU use of a process and of each of its threads, read from /proc."""

    def __init__(self, pid: int):
        self.pid = pid

    def threads(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
        return -1

    def ticks(self) -> dict[int, int]:
        """CPU clock ticks (user + system) used so far by each thread id."""
        out = {}
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            try:
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                out[int(task.name)] = int(fields[11]) + int(fields[12])
            except (OSError, ValueError, IndexError):  # the thread ended meanwhile
                continue
        return out

    def window(self, seconds: float = 0.25) -> dict:
        """Over `seconds`: CPU use in cores, threads that used at least 2 clock ticks (busy), and the thread count."""
        before, t0 = self.ticks(), time.perf_counter()
        time.sleep(seconds)
        after, wall = self.ticks(), time.perf_counter() - t0
        used = {tid: after[tid] - before.get(tid, 0) for tid in after}
        return {"cores": sum(used.values()) / TICKS / wall, "busy": sum(1 for u in used.values() if u >= 2),
                "threads": len(after)}


def launch(port: int, log_path: Path) -> subprocess.Popen:
    """``python app.py`` on `port`, logging to `log_path`; returns once it answers."""
    log = open(log_path, "w")
    server = subprocess.Popen([sys.executable, "app.py", "--port", str(port), "--max-new-tokens-cap", "512"],
                              cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            Client(f"http://127.0.0.1:{port}/", verbose=False)
            return server
        except Exception:  # not up yet
            time.sleep(0.5)
    server.kill()
    raise SystemExit("the server did not start within 120 s; see " + str(log_path))


def reference_race(client: Client, preset: str, tokens: int, repeats: int = 2) -> dict:
    """The fastest of `repeats` reference races (wall seconds, both sides' tokens/s): other load only slows a race."""
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = client.predict(preset=preset, prompt=REFERENCE, max_new_tokens=tokens, api_name="/race")
        runs.append({"wall": time.perf_counter() - t0, "baseline": result["baseline"]["tokens_per_second"],
                     "assisted": result["assisted"]["tokens_per_second"], "tokens": result["assisted"]["new_tokens"]})
    return min(runs, key=lambda r: r["wall"])


def idle_level(watched: Watched, seconds: float = 2.0) -> dict:
    """The idle server's level over `seconds`: the most busy threads and cores seen in any 0.25 s window."""
    windows = [watched.window() for _ in range(int(seconds / 0.25))]
    return {"busy": max(w["busy"] for w in windows), "cores": max(w["cores"] for w in windows),
            "threads": max(w["threads"] for w in windows)}


def is_idle(w: dict, level: dict) -> bool:
    """No more busy threads than when idle before, and CPU within 0.05 cores of the idle level."""
    return w["busy"] <= level["busy"] and w["cores"] <= level["cores"] + 0.05


def monitor(watched: Watched, level: dict, since: float, limit: float = 30.0) -> list[tuple]:
    """(seconds since `since`, window) every 0.25 s until idle and at least 1.5 s have passed."""
    samples = []
    while time.perf_counter() - since < limit:
        w = watched.window()
        samples.append((time.perf_counter() - since, w))
        if samples[-1][0] >= 1.5 and any(is_idle(x, level) for _, x in samples):
            break
    return samples


def storm(client: Client, watched: Watched, preset: str, cancels: int, tokens: int, rng: random.Random) -> dict:
    """Submit and cancel `cancels` races; returns the peak thread count and the moment of the last cancel.

    Each cancel waits until the server has acknowledged the job (gradio_client knows its event id): a cancel
    sent before that carries no event id, never reaches the job, and the race runs on to its token cap (inside
    the concurrency limit). That is a limit of gradio_client, not of the server (docs/DESIGN.md §7).
    """
    peak = watched.threads()
    for _ in range(cancels):
        job = client.submit(preset=preset, prompt=LONG, max_new_tokens=tokens, api_name="/race")
        acknowledged = time.perf_counter() + 30
        while job.communicator is not None and job.communicator.event_id is None and time.perf_counter() < acknowledged:
            time.sleep(0.005)
        deadline = time.perf_counter() + rng.uniform(0.1, 2.0)
        while time.perf_counter() < deadline:
            peak = max(peak, watched.threads())
            time.sleep(0.02)
        job.cancel()
    return {"peak": peak, "last_cancel": time.perf_counter()}


def stop_latencies(log_path: Path) -> list[float]:
    """Seconds from stop to both workers ended, per cancelled race (the server's 'API race stopped' log lines)."""
    text = log_path.read_text(errors="replace")
    return [float(x) for x in re.findall(r"API race stopped .*?workers ended after ([0-9.]+) s", text)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cancels", type=int, default=10)
    ap.add_argument("--preset", default="offline-prompt-lookup")
    ap.add_argument("--reference-tokens", type=int, default=48)
    ap.add_argument("--storm-tokens", type=int, default=256)
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args()
    log_path = Path(tempfile.mkdtemp(prefix="cancel-storm-")) / "server.log"
    port = free_port()
    server = launch(port, log_path)
    try:
        client, watched = Client(f"http://127.0.0.1:{port}/", verbose=False), Watched(server.pid)
        reference_race(client, args.preset, 8, repeats=1)  # loads the model and starts every thread pool
        before = reference_race(client, args.preset, args.reference_tokens)
        time.sleep(1.0)
        level = idle_level(watched)
        print(f"server pid {server.pid} when idle: {level['threads']} threads, {level['busy']} busy, "
              f"{level['cores']:.2f} cores")
        s = storm(client, watched, args.preset, args.cancels, args.storm_tokens, random.Random(args.seed))
        samples = monitor(watched, level, s["last_cancel"])
        after = reference_race(client, args.preset, args.reference_tokens)
        report(args, level, s, samples, before, after, stop_latencies(log_path))
    finally:
        server.terminate()
        server.wait(30)


def report(args, level: dict, s: dict, samples: list[tuple], before: dict, after: dict,
           latencies: list[float]) -> None:
    print(f"reference races: the fastest of two {args.reference_tokens}-token races before and after the storm")
    print(f"storm: {args.cancels} races of up to {args.storm_tokens} tokens, each cancelled 0.1-2 s after the server "
          "acknowledged it")
    print(f"threads: {level['threads']} when idle before, {s['peak']} at the peak of the storm")
    print("after the last cancel (seconds: threads, busy threads, CPU cores over the previous 0.25 s):")
    shown = [x for x in samples if x[0] < 3.0] + samples[-1:]
    print("  " + "; ".join(f"{t:.2f} s: {w['threads']}, {w['busy']} busy, {w['cores']:.2f} cores" for t, w in shown))
    idle = next((t for t, w in samples if is_idle(w, level)), None)
    print(f"idle again (at most {level['busy']} busy threads, CPU <= {level['cores'] + 0.05:.2f} cores): "
          + (f"{idle:.2f} s after the last cancel" if idle is not None else "not within 30 s"))
    if latencies:
        print(f"cancelled races whose workers the server saw end: {len(latencies)}; stop to workers ended: "
              f"median {sorted(latencies)[len(latencies) // 2]:.3f} s, worst {max(latencies):.3f} s")
    else:
        print("no cancelled race was running when its job was cancelled (all cancelled while queued or loading)")
    for label, r in (("before", before), ("after", after)):
        print(f"reference race {label} the storm: {r['tokens']} tokens, baseline {r['baseline']:.1f} tok/s, "
              f"assisted {r['assisted']:.1f} tok/s, wall {r['wall']:.2f} s")
    print(f"after / before: baseline {after['baseline'] / before['baseline']:.2f}x, "
          f"assisted {after['assisted'] / before['assisted']:.2f}x, wall {after['wall'] / before['wall']:.2f}x")


if __name__ == "__main__":
    main()
