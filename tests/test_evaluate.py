"""The evaluation (engine/evaluate.py): every question under every scorer, its measures held
to hand-checked numbers and to ranx (an independent IR toolkit, a dev dependency only), its
rankings and trays to plain runs, one session per store, and the command line's --evaluate."""

from __future__ import annotations

import html
import json
import math
import random
import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ranx import Qrels, Run
from ranx import evaluate as ranx_evaluate

import engine
from engine import api, parse_store, run
from engine.__main__ import format_evaluation
from engine.evaluate import MEASURE_NAMES, SWEEP_WEIGHTS, evaluate, measure, printed, sweep_over
from engine.fields import FIELDS_BY_NAME, OUTCOME_STAGE, OUTCOMES_BY_CODE
from engine.scope import WIDER
from engine.scorers import SCORER_NAMES, SCORERS
from engine.session import Session
from harness import ROOT
from harness.fixtures import AGENT_STORE, STORE, SUPPORT_STORE, load_json
from harness.generate import BASE_STORE, POLICIES, RECORD, policies, random_policy, random_store

# ranx's numba kernels cast its own run arrays on first use; the oracle's values are checked
# against hand-computed ones below, so its type-safety note is not ours to act on.
pytestmark = pytest.mark.filterwarnings("ignore:unsafe cast from uint64 to int64")

SUPPORT = load_json(SUPPORT_STORE)
WIDE = {"store": "all", "previous_sessions": True, "max_age_hours": 100_000}


def evaluated(store: dict[str, Any], policy: dict[str, Any]) -> dict[str, Any]:
    result = api.evaluate({"store": store, "policy": policy})
    assert "error" not in result, result
    return dict(result)


def ranx_measures(ranking: list[str], supporting: list[str], k: int) -> dict[str, float]:
    """ranx's recall, precision and nDCG at k and MRR for one ranking (scores falling with
    rank, so ranx orders it as given). ranx refuses an empty run: one record that supports
    nothing stands in for it, which changes none of the four."""
    scores = {rid: float(len(ranking) - place) for place, rid in enumerate(ranking)} or {"(none)": 1.0}
    values = ranx_evaluate(
        Qrels({"q": {rid: 1 for rid in supporting}}),
        Run({"q": scores}),
        [f"recall@{k}", f"precision@{k}", "mrr", f"ndcg@{k}"],
    )
    return {
        "recall": values[f"recall@{k}"],
        "precision": values[f"precision@{k}"],
        "mrr": values["mrr"],
        "ndcg": values[f"ndcg@{k}"],
    }


def assert_agrees_with_ranx(result: dict[str, Any]) -> None:
    """Every measured (question, scorer) equals ranx's four measures and the tray's share;
    every mean is the mean of its rows."""
    k = result["k"]
    for row in result["evaluation"]:
        if row["measures"] is None:
            assert row["supporting"] == [] and row["question"] not in result["measured"]
            continue
        mine = row["measures"]
        for name, value in ranx_measures(row["ranking"], row["supporting"], k).items():
            assert math.isclose(mine[name], value, rel_tol=1e-9, abs_tol=1e-12), (row, name, value)
        in_tray = len(set(row["tray"]) & set(row["supporting"]))
        assert mine["coverage"] == in_tray / len(row["supporting"])
    for scorer, means in result["means"].items():
        rows = [r["measures"] for r in result["evaluation"] if r["scorer"] == scorer and r["measures"] is not None]
        if not rows:
            assert means is None
            continue
        for name in MEASURE_NAMES:
            assert math.isclose(means[name], sum(r[name] for r in rows) / len(rows), rel_tol=1e-12)


