"""Benchmark: how closely static vectors distilled from all-MiniLM-L6-v2 rank records as the full model does.

For both example stores, the fixed questions and the paraphrases in fixtures/paraphrases.json
are scored by the full model (harness/minilm.py, numpy) and by static vectors at each setting
tried (PCA dimensions × quantisation × vocabulary trimming × SIF coefficient, built with
tools/distill_embedding.py's functions), in two scopes: against every record of the store
("store": each question once), and, as the page ranks, against the records of one tenant
("tenant": each fixed question for each tenant, each paraphrase for the tenant it was written
for). Prints JSON: per setting and scope, the mean Spearman correlation of the record scores
per question with the full model's, how often the static top record is the full model's (top-1
agreement), how often the full model's top record is within the static top 3, how often each
puts first the record a paraphrase is about; the vector file's size raw and with gzip -9; then
the same for the committed embedding/ file.
Needs the optional extra: pip install -e ".[distill]".
Run: python bench/embedding_fidelity.py [--dims 64 128 192 256] [--sif 1e-4 3e-5] [--neighbours 5]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness import minilm  # noqa: E402
from harness.rwse import read_rwse  # noqa: E402
from tools import distill_embedding as distiller  # noqa: E402

STORES = ("store.json", "support-store.json")
PARAPHRASES = ROOT / "fixtures" / "paraphrases.json"
TARGETS = {"top1_agreement": 0.60, "full_first_in_static_top3": 0.85, "bytes_gzip9": 8_000_000}
SCOPES = ("store", "tenant")

Encode = Callable[[list[str]], Any]
Scores = list[npt.NDArray[np.float64]]


@dataclass(frozen=True)
class Question:
    store: str
    text: str
    kind: str  # "fixed" or "paraphrase"
    tenant: str | None  # None: ranked against every record of the store
    about: str | None  # the record a paraphrase is about


@dataclass(frozen=True)
class Bench:
    """The stores' records and, per scope, the questions asked."""

    records: dict[str, list[dict[str, Any]]]
    asked: dict[str, list[Question]]

    def candidates(self, question: Question) -> list[int]:
        """Indices of the records a question is ranked against."""
        records = self.records[question.store]
        return [i for i, r in enumerate(records) if question.tenant in (None, r["tenant"])]


def load_bench() -> Bench:
    records: dict[str, list[dict[str, Any]]] = {}
    asked: dict[str, list[Question]] = {scope: [] for scope in SCOPES}
    for name in STORES:
        store = json.loads((ROOT / "fixtures" / name).read_text(encoding="utf-8"))
        records[name] = store["records"]
        for q in store["questions"]:
            asked["store"].append(Question(name, q["text"], "fixed", None, None))
            asked["tenant"] += [Question(name, q["text"], "fixed", t["id"], None) for t in store["tenants"]]
    for q in json.loads(PARAPHRASES.read_text(encoding="utf-8"))["questions"]:
        asked["store"].append(Question(q["store"], q["text"], "paraphrase", None, q["about"]))
        asked["tenant"].append(Question(q["store"], q["text"], "paraphrase", q["tenant"], q["about"]))
    return Bench(records, asked)


