"""Every sentence with a number agrees with the answer, under the scorer in force.

Random policies × every scorer × both fixture stores × own questions: each claim the
reading, the CLI table, the breakdown, the tray and the diagram make is produced by a
function of the answer (engine/reading.py, engine/__main__.py, site/js/views/*), and here
it is checked against numbers computed independently: the tokens by the token pattern
and the stop-word list, the word pieces by Hugging Face's tokenizers, the best BM25 by a
max over the tenant's own records, the parts by their sums, the record shown by the
ranking.
"""

from __future__ import annotations

import html
import json
import math
import random
import re
import subprocess
from functools import cache
from typing import Any

import pytest
from tokenizers import Tokenizer

import engine
from engine.__main__ import format_table
from engine.api import check_store
from engine.embedding import StaticEmbedding, default_vector_path
from engine.reading import NEGATIONS
from engine.scorers import COLUMNS, SCORER_IDS, SCORER_NAMES, SCORERS_BY_ID, SHARED_INDEX
from engine.shapes import Result
from harness import ROOT
from harness.fixtures import FIXTURES, load_json
from harness.generate import random_policy
from harness.results import result_of

STORES = {
    name: load_json(FIXTURES / name)
    for name in ("store.json", "support-store.json", "agent-memory-store.json", "timeline-store.json")
}
# Words an own question is drawn from besides the store's: stop words, one-letter words,
# words in no record, near misses of record words, punctuation.
EXTRA_WORDS = ["where", "do", "our", "I", "a", "servers", "live", "deploy", "fail", "checkouts", "?", ":", "zyxwv"]
# Negations: a stop word, a word in no record, one a support record holds, contractions.
EXTRA_WORDS += ["not", "without", "never", "didn't", "isn’t", "except", "nor"]
CASES_PER_STORE = 24


def word_tokens(text: str) -> list[str]:
    return re.findall(r"\b\w\w+\b", text.lower())


@cache
def tokenizer() -> Tokenizer:
    return Tokenizer.from_file(str(ROOT / "embedding" / "tokenizer.json"))


def own_question(store: dict[str, Any], rng: random.Random) -> str:
    words = [w for record in store["records"] for w in record["text"].split()] + EXTRA_WORDS
    return " ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))[:200]


def cases() -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(20261205)
    made = []
    for name, store in STORES.items():
        for i in range(CASES_PER_STORE):
            policy = random_policy(store, rng, over_time=True) | {"scorer": SCORER_IDS[i % len(SCORER_IDS)]}
            policy["question_text"] = own_question(store, rng) if i % 2 else ""
            made.append((name, policy))
    return made


CASES = cases()


@cache
def answer(index: int) -> Result:
    name, policy = CASES[index]
    return result_of({"store": STORES[name], "policy": policy})


def vocabulary(store: dict[str, Any], as_of: float = 0) -> set[str]:
    """The words of the records that existed ``as_of`` hours ago (every record, now)."""
    return {
        token
        for record in store["records"]
        if record["age_hours"] >= as_of
        for token in word_tokens(record["text"])
        if token not in engine.STOP_WORDS
    }


def check_as_of(claim: Any, result: Result, store: dict[str, Any]) -> None:
    """The as-of sentence: the hour, how many of the store's records were written by then
    (counted here from their ages), the age it counts from, and the clock that decides."""
    policy = result["policy"]
    as_of, text = policy["as_of_hours"], claim["text"]
    written = sum(1 for record in store["records"] if record["age_hours"] >= as_of)
    total = len(store["records"])
    if as_of:
        assert text.startswith(f"As of {as_of:g} hour{'' if as_of == 1 else 's'} ago: {written} of {total} records")
        assert f"only those {written}," in text and f"age - {as_of:g}" in text
    else:
        assert not text.startswith("As of")
    assert ("became true" in text) == (policy["latest_by"] == "true")