def assert_plain_runs_agree(store: dict[str, Any], policy: dict[str, Any], result: dict[str, Any]) -> None:
    """Each (question, scorer)'s ranking, tray and supporting records' outcomes are those of a
    plain run of that question."""
    for row in result["evaluation"]:
        asked = {**policy, "question": row["question"], "scorer": row["scorer"], "question_text": ""}
        plain = run({"store": store, "policy": asked})
        assert "error" not in plain, plain
        if policy.get("mmr_lambda", 1) < 1:
            # Under MMR the measured ranking is the order MMR decided the records in: the plain
            # run's ranked records, with its tray in the order MMR filled it.
            assert sorted(row["ranking"]) == sorted(plain["ranked"]) and row["tray"] == plain["selected"], row
            assert [rid for rid in row["ranking"] if rid in row["tray"]] == row["tray"], row
        else:
            assert (row["ranking"], row["tray"]) == (plain["ranked"], plain["selected"]), row
        assert row["outcomes"] == {r["id"]: r["outcome"] for r in plain["records"] if r["id"] in row["supporting"]}


# ------------------------------------------------------------------ by hand


def test_measures_by_hand() -> None:
    """Ranking A B C D, supporting B and D, k 2, tray A B: one hit in two, first at 2."""
    got = measure(["A", "B", "C", "D"], ["A", "B"], ["B", "D"], 2)
    ideal = 1 + 1 / math.log2(3)
    assert got == {
        "recall": 0.5,
        "precision": 0.5,
        "mrr": 0.5,
        "ndcg": (1 / math.log2(3)) / ideal,
        "coverage": 0.5,
    }


def test_precision_divides_by_k_even_when_fewer_are_ranked() -> None:
    """One record ranked and it supports: precision at 3 is 1/3 (trec_eval's P_3), recall 1."""
    got = measure(["S"], ["S"], ["S"], 3)
    assert (got["precision"], got["recall"], got["ndcg"], got["mrr"]) == (1 / 3, 1.0, 1.0, 1.0)


def test_mrr_reads_the_whole_ranking_and_ndcg_only_the_first_k() -> None:
    """A supporting record ranked 4th with k 3: MRR 1/4, nDCG, recall and precision 0."""
    got = measure(["A", "B", "C", "S"], [], ["S"], 3)
    assert got == {"recall": 0.0, "precision": 0.0, "mrr": 0.25, "ndcg": 0.0, "coverage": 0.0}


def test_nothing_to_measure_is_refused() -> None:
    with pytest.raises(ValueError, match="nothing to measure"):
        measure(["A"], ["A"], [], 3)


def test_the_scorers_are_the_scorer_tables() -> None:
    """The evaluation compares every row of the scorer table, in its order."""
    result = evaluated(STORE, {})
    table = [row.id for row in SCORERS]
    assert list(result["means"]) == table
    assert [row["scorer"] for row in result["evaluation"]] == table * len(STORE["questions"])


def test_a_question_without_supporting_records_is_listed_with_its_reason() -> None:
    """Team B declares none for on-call-contact: its rows have no measures, it is named with
    the reason, and the means are over the other three."""
    result = evaluated(STORE, {**WIDE, "tenant": "team-b"})
    assert result["measured"] == ["deployment-region", "timeout-incident", "rollback-steps"]
    assert result["unmeasured"] == [
        {
            "question": "on-call-contact",
            "reason": "declares no supporting record for Team B, so there is nothing to measure; left out of the means",
        }
    ]
    rows = [row for row in result["evaluation"] if row["question"] == "on-call-contact"]
    assert len(rows) == len(SCORERS) and all(row["measures"] is None for row in rows)


def test_no_question_measured_gives_no_means_and_no_best() -> None:
    store = {**STORE, "questions": [{**q, "supporting": {}} for q in STORE["questions"]]}
    result = evaluated(store, {})
    assert set(result["means"].values()) == {None}
    assert result["best"] == {name: [] for name in MEASURE_NAMES}


def test_best_marks_every_scorer_tied_at_the_top() -> None:
    """Support store, team A, everything in scope, recency 0.5: BM25 alone has the best MRR
    (0.625); TF-IDF and BM25 tie on recall."""
    result = evaluated(SUPPORT, {**WIDE, "recency_weight": 0.5})
    assert result["best"]["mrr"] == ["bm25"] and result["means"]["bm25"]["mrr"] == 0.625
    assert result["best"]["recall"] == ["tfidf", "bm25"]
    for name, winners in result["best"].items():
        top = max(m[name] for m in result["means"].values())
        assert winners == [s for s, m in result["means"].items() if m[name] == top]


