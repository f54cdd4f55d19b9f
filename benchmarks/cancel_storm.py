"""Cancel storm: ten API races cancelled mid-way must leave the server idle and the next race at normal speed.

    python -m benchmarks.cancel_storm [--cancels 10] [--preset offline-prompt-lookup] [--reference-tokens 48]

Starts ``python app.py`` as a separate process (the server a share link exposes) and drives it through
gradio_client, as the probe in issue 12 did: one reference race, then `--cancels` races of up to
`--storm-tokens` tokens, each cancelled (``job.cancel()``) 0.1-2 s after it was submitted, then the same
reference race again. The server process is watched through /proc: its thread count and CPU use. Prints the
threads before, at the peak of the storm and one second after the last cancel, the time until the server was
idle again (threads at the baseline, CPU under 5% of one core over 0.25 s), how long each cancelled race's
workers took to end (from the server's log), and the reference race's tokens/s before and after.

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

from benchmarks.users import free_port

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = "Repeat this list and add one more fruit at the end: apple, banana, cherry, date, elderberry, fig."
LONG = "Count from 1 to 500, separated by commas, and do not stop early."
TICKS = os.sysconf("SC_CLK_TCK")


class Watched:
    """Thread count and CPU seconds of a process, read from /proc."""

    def __init__(self, pid: int):
        self.pid = pid

    def threads(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
        return -1

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime

    def cpu_share(self, window: float = 0.25) -> float:
        """CPU use over `window` seconds, in cores (1.0 = one core busy)."""
        start, t0 = self.cpu_seconds(), time.perf_counter()
        time.sleep(window)
        return (self.cpu_seconds() - start) / (time.perf_counter() - t0)


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


def wait_idle(watched: Watched, baseline_threads: int, limit: float = 30.0) -> float:
    """Seconds until the threads are back at the baseline and the CPU is idle (< 5% of a core over 0.25 s)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        if watched.threads() <= baseline_threads and watched.cpu_share() < 0.05:
            return time.perf_counter() - t0
    return float("inf")


def monitor(watched: Watched, baseline_threads: int, since: float, limit: float = 30.0) -> list[tuple]:
    """(seconds since `since`, threads, CPU cores over the 0.25 s before) until idle and at least 1.5 s have passed."""
    samples = []
    while time.perf_counter() - since < limit:
        cpu = watched.cpu_share()
        samples.append((time.perf_counter() - since, watched.threads(), cpu))
        if samples[-1][0] >= 1.5 and any(th <= baseline_threads and c < 0.05 for _, th, c in samples):
            break
    return samples


def storm(client: Client, watched: Watched, preset: str, cancels: int, tokens: int, rng: random.Random) -> dict:
    """Submit and cancel `cancels` races; returns the peak thread count and the moment of the last cancel."""
    peak = watched.threads()
    for i in range(cancels):
        job = client.submit(preset=preset, prompt=LONG, max_new_tokens=tokens, api_name="/race")
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
        settle = wait_idle(watched, 10 ** 6)
        baseline_threads = watched.threads()
        print(f"server pid {server.pid}: {baseline_threads} threads when idle (settled in {settle:.2f} s)")
        s = storm(client, watched, args.preset, args.cancels, args.storm_tokens, random.Random(args.seed))
        samples = monitor(watched, baseline_threads, s["last_cancel"])
        after = reference_race(client, args.preset, args.reference_tokens)
        report(args, baseline_threads, s, samples, before, after, stop_latencies(log_path))
    finally:
        server.terminate()
        server.wait(30)


def report(args, baseline: int, s: dict, samples: list[tuple], before: dict, after: dict,
           latencies: list[float]) -> None:
    print(f"reference races: the fastest of two {args.reference_tokens}-token races before and after the storm")
    print(f"storm: {args.cancels} races of up to {args.storm_tokens} tokens, each cancelled 0.1-2 s after submit")
    print(f"threads: {baseline} when idle before, {s['peak']} at the peak of the storm")
    print("after the last cancel (seconds, threads, CPU cores over the previous 0.25 s):")
    print("  " + ", ".join(f"{t:.2f} s: {th} threads {c:.2f} cores" for t, th, c in samples))
    idle = next((t for t, th, c in samples if th <= baseline and c < 0.05), None)
    print(f"idle again (threads <= {baseline}, CPU < 0.05 cores): "
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