def ranks(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """1-based ranks, ties sharing their average rank (as Spearman's rho wants)."""
    order = np.argsort(values, kind="stable")
    out = np.empty(len(values), dtype=np.float64)
    sorted_values = values[order]
    start = 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        out[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    return out


def spearman(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> float:
    ra, rb = ranks(a), ranks(b)
    ra -= ra.mean()
    rb -= rb.mean()
    denominator = float(np.sqrt((ra * ra).sum() * (rb * rb).sum()))
    return float((ra * rb).sum() / denominator) if denominator else 0.0


def first(scores: npt.NDArray[np.float64]) -> int:
    """The top record's index; ties go to the earlier record."""
    return int(np.argmax(scores))


def top(scores: npt.NDArray[np.float64], n: int) -> list[int]:
    return [int(i) for i in np.lexsort((np.arange(len(scores)), -scores))[:n]]


class StaticEncoder:
    """model2vec's StaticModel inference: tokens without special tokens, [UNK] dropped, mean, L2 norm."""

    def __init__(self, tokens: list[str], vectors: npt.NDArray[np.float32], tokenizer_json: dict[str, Any]) -> None:
        from tokenizers import Tokenizer

        self.vectors = vectors
        self.tokenizer = Tokenizer.from_str(json.dumps(tokenizer_json))
        self.unk = tokens.index("[UNK]")

    def encode(self, texts: list[str]) -> npt.NDArray[np.float64]:
        out = np.zeros((len(texts), self.vectors.shape[1]), dtype=np.float64)
        for row, text in enumerate(texts):
            ids = [i for i in self.tokenizer.encode(text, add_special_tokens=False).ids if i != self.unk]
            if ids:
                mean = self.vectors[ids].astype(np.float64).mean(axis=0)
                norm = np.linalg.norm(mean)
                out[row] = mean / norm if norm > 0 else mean
        return out


def scores_by_question(encode: Encode, bench: Bench) -> dict[str, Scores]:
    """Per scope, each question's cosine with each of its candidate records."""
    record_vectors = {
        name: np.asarray(encode([r["text"] for r in records]), dtype=np.float64)
        for name, records in bench.records.items()
    }
    texts = sorted({q.text for questions in bench.asked.values() for q in questions})
    question_vectors = dict(zip(texts, np.asarray(encode(texts), dtype=np.float64), strict=True))
    return {
        scope: [record_vectors[q.store][bench.candidates(q)] @ question_vectors[q.text] for q in questions]
        for scope, questions in bench.asked.items()
    }


def agreement(bench: Bench, scope: str, full: Scores, static: Scores) -> dict[str, Any]:
    """The fidelity figures of one setting against the full model, in one scope."""
    asked = bench.asked[scope]
    pairs = list(zip(full, static, strict=True))
    about = [(i, q) for i, q in enumerate(asked) if q.about]

    def about_first(scores: Scores) -> float:
        hits = sum(bench.records[q.store][bench.candidates(q)[first(scores[i])]]["id"] == q.about for i, q in about)
        return round(float(hits) / len(about), 4)

    return {
        "questions": len(asked),
        "spearman_mean": round(float(np.mean([spearman(f, s) for f, s in pairs])), 4),
        "top1_agreement": round(sum(first(f) == first(s) for f, s in pairs) / len(asked), 4),
        "full_first_in_static_top3": round(sum(first(f) in top(s, 3) for f, s in pairs) / len(asked), 4),
        "paraphrase_about_first": about_first(static),
        "full_model_paraphrase_about_first": about_first(full),
    }


def measure(bench: Bench, full: dict[str, Scores], encode: Encode, data: bytes) -> dict[str, Any]:
    """Both scopes' figures for one setting, its size, and whether it meets the targets in each scope."""
    static = scores_by_question(encode, bench)
    size = {"bytes": len(data), "bytes_gzip9": distiller.gzip_size(data)}
    out: dict[str, Any] = dict(size)
    for scope in SCOPES:
        figures = agreement(bench, scope, full[scope], static[scope])
        figures["meets_targets"] = meets({**figures, **size})
        out[scope] = figures
    return out


def meets(result: dict[str, Any]) -> bool:
    return bool(
        result["top1_agreement"] >= TARGETS["top1_agreement"]
        and result["full_first_in_static_top3"] >= TARGETS["full_first_in_static_top3"]
        and result["bytes_gzip9"] <= TARGETS["bytes_gzip9"]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dims", type=int, nargs="+", default=[64, 128, 192, 256])
    parser.add_argument("--quantisations", nargs="+", default=list(distiller.QUANTISATIONS))
    parser.add_argument("--trims", nargs="+", default=list(distiller.TRIMS))
    parser.add_argument(
        "--sif",
        type=float,
        nargs="+",
        default=[distiller.SIF_COEFFICIENT],
        help="SIF weighting coefficients a to try (default: model2vec's 1e-4)",
    )
    parser.add_argument(
        "--neighbours",
        type=int,
        default=distiller.NEIGHBOURS,
        help="neighbours per token in the sized file (0: faster)",
    )
    parser.add_argument("--cache", type=Path, default=distiller.DEFAULT_CACHE, help="forward-pass cache (.npz)")
    args = parser.parse_args(argv)

    model = minilm.load()
    bench = load_bench()
    full = scores_by_question(minilm.SentenceEncoder(model).encode, bench)

    vocabulary = model.vocabulary
    ids = distiller.kept_vocabulary(vocabulary)
    kept = [vocabulary[i] for i in ids]
    rows = distiller.cached_token_embeddings(model, ids, args.cache)
    axes = distiller.principal_axes(rows)

    settings = []
    tried = [
        (trim, dims, quantisation, sif)
        for trim in args.trims
        for dims in args.dims
        for quantisation in args.quantisations
        for sif in args.sif
    ]
    for trim, dims, quantisation, sif in tried:
        static = distiller.build(
            rows, kept, dims=dims, quantisation=quantisation, trim=trim, neighbours=args.neighbours, axes=axes, sif=sif
        )
        tokenizer_json = distiller.trimmed_tokenizer_json(model.tokenizer_json, static.tokens)
        encoder = StaticEncoder(static.tokens, static.vectors(), tokenizer_json)
        result = {
            "dims": dims,
            "quantisation": quantisation,
            "trim": trim,
            "sif": sif,
            "tokens": len(static.tokens),
            **measure(bench, full, encoder.encode, distiller.rwse_bytes(static)),
        }
        settings.append(result)
        print(json.dumps(result), file=sys.stderr, flush=True)

    report: dict[str, Any] = {
        "questions": {
            scope: {
                "fixed": sum(q.kind == "fixed" for q in questions),
                "paraphrases": sum(q.kind == "paraphrase" for q in questions),
            }
            for scope, questions in bench.asked.items()
        },
        "scopes": {
            "store": "each question against every record of its store",
            "tenant": "against one tenant's records, as the page ranks: fixed questions for each tenant",
        },
        "neighbours_in_sized_file": args.neighbours,
        "targets": TARGETS,
        "settings": settings,
    }
    shipped = distiller.OUT_DIR / distiller.VECTOR_FILE
    if shipped.exists():
        head, tokens, vectors = read_rwse(shipped.read_bytes())
        tokenizer_json = json.loads((distiller.OUT_DIR / "tokenizer.json").read_text(encoding="utf-8"))
        encoder = StaticEncoder(tokens, vectors, tokenizer_json)
        report["shipped"] = {
            "file": str(shipped.relative_to(ROOT)),
            "dims": head["dims"],
            "quantisation": head["quantisation"],
            "trim": head.get("trim"),
            "tokens": head["tokens"],
            **measure(bench, full, encoder.encode, shipped.read_bytes()),
        }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