@pytest.mark.parametrize("policy", [{}, {"store": "semantic", "previous_sessions": True}])
def test_no_scorer_is_best_where_every_scorer_ties(policy: dict[str, Any]) -> None:
    """The default settings (every mean 0) and semantic facts with previous sessions (every
    scorer finds M2 and M8 alike): each column ties, so no scorer is marked best in it."""
    result = evaluated(STORE, policy)
    for name in MEASURE_NAMES:
        assert len({m[name] for m in result["means"].values()}) == 1, name
    assert result["best"] == {name: [] for name in MEASURE_NAMES}


def test_the_policy_but_its_question_is_in_force() -> None:
    """The question, an own question and the scorer chosen change nothing; k is max_records."""
    base = evaluated(STORE, {**WIDE, "max_records": 2})
    other = evaluated(
        STORE, {**WIDE, "max_records": 2, "question": "rollback-steps", "question_text": "hello", "scorer": "hybrid"}
    )
    assert base["evaluation"] == other["evaluation"] and base["means"] == other["means"] and base["k"] == 2


# ------------------------------------------------------------------ out of scope


def assert_out_of_scope_is_the_scope_checks(
    store: dict[str, Any], policy: dict[str, Any], result: dict[str, Any]
) -> None:
    """The out-of-scope note against plain runs: each supporting record named is one a run
    leaves out at scope (its first check is the run's outcome), those not named are in scope;
    under the settings offered, each record said to be let in is in scope and the others
    still out; the sentence names every record with the label of each setting that leaves
    it out."""
    tenant = result["policy"]["tenant"]
    supporting = list(dict.fromkeys(rid for q in store["questions"] for rid in q["supporting"].get(tenant, [])))
    before = run({"store": store, "policy": policy})
    assert "error" not in before
    outcome = {r["id"]: r["outcome"] for r in before["records"]}
    note = result["out_of_scope"]
    named = {entry["record"]: entry for entry in (note["left_out"] if note else [])}
    for rid in supporting:
        out = OUTCOME_STAGE[outcome[rid]] == 2
        assert (rid in named) == out, (rid, outcome[rid])
        if out:
            assert named[rid]["outcomes"][0] == outcome[rid]
    if note is None:
        return
    after = run({"store": store, "policy": {**policy, **note["include"]}})
    assert "error" not in after
    widened = {r["id"]: r["outcome"] for r in after["records"]}
    for rid, entry in named.items():
        assert (OUTCOME_STAGE[widened[rid]] != 2) == entry["included"], (rid, widened[rid])
        assert rid in note["why"]
        for code in entry["outcomes"]:
            name = OUTCOMES_BY_CODE[code].setting
            assert name is not None and f"{FIELDS_BY_NAME[name].label} (" in note["why"]
    assert bool(note["include"]) == any(entry["included"] for entry in named.values())
    for name, value in note["include"].items():
        assert FIELDS_BY_NAME[name].label in note["include_text"] and value != result["policy"][name]


def test_the_default_settings_say_why_every_measure_is_zero() -> None:
    """Working context without previous sessions holds none of the four supporting records:
    each is left out by the memory store and then by previous sessions, and All stores with
    previous sessions on lets every one in (measured again: nothing left out, nonzero means)."""
    result = evaluated(STORE, {})
    note = result["out_of_scope"]
    assert note is not None
    assert [(e["record"], e["questions"], e["outcomes"], e["included"]) for e in note["left_out"]] == [
        ("M2", ["deployment-region"], ["store_filtered", "previous_session"], True),
        ("M3", ["timeout-incident"], ["store_filtered", "previous_session"], True),
        ("M4", ["rollback-steps"], ["store_filtered", "previous_session"], True),
        ("M8", ["on-call-contact"], ["store_filtered", "previous_session"], True),
    ]
    assert note["why"] == (
        "No question's supporting record is in scope, so every measure is 0: M2, M3, M4 and M8 are left out "
        "by Memory store (Working context) and by Include previous sessions (off)."
    )
    assert note["include"] == {"store": "all", "previous_sessions": True}
    assert note["include_text"] == "Memory store: All stores; Include previous sessions: on"
    assert {m["recall"] for m in result["means"].values()} == {0.0}
    assert_out_of_scope_is_the_scope_checks(STORE, {}, result)
    included = evaluated(STORE, note["include"])
    assert included["out_of_scope"] is None and included["means"]["tfidf"]["recall"] > 0


