"""Benchmark: time one engine run for stores of 10, 1,000 and 10,000 records.

Prints JSON: for each size, the engine's cold run (vocabulary and idf built), its
warm run (index cached, as when a learner changes a policy on the same store),
run_json warm on a request laid out like json.dumps's default and on one laid out as
the page sends it (validated store and encoded record parts reused), and
scikit-learn doing the same vectorising and cosine work, best of several repeats.
Run: python bench/engine_scale.py
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.tfidf import build_index

SIZES = (10, 1_000, 10_000)
REPEATS = 5


def synthetic_store(size: int, seed: int = 7) -> dict[str, Any]:
    """Records of about 20 words drawn from a Zipf-like vocabulary, like real notes."""
    rng = random.Random(seed)
    vocabulary = [f"term{i}" for i in range(5_000)] + ["deployment", "region", "timeout", "checkout", "the", "a"]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    records = []
    for i in range(size):
        words = rng.choices(vocabulary, weights, k=rng.randint(15, 25))
        records.append(
            {
                "id": f"R{i}",
                "tenant": rng.choice(["team-a", "team-b"]),
                "store": rng.choice(["semantic", "episodic", "procedural", "working"]),
                "session": rng.choice(["current", "previous"]),
                "age_hours": rng.randint(0, 400),
                "key": rng.choice([None, None, "k1", "k2", "k3"]),
                "text": " ".join(words),
            }
        )
    return {
        "schema": 1,
        "title": f"synthetic {size}",
        "tenants": [{"id": "team-a", "label": "Team A"}, {"id": "team-b", "label": "Team B"}],
        "questions": [
            {
                "id": "q",
                "text": "Which deployment region had the checkout timeout term3?",
                "supporting": {"team-a": [], "team-b": []},
            }
        ],
        "records": records,
    }


def best_of(repeats: int, action: Any, before: Any = None) -> float:
    times = []
    for _ in range(repeats):
        if before:
            before()
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
    # Laid out as the page writes it: run_json then reuses the validated store and the
    # encoded policy-independent parts of each record (engine/api.py, engine/encode.py).
    as_page_sends = f'{{"store":{json.dumps(store)},"policy":{json.dumps(policy)}}}'
    texts = [r["text"] for r in store["records"]]
    question = store["questions"][0]["text"]

    def sklearn_work() -> None:
        vectorizer = TfidfVectorizer(
            sublinear_tf=True, smooth_idf=True, norm="l2", stop_words=sorted(engine.STOP_WORDS)
        )
        matrix = vectorizer.fit_transform(texts)
        (matrix @ vectorizer.transform([question]).T).toarray()

    cold = best_of(REPEATS, lambda: engine.run(request), build_index.cache_clear)
    return {
        "records": size,
        "median_words": statistics.median(len(t.split()) for t in texts),
        "engine_cold_s": round(cold, 4),
        "engine_warm_s": round(best_of(REPEATS, lambda: engine.run(request)), 4),
        "engine_run_json_warm_s": round(best_of(REPEATS, lambda: engine.run_json(as_json)), 4),
        "engine_run_json_as_page_sends_warm_s": round(best_of(REPEATS, lambda: engine.run_json(as_page_sends)), 4),
        "sklearn_vectorise_and_cosine_s": round(best_of(REPEATS, sklearn_work), 4),
        "cold_per_record_us": round(cold / size * 1e6, 1),
    }


def main() -> None:
    results = [measure(size) for size in SIZES]
    print(
        json.dumps({"python": sys.version.split()[0], "statistic": f"best of {REPEATS}", "results": results}, indent=2)
    )


if __name__ == "__main__":
    main()
