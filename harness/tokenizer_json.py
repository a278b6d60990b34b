"""The engine's WordPiece set up from a Hugging Face ``tokenizer.json``, so the tests can hold it
against ``tokenizers`` reading the same file (the engine itself is set up by the vector file's header)."""

from __future__ import annotations

import json
from typing import Any

from engine.wordpiece import WordPiece


def wordpiece_from_tokenizer_json(text: str) -> WordPiece:
    """The tokenizer a Hugging Face ``tokenizer.json`` describes, when it is BERT's kind."""
    spec: Any = json.loads(text)
    normalizer, pre, model = spec.get("normalizer"), spec.get("pre_tokenizer"), spec.get("model")
    if not isinstance(model, dict) or model.get("type") != "WordPiece":
        raise ValueError("tokenizer.json: the model is not WordPiece")
    if not isinstance(normalizer, dict) or normalizer.get("type") != "BertNormalizer":
        raise ValueError("tokenizer.json: the normalizer is not BertNormalizer")
    if not isinstance(pre, dict) or pre.get("type") != "BertPreTokenizer":
        raise ValueError("tokenizer.json: the pre-tokenizer is not BertPreTokenizer")
    vocab: dict[str, int] = model["vocab"]
    tokens = sorted(vocab, key=vocab.__getitem__)
    if [vocab[t] for t in tokens] != list(range(len(tokens))):
        raise ValueError("tokenizer.json: the vocabulary's ids are not 0, 1, 2, …")
    special = []
    for added in spec.get("added_tokens") or []:
        if added.get("normalized") or added.get("single_word") or added.get("lstrip") or added.get("rstrip"):
            raise ValueError(f"tokenizer.json: added token {added.get('content')!r} is not matched as-is")
        if vocab.get(added["content"]) != added["id"]:
            raise ValueError(f"tokenizer.json: added token {added['content']!r} is not the vocabulary's")
        special.append(added["content"])
    return WordPiece(
        tokens,
        unk_token=model["unk_token"],
        continuing_subword_prefix=model["continuing_subword_prefix"],
        max_input_chars_per_word=model["max_input_chars_per_word"],
        lowercase=normalizer["lowercase"],
        strip_accents=normalizer["strip_accents"],
        handle_chinese_chars=normalizer["handle_chinese_chars"],
        clean_text=normalizer["clean_text"],
        special_tokens=special,
    )