def test_a_wider_maximum_age_is_the_oldest_supporting_record_left_out() -> None:
    """Maximum age 100 hours leaves out M4 (150 hours old) alone: the age offered is 150."""
    policy = {**WIDE, "max_age_hours": 100}
    note = evaluated(STORE, policy)["out_of_scope"]
    assert note is not None and note["include"] == {"max_age_hours": 150}
    assert note["why"] == (
        "1 of 4 supporting records is out of scope, so no scorer ranks it: "
        "M4 is left out by Maximum age (100 hours, inclusive)."
    )


def test_a_superseded_supporting_record_is_said_to_stay_out() -> None:
    """A question that declares M1, which M2 supersedes: no wider filter lets it in, the note
    says so with the engine's reason, and the settings offered let in only the others."""
    store = json.loads(json.dumps(STORE))
    store["questions"][0]["supporting"]["team-a"] = ["M1", "M2"]
    result = evaluated(store, {})
    note = result["out_of_scope"]
    assert note is not None
    first = note["left_out"][0]
    assert (first["record"], first["outcomes"], first["included"]) == ("M1", ["superseded"], False)
    assert (
        "M1 is left out by Keep latest fact per key (on), and widening the other filters does not let it in: "
        "superseded by M2, a newer fact for key deploy.region (96 hours old against 410 hours)."
    ) in note["why"]
    assert note["include"] == {"store": "all", "previous_sessions": True}
    assert_out_of_scope_is_the_scope_checks(store, {}, result)


def test_the_wider_settings_are_scope_checks_each_naming_its_own_field() -> None:
    """Each widened check is a scope check (stage 2) and changes only the field its row in
    the outcome table names."""
    store = parse_store(STORE)
    policy = engine.parse_policy({}, store)
    for outcome, wider in WIDER.items():
        assert OUTCOME_STAGE[outcome] == 2
        change = wider(store.records, policy)
        assert change is not None and list(change) == [OUTCOMES_BY_CODE[outcome].setting]


# ------------------------------------------------------------------ printing


def test_measures_print_rounded_half_up_as_by_hand() -> None:
    """0.5625 prints 0.563 (format's ties-to-even on the binary value writes 0.562)."""
    assert format(0.5625, ".3f") == "0.562"
    cases = [(0.5625, "0.563"), (0.0625, "0.063"), (0.4375, "0.438"), (0.8125, "0.813"), (2.675, "2.675")]
    assert [printed(x) for x in (x for x, _ in cases)] == [want for _, want in cases]
    assert [printed(1 / 3), printed(0.6309297535714575), printed(1.0), printed(0.0)] == [
        "0.333",
        "0.631",
        "1.000",
        "0.000",
    ]
    assert printed(2.675, 2) == "2.68" and format(2.675, ".2f") == "2.67"
    assert printed(0.0005) == "0.001" and printed(0.00049999) == "0.000"


# ------------------------------------------------------------------ ranx and plain runs


