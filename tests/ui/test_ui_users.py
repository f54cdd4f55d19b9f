"""Several users at once through gradio_client (the short version of benchmarks/users.py)."""

from __future__ import annotations

import threading

import pytest

from app.core.loader import MODEL_CACHE
from tests.app_server import launched
from tests.users import JOBS, run_user

pytestmark = pytest.mark.slow


def test_concurrent_sessions_each_get_their_own_correct_result():
    with launched(concurrency_limit=2) as (url, _):
        jobs = [JOBS[0], JOBS[1], JOBS[2]]
        solo = []
        for preset, prompt in jobs:
            out: dict = {}
            run_user(url, preset, prompt, 10, out)
            assert out["error"] is None, out["error"]
            solo.append(out["result"])
        loads = MODEL_CACHE.load_count
        outs = [dict() for _ in jobs]
        threads = [threading.Thread(target=run_user, args=(url, p, q, 10, o)) for (p, q), o in zip(jobs, outs)]
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
