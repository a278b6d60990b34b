"""The repository's fixtures as tests read them: the default, support and agent-memory stores, the golden
cases, and what a golden case holds the engine's result to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness import ROOT
from harness.results import result_of

FIXTURES = ROOT / "fixtures"
GOLDEN_FILES = sorted((FIXTURES / "golden").glob("*.json"))
SUPPORT_STORE = FIXTURES / "support-store.json"
# The store whose lessons need time: facts replaced, a late-filed note, an announcement.
TIMELINE_STORE = FIXTURES / "timeline-store.json"
AGENT_STORE = FIXTURES / "agent-memory-store.json"
# Every fixture store with guides, by the name tests give it: each guide is walked in a browser.
GUIDED_STORES: dict[str, Path] = {
    "default": FIXTURES / "store.json",
    "support": SUPPORT_STORE,
    "agent": AGENT_STORE,
    "timeline": TIMELINE_STORE,
}


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# The default store, shared: read it, and copy it before changing anything in it.
STORE: dict[str, Any] = load_json(FIXTURES / "store.json")


def assert_golden_case(case: dict[str, Any], store: Any) -> None:
    """A golden case file holds: its tray, words used, every outcome and coverage, and
    when the case says, how the question was read, ranks under both scorers and idfs, and
    for the embedding scorers ranks under each scorer, similarities, fused sums, the tokens
    that carried a record's similarity, their contributions and closest tokens."""
    assert case["description"].strip()
    result = result_of({"store": store, "policy": case["policy"]})
    expected = case["expected"]
    assert result["selected"] == expected["selected"]
    assert result["words_used"] == expected["words_used"]
    assert {r["id"]: r["outcome"] for r in result["records"]} == expected["outcomes"]
    coverage = result["coverage"]
    assert (coverage["found"], coverage["total"]) == (expected["coverage"]["found"], expected["coverage"]["total"])
    question: dict[str, Any] = dict(result["question"])
    for name, value in expected.get("question", {}).items():
        assert question[name] == value, name
    # Where a case says: each ranked record's rank under the policy's scorer and the other's,
    for record_id, (place, other_place) in expected.get("ranks", {}).items():
        row = next(r for r in result["records"] if r["id"] == record_id)
        assert (row["rank"], row["other_rank"]) == (place, other_place), record_id
    # and a term's idf under the policy's scorer, to two places, as a guide quotes it.
    rows: dict[str, Any] = {r["id"]: r for r in result["records"]}
    idf = {part["term"]: part["idf"] for r in rows.values() for part in r["terms"] if "idf" in part}
    for term, value in expected.get("idf", {}).items():
        assert round(idf[term], 2) == value, term
    # Where a case says: a record's rank under each scorer the answer computed (null: not
    # ranked by it), its similarity and fused sum to three places,
    for record_id, ranks in expected.get("ranks_by_scorer", {}).items():
        assert rows[record_id]["ranks"] == ranks, record_id
    for key in ("similarity", "rrf"):
        for record_id, value in expected.get(key, {}).items():
            number = rows[record_id][key]
            assert number is not None and round(number, 3) == value, (key, record_id)
    # the question tokens that carried a record's similarity most, largest first,
    for record_id, tokens in expected.get("carried_by", {}).items():
        parts = sorted(rows[record_id]["terms"], key=lambda part: -part["contribution"])
        assert [part["token"] for part in parts[: len(tokens)]] == tokens, record_id
    # and a question token's contribution to three places and the record's tokens closest to it.
    for key in ("contributions", "closest"):
        for record_id, by_token in expected.get(key, {}).items():
            by_name = {part["token"]: part for part in rows[record_id]["terms"]}
            for token, value in by_token.items():
                if key == "contributions":
                    assert round(by_name[token]["contribution"], 3) == value, (record_id, token)
                else:
                    assert [near["token"] for near in by_name[token]["closest"]][: len(value)] == value, (
                        record_id,
                        token,
                    )