@pytest.mark.parametrize("name", ["store", "support"])
@pytest.mark.parametrize(
    "policy",
    [
        {},
        WIDE,
        {**WIDE, "recency_weight": 0.5},
        {**WIDE, "max_records": 1, "budget_words": 12},
        {**WIDE, "tenant": "second"},
        {**WIDE, "recency_weight": 0.3, "max_records": 5, "min_similarity": 0.2, "rrf_k": 5},
    ],
)
def test_fixture_stores_agree_with_ranx_and_plain_runs(name: str, policy: dict[str, Any]) -> None:
    """Both fixture stores, several policies: every measure equals ranx's, every ranking and
    tray a plain run's."""
    store = STORE if name == "store" else SUPPORT
    if policy.get("tenant") == "second":
        policy = {**policy, "tenant": store["tenants"][1]["id"]}
    result = evaluated(store, policy)
    assert result["measured"], "a fixture store measures some question"
    assert_agrees_with_ranx(result)
    assert_plain_runs_agree(store, policy, result)
    assert_out_of_scope_is_the_scope_checks(store, policy, result)


@st.composite
def supported_stores(draw: st.DrawFn) -> dict[str, Any]:
    """A random store of the default store's tenants and questions, each question supported
    by a random few of each tenant's records."""
    store = random_store(BASE_STORE, draw(st.lists(RECORD, min_size=1, max_size=12)))
    for question in store["questions"]:
        for tenant in store["tenants"]:
            own = [r["id"] for r in store["records"] if r["tenant"] == tenant["id"]]
            question["supporting"][tenant["id"]] = (
                draw(st.lists(st.sampled_from(own), unique=True, max_size=3)) if own else []
            )
    return store


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), store=supported_stores())
def test_random_stores_and_policies_agree_with_ranx_and_plain_runs(data: st.DataObject, store: dict[str, Any]) -> None:
    """Random stores and policies drawn from the field table: the same two agreements, and
    what the evaluation says is out of scope agrees with plain runs."""
    policy = data.draw(policies(store))
    result = evaluated(store, policy)
    assert_agrees_with_ranx(result)
    assert_plain_runs_agree(store, policy, result)


@settings(max_examples=40, deadline=None)
@given(policy=POLICIES)
def test_random_policies_on_the_default_store_agree_with_ranx(policy: dict[str, Any]) -> None:
    assert_agrees_with_ranx(evaluated(STORE, policy))


# ------------------------------------------------------------------ one session


def test_one_index_and_one_set_of_vectors_serve_the_whole_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    """16 (question, scorer) runs build the TF-IDF index once and embed the records once."""
    counts = {"index": 0, "vectors": 0}
    from engine.semantic import store_vectors
    from engine.tfidf import build_index

    def counted_index(*args: Any) -> Any:
        counts["index"] += 1
        return build_index(*args)

    def counted_vectors(*args: Any) -> Any:
        counts["vectors"] += 1
        return store_vectors(*args)

    monkeypatch.setattr("engine.tfidf.build_index", counted_index)
    monkeypatch.setattr("engine.semantic.store_vectors", counted_vectors)
    result = evaluated(STORE, WIDE)
    assert len(result["evaluation"]) == 16 and counts == {"index": 1, "vectors": 1}


def test_the_sweep_is_the_evaluation_at_each_recency_weight() -> None:
    """Eleven weights 0, 0.1, …, 1; each point's nDCG are that weight's evaluation means."""
    store = parse_store(SUPPORT)
    session = Session(store, vectors=api.load_vectors)
    policy = engine.parse_policy(WIDE, store)
    sweep = sweep_over(session, policy)
    assert sweep["field"] == "recency_weight"
    assert [p["value"] for p in sweep["points"]] == list(SWEEP_WEIGHTS) == [i / 10 for i in range(11)]
    for point in sweep["points"]:
        asked = evaluated(SUPPORT, {**WIDE, "recency_weight": point["value"]})
        assert point["ndcg"] == {s: m["ndcg"] for s, m in asked["means"].items()}
    assert len({json.dumps(p["ndcg"]) for p in sweep["points"]}) > 1, "recency changes the support store's nDCG"


AGENT = load_json(AGENT_STORE)