def check_reading(result: Result, store: dict[str, Any]) -> None:
    """Each reading claim, against the question's tokens, the store's words and the pieces."""
    q = result["question"]
    scorer = SCORERS_BY_ID[result["policy"]["scorer"]]
    tokens = word_tokens(q["text"])
    known = vocabulary(store, result["policy"]["as_of_hours"])
    terms = list(dict.fromkeys(t for t in tokens if t not in engine.STOP_WORDS))
    by_kind = {claim["kind"]: claim for claim in q["reading"]}
    for claim in q["reading"]:
        # Each claim is about a scorer in force, and its sentence names it and every item.
        if claim["kind"] == "as_of":
            check_as_of(claim, result, store)
        elif claim["kind"] == "negated_first":
            assert claim["scorer"] == scorer.id and claim["text"].startswith(f"{claim['record']} ranks first")
        elif claim["kind"] in ("pieces", "unknown_pieces", "piece_parts") or claim["scorer"] == "embedding":
            assert scorer.pieces and claim["scorer"] == "embedding"
            assert claim["text"].startswith(("The embedding", "Each piece's part"))
        else:
            assert claim["scorer"] == scorer.words and claim["text"].startswith(SCORER_NAMES[scorer.words])
        for item in claim["items"]:
            assert item in claim["text"]
    if not scorer.words:
        assert not {"terms", "ignored", "stop_words", "short_words", "near_miss"} & set(by_kind)
    else:
        read = [t for t in terms if t in known]
        ignored = [t for t in terms if t not in known]
        assert sorted(by_kind["terms"]["items"]) == sorted(read)
        assert sorted(by_kind.get("ignored", {"items": []})["items"]) == sorted(ignored)
        stop = list(dict.fromkeys(t for t in tokens if t in engine.STOP_WORDS))
        assert by_kind.get("stop_words", {"items": []})["items"] == stop
        short = list(dict.fromkeys(re.findall(r"\b\w\b", q["text"])))
        assert by_kind.get("short_words", {"items": []})["items"] == short
        if "near_miss" in by_kind:
            assert set(by_kind["near_miss"]["items"]) <= set(ignored)
            for miss in q["near_misses"]:
                assert all(word in known for word in miss["record_words"])
        for kind in ("ignored", "stop_words", "short_words"):
            if kind in by_kind:
                assert ("the embedding reads" in by_kind[kind]["text"]) == scorer.pieces
    if scorer.pieces:
        encoding = tokenizer().encode(q["text"], add_special_tokens=False)
        pieces = [t for t in encoding.tokens if t != "[UNK]"]
        assert by_kind["pieces"]["items"] == pieces
        if pieces:
            assert f"reads {len(pieces)} word piece" in by_kind["pieces"]["text"]
        unknown = [q["text"][a:b] for t, (a, b) in zip(encoding.tokens, encoding.offsets, strict=True) if t == "[UNK]"]
        assert by_kind.get("unknown_pieces", {"items": []})["items"] == unknown
        parts = by_kind.get("piece_parts")
        if result["policy"]["scorer"] == "embedding" and result["ranked"] and pieces:
            assert parts is not None and parts["record"] == result["ranked"][0]
            row = next(r for r in result["records"] if r["id"] == parts["record"])
            assert row["rank"] == 1
            assert row["similarity"] is not None
            assert math.isclose(math.fsum(parts["values"]), row["similarity"], abs_tol=1e-12)
            assert parts["items"] == list(dict.fromkeys(pieces))
            assert f"similarity {row['similarity']:.3f}" in parts["text"]
            for value in parts["values"]:
                assert f"{value:.3f}" in parts["text"]
        else:
            assert parts is None


@cache
def vectors() -> StaticEmbedding:
    return StaticEmbedding.from_path(default_vector_path())


def negations(text: str) -> list[tuple[str, int, int, str]]:
    """Each negation word of a text (lowercased), its span, and the text it reaches: up to
    the end of its clause or the next negation."""
    words = [
        m
        for m in re.finditer(r"[\w'’]+", text)
        if m[0].lower() in NEGATIONS or re.fullmatch(r"\w+n['’]t", m[0], re.IGNORECASE)
    ]
    found = []
    for i, m in enumerate(words):
        after = text[m.end() : words[i + 1].start() if i + 1 < len(words) else len(text)]
        found.append((m[0].lower(), m.start(), m.end(), re.split(r"[,;:.?!]", after)[0]))
    return found


