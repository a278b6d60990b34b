"""Benchmark: time one engine run for stores of 10, 1,000 and 10,000 records.

Prints JSON: for each size, the engine's one-shot run (store validated, vocabulary and
idf built) as engine.run and as run_json on JSON text; opening the store as the page's
worker does (open_json), and with its first answer; a policy answered on the open session, as when a learner
changes a policy on the same store, in full (Session.run) and as the page gets it
(answer_json: the slim answer and its parts as JSON text); and scikit-learn doing the same vectorising
and cosine work, best of several repeats (the one-shot run and scikit-learn
interleaved), with their ratio beside its target at 10,000 records, by the wall clock and
by this process's CPU time.

BM25 beside TF-IDF: the one-shot run and the warm answer with ``scorer: bm25`` (every
answer scores with both, to rank under both, so these differ little), and the work that
differs, scoring one question against every record with each scorer (interleaved),
with BM25's time over TF-IDF's beside its target at 10,000 records.
Run: python bench/engine_scale.py
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.bm25 import record_lengths, score_question_bm25
from engine.tfidf import score_question, store_index
from harness.generate import synthetic_store

SIZES = (10, 1_000, 10_000)
REPEATS = 5
# At the largest size, the engine's one-shot run may take this many times scikit-learn's.
TARGET_VS_SKLEARN = 2.5
# At the largest size, scoring a question with BM25 may take this many times TF-IDF's.
TARGET_BM25_VS_TFIDF = 1.5


def best_of(repeats: int, action: Any, clock: Callable[[], float] = time.perf_counter) -> float:
    times = []
    for _ in range(repeats):
        start = clock()
        action()
        times.append(clock() - start)
    return min(times)


def first_answer(session: engine.Session | None, policy_text: str) -> None:
    assert session is not None
    session.answer_json(policy_text)


def measure(size: int) -> dict[str, Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    policy = {"store": "all", "previous_sessions": True, "max_age_hours": 1000, "budget_words": 200, "max_records": 10}
    bm25_policy = {**policy, "scorer": "bm25"}
    store = synthetic_store(size)
    request = {"store": store, "policy": policy}
    bm25_request = {"store": store, "policy": bm25_policy}
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
    # The same pair in this process's CPU time: on a machine shared with other work, the
    # wall clock also counts the time other processes held the cores.
    cold_cpu, sklearn_cpu = [], []
    for _ in range(REPEATS):
        cold_cpu.append(best_of(1, lambda: engine.run(request), time.process_time))
        sklearn_cpu.append(best_of(1, sklearn_work, time.process_time))
    held = json.loads(session.answer_json(policy_text)[0])["terms_key"]
    bm25_policy_text = json.dumps(bm25_policy)
    session.answer_json(bm25_policy_text)

    # Scoring alone, uncached: the part of an answer where the two scorers differ.
    index = store_index(session)
    lengths = record_lengths(index)
    cold_bm25_times, tfidf_scoring, bm25_scoring = [], [], []
    for _ in range(REPEATS):
        cold_bm25_times.append(best_of(1, lambda: engine.run(bm25_request)))
        tfidf_scoring.append(best_of(1, lambda: score_question(index, question)))
        bm25_scoring.append(best_of(1, lambda: score_question_bm25(index, lengths, question)))
    tfidf_scored, bm25_scored = min(tfidf_scoring), min(bm25_scoring)
    return {
        "records": size,
        "median_words": statistics.median(len(t.split()) for t in texts),
        "engine_cold_s": round(cold, 4),
        "engine_run_json_cold_s": round(best_of(REPEATS, lambda: engine.run_json(as_json)), 4),
        "open_json_s": round(best_of(REPEATS, lambda: engine.open_json(store_text)), 4),
        # The page's first answer follows the open at once; the index is built by whichever comes first.
        "open_json_and_first_answer_s": round(
            best_of(REPEATS, lambda: first_answer(engine.open_json(store_text).session, policy_text)), 4
        ),
        "session_run_warm_s": round(best_of(REPEATS, lambda: session.run(policy)), 4),
        "session_answer_json_warm_s": round(best_of(REPEATS, lambda: session.answer_json(policy_text)), 4),
        "session_answer_json_warm_terms_held_s": round(
            best_of(REPEATS, lambda: session.answer_json(policy_text, held)), 4
        ),
        "sklearn_vectorise_and_cosine_s": round(sklearn, 4),
        "engine_cold_vs_sklearn": round(cold / sklearn, 2),
        "engine_cold_cpu_s": round(min(cold_cpu), 4),
        "sklearn_cpu_s": round(min(sklearn_cpu), 4),
        "engine_cold_vs_sklearn_cpu": round(min(cold_cpu) / min(sklearn_cpu), 2),
        "target_vs_sklearn": TARGET_VS_SKLEARN if size == SIZES[-1] else None,
        "cold_per_record_us": round(cold / size * 1e6, 1),
        "bm25": {
            "engine_cold_s": round(min(cold_bm25_times), 4),
            "session_answer_json_warm_s": round(best_of(REPEATS, lambda: session.answer_json(bm25_policy_text)), 4),
            "score_question_tfidf_s": round(tfidf_scored, 5),
            "score_question_bm25_s": round(bm25_scored, 5),
            "bm25_vs_tfidf_scoring": round(bm25_scored / tfidf_scored, 2),
            "target_bm25_vs_tfidf": TARGET_BM25_VS_TFIDF if size == SIZES[-1] else None,
        },
    }


def main() -> None:
    results = [measure(size) for size in SIZES]
    print(
        json.dumps({"python": sys.version.split()[0], "statistic": f"best of {REPEATS}", "results": results}, indent=2)
    )


if __name__ == "__main__":
    main()