def test_the_evaluation_measures_the_blend_and_the_mmr_tray_in_force() -> None:
    """The evaluation keeps the policy's blend and λ: under MMR its ranking is the order MMR
    picked (the backup question's root cause A4 second, behind A1, not fourth), so recall,
    precision, nDCG and coverage at k = 2 move with λ; under the Generative Agents blend the
    lunch question's allergy record L2 is first, where relevance alone puts it second."""
    wide = {"store": "all", "previous_sessions": True, "max_records": 2}
    greedy = evaluated(AGENT, wide)
    mmr = evaluated(AGENT, {**wide, "mmr_lambda": 0.5})
    row = {(r["question"], r["scorer"]): r for r in mmr["evaluation"]}
    assert row[("backup-failure", "tfidf")]["ranking"][:2] == ["A1", "A4"]
    assert row[("backup-failure", "tfidf")]["tray"] == ["A1", "A4"]
    before = {(r["question"], r["scorer"]): r for r in greedy["evaluation"]}
    assert before[("backup-failure", "tfidf")]["ranking"][:2] == ["A1", "A2"]
    assert before[("backup-failure", "tfidf")]["measures"]["recall"] == 0.0
    assert row[("backup-failure", "tfidf")]["measures"]["recall"] == 1.0
    seed = {(r["question"], r["scorer"]): r for r in evaluated(AGENT, {**wide, "max_records": 1})["evaluation"]}
    ga = evaluated(AGENT, {**wide, "max_records": 1, "blend": "generative-agents"})
    lunch = {(r["question"], r["scorer"]): r for r in ga["evaluation"]}
    assert seed[("team-lunch", "tfidf")]["first_rank"] == 2 and lunch[("team-lunch", "tfidf")]["first_rank"] == 1
    assert ga["policy"]["blend"] == "generative-agents"


def test_the_sweep_sweeps_mmr_lambda_as_it_sweeps_the_recency_weight() -> None:
    """The same eleven values of λ; each point's nDCG are that λ's evaluation means, and on the
    agent store, where near-copies crowd the tray, λ changes them. A field not in SWEPT is refused."""
    from engine.evaluate import evaluate_json

    store = parse_store(AGENT)
    session = Session(store, vectors=api.load_vectors)
    wide = {"store": "all", "previous_sessions": True, "max_records": 2}
    sweep = sweep_over(session, engine.parse_policy(wide, store), "mmr_lambda")
    assert sweep["field"] == "mmr_lambda" and [p["value"] for p in sweep["points"]] == list(SWEEP_WEIGHTS)
    for point in sweep["points"]:
        asked = evaluated(AGENT, {**wide, "mmr_lambda": point["value"]})
        assert point["ndcg"] == {s: m["ndcg"] for s, m in asked["means"].items()}
    assert len({json.dumps(p["ndcg"]) for p in sweep["points"]}) > 1, "λ changes the agent store's nDCG"
    assert json.loads(evaluate_json(session, json.dumps(wide), sweep="mmr_lambda")) == json.loads(json.dumps(sweep))
    refused = json.loads(evaluate_json(session, json.dumps(wide), sweep="budget_words"))
    assert refused["error"]["problems"][0]["path"] == "sweep"


def test_evaluate_json_answers_bad_input_with_an_error_object() -> None:
    from engine.evaluate import evaluate_json

    session = Session(parse_store(STORE), vectors=api.load_vectors)
    assert json.loads(evaluate_json(session, "{"))["error"]["name"] == "InvalidJSON"
    bad = json.loads(evaluate_json(session, json.dumps({"max_records": 0})))
    assert bad["error"]["problems"][0]["path"] == "policy.max_records"
    good = json.loads(evaluate_json(session, json.dumps(WIDE)))
    assert good == json.loads(json.dumps(evaluate(session, engine.parse_policy(WIDE, session.store))))


# ------------------------------------------------------------------ command line


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], capture_output=True, text=True, cwd=ROOT, check=False
    )