def check_negation(result: Result, store: dict[str, Any]) -> None:
    """What each scorer in force did with the question's negations, against the tokens,
    the word pieces and the similarity's split computed here; and the record ranked first
    named only when it holds a word a negation reaches."""
    q = result["question"]
    scorer = SCORERS_BY_ID[result["policy"]["scorer"]]
    found = negations(q["text"])
    claims = {(c["kind"], c["scorer"]): c for c in q["reading"] if c["kind"] in ("negation", "negated_first")}
    lexical = claims.pop(("negation", scorer.words or ""), None)
    assert (lexical is not None) == bool(scorer.words and found)
    if lexical is not None:
        assert lexical["items"] == list(dict.fromkeys(word for word, *_ in found))
        said = lexical["text"].split(": it ", 1)[1].split("; it ")
        known = vocabulary(store, result["policy"]["as_of_hours"])
        matched = False
        for word, *_ in found:
            for token in [*word_tokens(word), *re.findall(r"\b\w\b", word)]:
                if len(token) == 1:
                    fate = "too short to be"
                elif token in engine.STOP_WORDS:
                    fate = "stop word"
                elif token in known:
                    fate, matched = "like any other word", True
                else:
                    fate = "in no record"
                holding = [part for part in said if f"“{token}”" in part and not part.startswith("splits")]
                assert len(holding) == 1 and fate in holding[0], (token, said)
        assert ("gains from" in lexical["text"]) == matched
        assert ("exactly as without" in lexical["text"]) == (not matched)
    encoding = tokenizer().encode(q["text"], add_special_tokens=False)
    negated = list(
        dict.fromkeys(
            token
            for token, (a, b) in zip(encoding.tokens, encoding.offsets, strict=True)
            if token != "[UNK]" and any(start <= a and b <= end for _, start, end, _ in found)
        )
    )
    pieces = claims.pop(("negation", "embedding"), None)
    assert (pieces is not None) == bool(scorer.pieces and negated)
    if pieces is not None:
        assert pieces["items"] == negated
        quoted = [f"“{piece}”" for piece in negated]
        listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
        assert f"averages {listed} into the question's vector" in pieces["text"]
        if result["ranked"]:
            # The split of the similarity, from the vectors: count × (v · d) / ‖Σv‖.
            row = next(r for r in result["records"] if r["id"] == result["ranked"][0])
            embedding = vectors()
            asked = embedding.embed(q["text"])
            record = embedding.embed(row["text"]).vector
            ids = {embedding.token(piece.id): piece.id for piece in asked.pieces}
            counts = [sum(1 for piece in asked.pieces if piece.id == ids[token]) for token in negated]
            expected = [
                count
                * math.fsum(a * b for a, b in zip(embedding.vector(ids[token]), record, strict=True))
                / asked.total_length
                for token, count in zip(negated, counts, strict=True)
            ]
            assert pieces["record"] == row["id"] and row["similarity"] is not None
            assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(pieces["values"], expected, strict=True))
            assert (
                f"{row['id']}'s similarity {row['similarity']:.3f} (ranked first under {scorer.name})" in pieces["text"]
            )
            for value in pieces["values"]:
                assert f"{value:.3f}" in pieces["text"]
        else:
            assert pieces["record"] is None and "similarity" not in pieces["text"]
    first = claims.pop(("negated_first", scorer.id), None)
    held: list[str] = []
    if result["ranked"]:
        text = next(r["text"] for r in result["records"] if r["id"] == result["ranked"][0])
        holds = set(word_tokens(text))
        reached = [t for _, _, _, after in found for t in word_tokens(after) if t not in engine.STOP_WORDS]
        held = list(dict.fromkeys(t for t in reached if t in holds))
    assert (first is not None) == bool(held)
    if first is not None:
        assert first["record"] == result["ranked"][0] and first["items"] == held
        assert first["text"].startswith(f"{first['record']} ranks first under {scorer.name} and holds ")
    assert not claims, claims


def check_bm25_divisor(result: Result) -> None:
    """BM25's share divides by the best among the active tenant's records, and names it."""
    q = result["question"]
    tenant = result["policy"]["tenant"]
    own = [r for r in result["records"] if r["tenant"] == tenant]
    best = max((r["bm25"] for r in own), default=0.0)
    if best == 0.0:
        assert q["best_bm25_record"] is None and q["best_bm25"] == 0.0
        return
    holder = next(r for r in own if r["bm25"] == best)
    assert q["best_bm25"] == best and q["best_bm25_record"] == holder["id"]
    if result["policy"]["scorer"] == "bm25":
        for r in own:
            assert r["relevance"] == r["bm25"] / best


