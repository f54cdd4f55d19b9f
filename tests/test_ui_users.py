"""Several users at once through gradio_client (the short version of benchmarks/users.py)."""

from __future__ import annotations

import pytest

import threading

from benchmarks import users

from app.core.loader import MODEL_CACHE
from app.ui.config import UIConfig
from app.ui.page import build_app

pytestmark = pytest.mark.slow


def test_concurrent_sessions_each_get_their_own_correct_result():
    config = UIConfig(port=users.free_port(), concurrency_limit=2)
    app = build_app(config)
    demo = app.demo
    _, url, _ = app.launch(prevent_thread_lock=True, quiet=True)
    try:
        jobs = [users.JOBS[0], users.JOBS[1], users.JOBS[2]]
        solo = []
        for preset, prompt in jobs:
            out: dict = {}
            users.run_user(url, preset, prompt, 10, out)
            assert out["error"] is None, out["error"]
            solo.append(out["result"])
        loads = MODEL_CACHE.load_count
        outs = [dict() for _ in jobs]
        threads = [threading.Thread(target=users.run_user, args=(url, p, q, 10, o)) for (p, q), o in zip(jobs, outs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        for ref, out in zip(solo, outs):
            assert out["error"] is None, out["error"]
            assert out["result"]["baseline"]["token_ids"] == ref["baseline"]["token_ids"]
            assert out["result"]["assisted"]["token_ids"] == ref["assisted"]["token_ids"]
            assert out["result"]["identical"] is True
        assert MODEL_CACHE.load_count == loads, "a model was loaded again while sessions ran"
        assert any(o["rank"] for o in outs), "no session was shown a queue position"
    finally:
        demo.close()