def test_cli_json_is_the_evaluation_object() -> None:
    done = cli("--evaluate", "--json", "--store", "all", "--previous-sessions", "--recency-weight", "0.5")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert list(printed) == [
        "policy",
        "k",
        "measure_names",
        "evaluation",
        "means",
        "best",
        "measured",
        "unmeasured",
        "out_of_scope",
    ]
    assert printed == evaluated(STORE, {"store": "all", "previous_sessions": True, "recency_weight": 0.5})
    assert list(printed["evaluation"][0]) == [
        "question",
        "scorer",
        "ranking",
        "tray",
        "supporting",
        "outcomes",
        "first_rank",
        "hits",
        "measures",
    ]
    assert list(printed["evaluation"][0]["measures"]) == ["recall", "precision", "mrr", "ndcg", "coverage"]


def test_cli_table_marks_the_best_and_lists_every_question() -> None:
    """The support store at recency 0.5: BM25's MRR row is marked, TF-IDF's is not; one row per
    question and scorer, the tray in brackets."""
    done = cli(
        "--fixtures",
        str(SUPPORT_STORE),
        "--evaluate",
        "--store",
        "all",
        "--previous-sessions",
        "--max-age-hours",
        "100000",
        "--recency-weight",
        "0.5",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    means = {
        line.split()[0]: line.split()[1:]
        for line in lines
        if line.split()[:1] in (["TF-IDF"], ["BM25"], ["Embedding"], ["Hybrid"]) and len(line.split()) == 6
    }
    assert means["BM25"][2] == "0.625*" and not means["TF-IDF"][2].endswith("*")
    assert means["TF-IDF"][0] == "1.000*" and means["Embedding"][0] == "0.750"
    rows = [
        line
        for line in lines
        if line.startswith(("refund-window ", "order-delay ", "billing-escalation ", "chat-request "))
    ]
    assert len(rows) == 16
    assert "refund-window       BM25          2    1/3  [S5] [S2] S3 S4; S2" in rows


def test_cli_says_why_supporting_records_are_out_of_scope_and_how_to_include_them() -> None:
    """The default settings: the means carry no best mark, the evaluation's sentence is
    printed as it is (wrapped), then the flags that include the records; with those flags
    the note is gone."""
    done = cli("--evaluate")
    assert done.returncode == 0, done.stderr
    assert "*" not in done.stdout.split("Question ")[0].split("Scorer ", 1)[1]
    note = evaluated(STORE, {})["out_of_scope"]
    said = done.stdout.split("Out of scope: ", 1)[1].split("\nTo include them: ")[0]
    assert " ".join(said.split()) == note["why"]
    flags = done.stdout.split("To include them: ", 1)[1].splitlines()[0]
    assert flags == "--store all --previous-sessions"
    included = cli("--evaluate", *flags.split())
    assert included.returncode == 0 and "Out of scope" not in included.stdout


def test_cli_rounds_a_mean_of_0_5625_half_up() -> None:
    """Default store, everything in scope to 500 hours, recency 0.1, every fact kept: Hybrid's
    MRR is 9/16 exactly and prints 0.563."""
    policy = {
        "store": "all",
        "previous_sessions": True,
        "max_age_hours": 500,
        "recency_weight": 0.1,
        "latest_per_key": False,
    }
    assert evaluated(STORE, policy)["means"]["hybrid"]["mrr"] == 0.5625
    done = cli(
        "--evaluate",
        "--store",
        "all",
        "--previous-sessions",
        "--max-age-hours",
        "500",
        "--recency-weight",
        "0.1",
        "--no-latest-per-key",
    )
    hybrid = next(
        line.split() for line in done.stdout.splitlines() if line.startswith("Hybrid ") and len(line.split()) == 6
    )
    assert hybrid[3] == "0.563"


# ------------------------------------------------------------------ page and command line


def page_views(evaluations: list[dict[str, Any]], numbers: list[float]) -> dict[str, list[str]]:
    """The page's scoreboard views and measure strings, rendered by its own modules under Node."""
    done = subprocess.run(
        ["node", str(ROOT / "harness" / "render_scoreboard.mjs")],
        input=json.dumps({"evaluations": evaluations, "numbers": numbers}),
        capture_output=True,
        text=True,
        check=True,
    )
    views: dict[str, list[str]] = json.loads(done.stdout)
    return views


def plain(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def test_the_page_and_the_command_line_print_the_same_measures_and_sentences() -> None:
    """Random policies on both fixture stores (and the 9/16 one): each mean cell of the page's
    table is the command line's, the best marked alike, and the page's note is the sentence
    the command line prints; random numbers and written ties print alike too."""
    rng = random.Random(55)
    tie = {
        "store": "all",
        "previous_sessions": True,
        "max_age_hours": 500,
        "recency_weight": 0.1,
        "latest_per_key": False,
    }
    cases = [(STORE, {}), (STORE, tie)] + [
        (store, random_policy(store, rng)) for _ in range(8) for store in (STORE, SUPPORT)
    ]
    evaluations = [evaluated(store, policy) for store, policy in cases]
    numbers = (
        [rng.random() for _ in range(300)] + [rng.randrange(0, 2000) / 2000 for _ in range(300)] + [0.5625, 0.0625]
    )
    views = page_views(evaluations, numbers)
    assert views["numbers"] == [printed(x) for x in numbers]
    assert views["numbers"][-2:] == ["0.563", "0.063"]
    for evaluation, means, scope in zip(evaluations, views["means"], views["scope"], strict=True):
        cli_text = format_evaluation(evaluation)  # type: ignore[arg-type]
        cli_rows = {
            line.split()[0]: line.split()[1:6]
            for line in cli_text.splitlines()
            if line.split()[:1] in (["TF-IDF"], ["BM25"], ["Embedding"], ["Hybrid"]) and len(line.split()) == 6
        }
        for scorer, row in re.findall(r'<tr data-scorer="(\w+)">(.*?)</tr>', means):
            page_cells = [plain(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            cli_cells = cli_rows[SCORER_NAMES[scorer]]
            assert [c.removesuffix(" best") for c in page_cells] == [c.rstrip("*") for c in cli_cells]
            assert [c.endswith(" best") for c in page_cells] == [c.endswith("*") for c in cli_cells]
        note = evaluation["out_of_scope"]
        if note is None:
            assert scope == "" and "Out of scope" not in cli_text
        else:
            assert note["why"] in plain(scope)
            said = cli_text.split("Out of scope: ", 1)[1].split("\nTo include them:")[0].split("\n\n")[0]
            assert " ".join(said.split()) == note["why"]
        assert "(0.562" not in cli_text


def test_cli_bad_input_exits_2_with_one_line() -> None:
    for args in (["--max-records", "0"], ["--tenant", "nobody"], ["--fixtures", "/nonexistent.json"]):
        done = cli("--evaluate", *args)
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("python -m engine: error:")


def test_the_command_line_sweeps_a_field_it_names() -> None:
    """--sweep mmr_lambda prints a row per λ, each scorer's mean nDCG as the sweep gives it,
    the λ in force marked; a field that cannot be swept is refused by argparse."""
    from engine.__main__ import main

    args = ["--fixtures", str(AGENT_STORE), "--store", "all", "--previous-sessions", "--max-records", "2"]
    out = subprocess.run(
        [sys.executable, "-m", "engine", *args, "--sweep", "mmr_lambda"], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    swept = api.sweep(
        {"store": AGENT, "policy": {"store": "all", "previous_sessions": True, "max_records": 2}}, "mmr_lambda"
    )
    lines = out.stdout.splitlines()
    assert lines[1].split() == ["mmr_lambda", *(SCORER_NAMES[s.id] for s in SCORERS)]
    for line, point in zip(lines[2:], swept["points"], strict=True):  # type: ignore[typeddict-item]
        assert line.split()[:5] == [f"{point['value']:g}", *(printed(v) for v in point["ndcg"].values())]
    assert lines[-1].endswith("(set now)")
    with pytest.raises(SystemExit):
        main([*args, "--sweep", "budget_words"])