def check_cli(result: Result) -> None:
    """The CLI prints every claim, names the scorer of every rank column, and its numbers are the answer's."""
    text = format_table(result)
    flat = " ".join(text.split())
    scorer = SCORERS_BY_ID[result["policy"]["scorer"]]
    for claim in result["question"]["reading"]:
        assert " ".join(claim["text"].split()) in flat
    header = next(line for line in text.splitlines() if line.startswith("ID "))
    names = [f"#{SCORER_NAMES[name]}" for name in scorer.ranks]
    assert header.split()[2:] == [COLUMNS[c].header for c in scorer.columns] + [
        "score",
        *names,
        "outcome",
        "and",
        "reason",
    ]
    assert ("stemming" in flat) == any(c["kind"] == "near_miss" for c in result["question"]["reading"])
    if scorer.words:
        assert " ".join(SHARED_INDEX.split()) in flat
    if scorer.words == "bm25" and result["question"]["best_bm25_record"]:
        assert (
            f"the best BM25 among {result['policy']['tenant']}'s records ({result['question']['best_bm25_record']})"
            in flat
        )
    rows = {
        line.split()[0]: line.split()
        for line in text.splitlines()
        if line.split() and line.split()[0] in {r["id"] for r in result["records"]}
    }
    for r in result["records"]:
        cells = rows[r["id"]]
        width = len(scorer.columns)
        for column, cell in zip(scorer.columns, cells[2 : 2 + width], strict=True):
            value = r[column]
            assert cell == ("–" if value is None else f"{value:.{COLUMNS[column].places}f}")
        assert cells[2 + width] == ("–" if r["score"] is None else f"{r['score']:.3f}")
        for name, cell in zip(scorer.ranks, cells[3 + width : 3 + width + len(names)], strict=True):
            place = r["ranks"].get(name)
            assert cell == (str(place) if place else "–")

    check_weighing_lines(result, flat)
    check_mmr_reasons(result)


def check_weighing_lines(result: Result, flat: str) -> None:
    """Under Generative Agents the CLI names each term's bounds and every ranked record's
    terms raw, normalised and weighted, as the answer holds them; under the seed blend none."""
    weighing = result["weighing"]
    if weighing is None:
        assert result["policy"]["blend"] == "seed" and "normalised between" not in flat
        return
    rows = {r["id"]: r for r in result["records"]}
    assert weighing["over"] == len(result["ranked"])
    for term in weighing["terms"]:
        if term["low"] is not None and term["high"] is not None and term["low"] != term["high"]:
            assert f"normalised between {term['low']:.4f} (to 0) and {term['high']:.4f} (to 1)" in flat
    for place, rid in enumerate(result["ranked"], start=1):
        row = rows[rid]
        assert row["weighed"] is not None and row["score"] is not None
        parts = "; ".join(
            f"{term['term']} {raw:.4f} → {normalised:.4f} × {term['weight']:g} = {weighted:.4f}"
            for term, (raw, normalised, weighted) in zip(weighing["terms"], row["weighed"], strict=True)
        )
        assert f"{rid} (ranked {place}): {parts}; score {row['score']:.4f}" in flat
        assert math.isclose(math.fsum(w for _, _, w in row["weighed"]), row["score"], rel_tol=1e-12, abs_tol=1e-12)


# "Ranked 2nd (score 0.812), but 0.934 alike to M3, already in the tray: 0.7 × score − 0.3 × likeness
# = 0.7 × 0.812 − 0.3 × 0.934 = 0.288, under M7's 0.402, so M7 was picked 2nd for the tray instead."
TOO_SIMILAR = re.compile(
    r"Ranked (\d+)\w\w \(score (-?[\d.]+)\), but ([\d.]+) alike to (\w+), already in the tray: "
    r"([\d.]+) × score − ([\d.]+) × likeness = \5 × \2 − \6 × \3 = (-?[\d.]+), "
    r"under (\w+)'s (-?[\d.]+), so \8 was picked (\d+)\w\w for the tray instead\."
)
PICKED = re.compile(r"Ranked (\d+)\w\w \(score (-?[\d.]+)\); picked (\d+)\w\w for the tray at the highest value")


