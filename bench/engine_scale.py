"""Benchmark: time one engine run for stores of 10, 1,000 and 10,000 records.

Prints JSON: for each size, the engine's one-shot run (store validated, vocabulary and
idf built) as engine.run and as run_json on JSON text; opening the store as the page's
worker does (open_json); a policy answered on the open session, as when a learner
changes a policy on the same store, in full (Session.run) and as the page gets it
(answer_json: the slim answer as JSON text); and scikit-learn doing the same vectorising
and cosine work, best of several repeats (the one-shot run and scikit-learn
interleaved), with their ratio beside its target at 10,000 records.
Run: python bench/engine_scale.py
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from harness.generate import synthetic_store

SIZES = (10, 1_000, 10_000)
REPEATS = 5
# At the largest size, the engine's one-shot run may take this many times scikit-learn's.
TARGET_VS_SKLEARN = 1.7


def best_of(repeats: int, action: Any) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(size: int) -> dict[str, Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    policy = {"store": "all", "previous_sessions": True, "max_age_hours": 1000, "budget_words": 200, "max_records": 10}
    store = synthetic_store(size)
    request = {"store": store, "policy": policy}
    as_json = json.dumps(request)
    store_text, policy_text = json.dumps(store), json.dumps(policy)
    session = engine.open_json(store_text).session
    assert session is not None, f"the synthetic store of {size} records was refused"
    session.answer_json(policy_text)  # the question's scores are kept from here on
    texts = [r["text"] for r in store["records"]]
    question = store["questions"][0]["text"]

    def sklearn_work() -> None:
        vectorizer = TfidfVectorizer(
            sublinear_tf=True, smooth_idf=True, norm="l2", stop_words=sorted(engine.STOP_WORDS)
        )
        matrix = vectorizer.fit_transform(texts)
        (matrix @ vectorizer.transform([question]).T).toarray()

    # Interleaved, so a busy moment of the machine weighs on both sides alike.
    cold_times, sklearn_times = [], []
    for _ in range(REPEATS):
        cold_times.append(best_of(1, lambda: engine.run(request)))
        sklearn_times.append(best_of(1, sklearn_work))
    cold, sklearn = min(cold_times), min(sklearn_times)
    held = json.loads(session.answer_json(policy_text))["terms_key"]
    return {
        "records": size,
        "median_words": statistics.median(len(t.split()) for t in texts),
        "engine_cold_s": round(cold, 4),
        "engine_run_json_cold_s": round(best_of(REPEATS, lambda: engine.run_json(as_json)), 4),
        "open_json_s": round(best_of(REPEATS, lambda: engine.open_json(store_text)), 4),
        "session_run_warm_s": round(best_of(REPEATS, lambda: session.run(policy)), 4),
        "session_answer_json_warm_s": round(best_of(REPEATS, lambda: session.answer_json(policy_text)), 4),
        "session_answer_json_warm_terms_held_s": round(
            best_of(REPEATS, lambda: session.answer_json(policy_text, held)), 4
        ),
        "sklearn_vectorise_and_cosine_s": round(sklearn, 4),
        "engine_cold_vs_sklearn": round(cold / sklearn, 2),
        "target_vs_sklearn": TARGET_VS_SKLEARN if size == SIZES[-1] else None,
        "cold_per_record_us": round(cold / size * 1e6, 1),
    }


def main() -> None:
    results = [measure(size) for size in SIZES]
    print(
        json.dumps({"python": sys.version.split()[0], "statistic": f"best of {REPEATS}", "results": results}, indent=2)
    )


if __name__ == "__main__":
    main()