def check_mmr_reasons(result: Result) -> None:
    """Under MMR each tray record says the turn it was picked at (the tray's order), and each
    record passed over for its likeness names a tray record it resembles, a record picked
    instead that is ranked below it, and a value that is λ × score − (1 − λ) × likeness."""
    policy = result["policy"]
    rows = {r["id"]: r for r in result["records"]}
    if policy["mmr_lambda"] == 1:
        assert all(r["outcome"] != "too_similar" and "likeness" not in r["reason"] for r in rows.values())
        return
    lam = policy["mmr_lambda"]
    tray = result["selected"]
    for turn, rid in enumerate(tray, start=1):
        found = PICKED.match(rows[rid]["reason"])
        assert found, rows[rid]["reason"]
        assert int(found[1]) == rows[rid]["rank"] and int(found[3]) == turn
    for r in rows.values():
        if r["outcome"] != "too_similar":
            continue
        found = TOO_SIMILAR.fullmatch(r["reason"])
        assert found, r["reason"]
        place, score, likeness, like, shown_lam, rest, value, winner, _, at = found.groups()
        assert r["score"] is not None and r["rank"] is not None
        assert int(place) == r["rank"] and score == f"{r['score']:.3f}"
        assert shown_lam == f"{lam:g}" and rest == f"{1 - lam:g}"
        assert like in tray and winner in tray and tray.index(winner) == int(at) - 1
        assert tray.index(like) < tray.index(winner) and rows[winner]["rank"] > r["rank"]  # type: ignore[operator]
        assert float(likeness) > 0
        assert math.isclose(float(value), lam * r["score"] - (1 - lam) * float(likeness), abs_tol=2e-3)


def rendered(views: list[dict[str, Any]]) -> list[dict[str, str]]:
    out = subprocess.run(
        ["node", str(ROOT / "harness" / "render_views.mjs")],
        input=json.dumps(views),
        capture_output=True,
        text=True,
        check=True,
    )
    markup: list[dict[str, str]] = json.loads(out.stdout)
    return markup


def plain(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def check_page(result: Result, views: dict[str, str], chosen: str, picked: bool) -> None:
    """The page's breakdown, reading, diagram and table head, against the answer's numbers."""
    scorer = SCORERS_BY_ID[result["policy"]["scorer"]]
    reading = plain(views["reading"])
    for claim in result["question"]["reading"]:
        assert " ".join(claim["text"].split()) in reading
    assert scorer.ranking in views["stage3"] and scorer.unmatched in views["diagram"]
    named = (
        "{scorer} + recency"
        if result["policy"]["blend"] == "seed"
        else "Generative Agents: recency, importance, {scorer}"
    )
    assert f"({named.format(scorer=scorer.name)})" in views["head"]
    breakdown = plain(views["breakdown"])
    shown = re.search(r'data-shown="([^"]+)"', views["breakdown"])
    assert shown is not None
    record = next(r for r in result["records"] if r["id"] == shown[1])
    # The record shown: the pick when it is ranked (or picked), else the top of the ranking.
    if picked:
        assert record["id"] == chosen
    else:
        assert record["id"] == (result["ranked"][0] if result["ranked"] else chosen)
    if record["rank"]:
        # Its places under the other scorers, from the engine's ranks ("–": not ranked there).
        ranks = record["ranks"]
        others = [
            f"{SCORERS_BY_ID[s].name}: {'–' if ranks[s] is None else ranks[s]}"
            for s in scorer.ranks
            if s != scorer.id and s in ranks
        ]
        beside = f" ({', '.join(others)})" if others else ""
        assert f"ranked {ordinal(record['rank'])} under {scorer.name}{beside}." in breakdown
    else:
        assert "is not ranked" in breakdown and views["breakdown"].index("breakdown-outcome") < views[
            "breakdown"
        ].index("breakdown-title")
    if result["policy"]["blend"] == "seed":
        assert f"= {record['score']:.4f}" in breakdown and f"× {scorer.relevance} + recency weight" in breakdown
    else:
        check_generative_agents_view(result, record, breakdown)
    if scorer.id == "bm25" and record["terms"] and record["tenant"] == result["policy"]["tenant"]:
        q = result["question"]
        assert f"Relative BM25 = {record['bm25']:.4f} / {q['best_bm25']:.4f}" in breakdown
        assert f"({q['best_bm25_record']}), = {record['relevance']:.4f}" in breakdown
    if scorer.id == "embedding" and record["terms"] and result["question"]["norm"]:
        similarity = record["similarity"]
        assert similarity is not None
        total = math.fsum(part["contribution"] for part in record["terms"])
        assert math.isclose(total, similarity, abs_tol=1e-12)
        sign = "≥" if similarity >= result["policy"]["min_similarity"] else "<"
        assert f"Similarity {similarity:.4f} {sign} the minimum" in breakdown
    if scorer.id == "hybrid" and record["rrf"] is not None:
        assert f"RRF = sum {record['rrf']:.4f}" in breakdown
    if scorer.id in ("tfidf", "bm25") and record["terms"]:
        assert SHARED_INDEX in breakdown
    if scorer.pieces and result["question"]["map"]:
        similar = sorted(
            (r for r in result["records"][:40]),
            key=lambda r: (-(r["similarity"] or -math.inf), result["records"].index(r)),
        )[:3]
        listed = ", ".join(f"{r['id']} {r['similarity']:.3f}" for r in similar)
        assert f'by the exact similarity: <span class="map-nearest">{listed}</span>' in views["breakdown"]


def check_generative_agents_view(result: Result, record: Any, breakdown: str) -> None:
    """The Generative Agents view: each term raw, normalised between its bounds and weighted,
    the score as their sum; or, for a record not ranked, that it has no score and why."""
    weighing = result["weighing"]
    assert weighing is not None
    over = weighing["over"]
    if record["rank"] is None:
        assert record["score"] is None and record["weighed"] is None
        assert (
            f"{record['id']} does not reach ranking, so it has no Generative Agents score: recency, importance and "
            f"relevance are each min-max normalised over the {over} record{'' if over == 1 else 's'} that reach ranking"
        ) in breakdown
        return
    for term, (raw, normalised, weighted) in zip(weighing["terms"], record["weighed"], strict=True):
        low, high = term["low"], term["high"]
        if low == high:
            every = "the only ranked record" if over == 1 else f"all {over} ranked records"
            assert normalised == 0.5 and f"{low:.4f} for {every}, so 0.5" in breakdown
        else:
            assert (
                f"normalised between {low:.4f} and {high:.4f}: "
                f"({raw:.4f} − {low:.4f}) / ({high:.4f} − {low:.4f}) = {normalised:.4f}"
            ) in breakdown
        assert f"× {js_number(term['weight'])} = {weighted:.4f}" in breakdown
    total = " + ".join(
        f"{js_number(term['weight'])} × {w[1]:.4f}"
        for term, w in zip(weighing["terms"], record["weighed"], strict=True)
    )
    assert f"Score = {total} = {record['score']:.4f} : Generative Agents," in breakdown


def js_number(value: float) -> str:
    """A number as JavaScript's String() writes it: the shortest repr, whole numbers without ".0"."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def ordinal(n: int) -> str:
    return f"{n}{'th' if 11 <= n % 100 <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


@pytest.mark.parametrize("index", range(len(CASES)))
def test_every_claim_agrees_with_the_numbers(index: int) -> None:
    """The reading, the BM25 divisor and the CLI table, each against independently computed numbers."""
    name, _ = CASES[index]
    result = answer(index)
    check_reading(result, STORES[name])
    check_negation(result, STORES[name])
    check_bm25_divisor(result)
    check_cli(result)


def test_the_pages_views_agree_with_the_numbers() -> None:
    """The page's views of every case, rendered under Node, for the top record and for a record picked by hand."""
    views: list[dict[str, Any]] = []
    expected: list[tuple[Result, str, bool]] = []
    rng = random.Random(5)
    for index in range(len(CASES)):
        result = answer(index)
        hand = rng.choice(result["records"])["id"]
        top = result["ranked"][0] if result["ranked"] else result["records"][0]["id"]
        for chosen, by_hand in ((top, False), (hand, True)):
            views.append({"result": result, "chosenId": chosen, "choice": {"picked": by_hand, "displaced": None}})
            expected.append((result, chosen, by_hand))
    for (result, chosen, was_picked), markup in zip(expected, rendered(views), strict=True):
        check_page(result, markup, chosen, was_picked)


@pytest.mark.parametrize("name", STORES)
def test_every_guided_step_says_only_what_its_answer_holds(name: str) -> None:
    """Each "Look for" of both fixture stores, checked by the engine against its step's answer
    (engine/claims.py: the record ids, the numbers, the counts, a record's own numbers and
    outcome, the record whose breakdown it names, a scorer said to lead); no step is left
    unchecked. tests/test_guide_claims.py checks that the check catches what is false."""
    store = STORES[name]
    checked = check_store(store)
    assert not checked["problems"] and not checked["unchecked"], checked
    assert not checked["claims"], "\n".join(claim["text"] for claim in checked["claims"])
    assert checked["steps"] == sum(len(guide["steps"]) for guide in store["guides"])


# Negations of every kind the reading declares, in the default store's and the support store's words.
NEGATED = [
    "which incidents were not about the database",
    "Which region is our deployment in, if not Frankfurt?",
    "What didn't the on-call engineer roll back?",
    "deployments without Mumbai, never London",
    "Isn’t the checkout timeout fixed?",
    "refunds except those nobody booked; no Lumen class packs",
    "neither the database nor the payment incident",
    "NOT",
]


@pytest.mark.parametrize("scorer", SCORER_IDS)
@pytest.mark.parametrize("question", NEGATED)
@pytest.mark.parametrize("name", STORES)
def test_each_scorer_in_force_says_what_it_did_with_a_negation(name: str, question: str, scorer: str) -> None:
    """For every tenant, the reading's negation sentences agree with the tokens, the pieces and the similarity's split."""
    store = STORES[name]
    for tenant in store["tenants"]:
        policy = {"question_text": question, "tenant": tenant["id"], "store": "all", "previous_sessions": True}
        result = result_of({"store": store, "policy": policy | {"scorer": scorer, "max_age_hours": 1000}})
        check_reading(result, store)
        check_negation(result, store)
        check_cli(result)


@pytest.mark.parametrize("scorer", SCORER_IDS)
def test_the_database_incident_ranked_first_in_spite_of_not_is_said(scorer: str) -> None:
    """ "Which incidents were not about the database" ranks M3, the database incident, first under
    every scorer: the reading says what each scorer in force did with "not", and that M3 holds "database"."""
    store = STORES["store.json"]
    policy = {"question_text": NEGATED[0], "store": "all", "previous_sessions": True, "scorer": scorer}
    result = result_of({"store": store, "policy": policy})
    assert result["ranked"][0] == "M3"
    said = {(c["kind"], c["scorer"]): c for c in result["question"]["reading"]}
    row = SCORERS_BY_ID[scorer]
    if row.words:
        assert said[("negation", row.words)]["items"] == ["not"]
        assert "drops “not” as a stop word" in said[("negation", row.words)]["text"]
    if row.pieces:
        assert said[("negation", "embedding")]["items"] == ["not"]
        assert said[("negation", "embedding")]["record"] == "M3"
    first = said[("negated_first", scorer)]
    assert first["record"] == "M3" and first["items"] == ["database"]
    check_negation(result, store)


def guide_steps() -> list[tuple[str, str, int, dict[str, Any]]]:
    return [
        (name, guide["id"], index, step)
        for name, store in STORES.items()
        for guide in store.get("guides", [])
        for index, step in enumerate(guide["steps"])
    ]


@pytest.mark.parametrize("name, guide, index, step", guide_steps(), ids=lambda v: v if isinstance(v, str) else None)
def test_a_step_s_answer_says_what_its_numbers_hold(name: str, guide: str, index: int, step: dict[str, Any]) -> None:
    """Each guide step's answer, through the CLI and the page's views of the record it shows:
    the table, the Generative Agents terms and each MMR reason agree with the numbers (the
    agent-memory store's steps are where records are passed over for their likeness)."""
    result = result_of({"store": STORES[name], "policy": step.get("policy", {})})
    check_cli(result)
    record = step["shows"]["record"]
    (markup,) = rendered([{"result": result, "chosenId": record, "choice": {"picked": True, "displaced": None}}])
    check_page(result, markup, record, True)


def test_the_agent_store_passes_records_over_for_their_likeness() -> None:
    """The steps above include records passed over for their likeness, so those reasons are checked."""
    store = STORES["agent-memory-store.json"]
    outcomes = {
        r["outcome"]
        for guide in store["guides"]
        for step in guide["steps"]
        for r in result_of({"store": store, "policy": step["policy"]})["records"]
    }
    assert "too_similar" in outcomes
