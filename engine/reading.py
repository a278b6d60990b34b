"""How the question in force is read, as claims in the words of the scorer in force.

Each claim names the scorer it is about, the items it names and, for the embedding's
per-piece parts, the record and the values; its ``text`` is the sentence the page and
the command line print. A scorer reads exact words (``Scorer.words``), word pieces
(``Scorer.pieces``) or both, and only what the scorers in force do is said: a word a
lexical scorer ignores is still read by the embedding, and the sentence says so. A
negation ("not", "didn't", the words of ``NEGATIONS``) is said where it bites: what each
scorer in force did with it, and the record ranked first when it holds a word it negates.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from .scorers import SCORER_NAMES, Scorer
from .shapes import EmbeddingPart, NearMiss, ReadingClaim
from .text import tokenize, tokens

# The runs of word characters the token pattern (two or more) leaves out: one-letter words.
_SHORT_WORD = re.compile(r"(?u)\b\w\b")

# The words that negate what follows them; a word contracted with n't ("didn't", "isn’t")
# negates too. No scorer here can exclude what they exclude, so the reading says so.
NEGATIONS: tuple[str, ...] = (
    "not",
    "no",
    "never",
    "none",
    "nothing",
    "nobody",
    "nowhere",
    "neither",
    "nor",
    "without",
    "except",
    "excluding",
    "cannot",
)
_NEGATION = re.compile(r"(?iu)\b(?:" + "|".join(NEGATIONS) + r"|\w+n['’]t)\b")
# A negation reaches the words after it up to the end of its clause, or to the next negation.
_CLAUSE_END = re.compile(r"[,;:.?!]")


@dataclass(frozen=True)
class Negation:
    """A negation in the question: the word as written, where it stands, and where the
    words it negates end (``reach``)."""

    written: str
    start: int
    end: int
    reach: int

    @property
    def word(self) -> str:
        return self.written.lower()


def negations_in(text: str) -> list[Negation]:
    """The question's negations, in order."""
    found = list(_NEGATION.finditer(text))
    negations = []
    for i, match in enumerate(found):
        stop = found[i + 1].start() if i + 1 < len(found) else len(text)
        clause = _CLAUSE_END.search(text, match.end(), stop)
        negations.append(Negation(match.group(), match.start(), match.end(), clause.start() if clause else stop))
    return negations


def short_words(text: str) -> list[str]:
    """The one-letter words of a text ("I", "a"), each once, as written: too short to be terms."""
    return list(dict.fromkeys(_SHORT_WORD.findall(text)))


def _listed(items: Sequence[str]) -> str:
    return ", ".join(items)


def word_claims(
    scorer: Scorer,
    text: str,
    terms: Sequence[str],
    dropped: Sequence[str],
    stop_words: Sequence[str],
    near_misses: Sequence[NearMiss],
) -> list[ReadingClaim]:
    """What the scorer that matches exact words reads of the question, and what it drops."""
    lexical = scorer.words
    assert lexical is not None
    name = SCORER_NAMES[lexical]
    # Under hybrid the embedding reads what BM25 drops: each sentence says so.
    also = "; the embedding reads {} as word pieces" if scorer.pieces else ""
    claims: list[ReadingClaim] = [
        _claim(
            "terms",
            lexical,
            terms,
            f"{name} reads the terms {_listed(terms)}."
            if terms
            else f"{name} finds no term of the question in any record.",
        )
    ]
    # What the lexical scorer leaves out, and the sentence that says so (before the embedding's note).
    left_out = (
        ("ignored", dropped, "{} ignores {}: in no record"),
        ("stop_words", stop_words, "{} drops the stop words {}"),
        ("short_words", short_words(text), "{} drops one-letter words, too short to be terms: {}"),
    )
    for kind, items, sentence in left_out:
        if items:
            them = "it" if len(items) == 1 else "them"
            claims.append(_claim(kind, lexical, items, sentence.format(name, _listed(items)) + also.format(them) + "."))
    if near_misses:
        pairs = "; ".join(
            f"“{miss['term']}” is not " + " or ".join(f"“{word}”" for word in miss["record_words"])
            for miss in near_misses
        )
        claims.append(
            _claim(
                "near_miss",
                lexical,
                [miss["term"] for miss in near_misses],
                f"{name} matches only exact words, with no stemming: {pairs}.",
            )
        )
    return claims


def piece_claims(
    sequence: Sequence[str],
    unknown: Sequence[str],
    top: tuple[str, float, Sequence[EmbeddingPart]] | None,
) -> list[ReadingClaim]:
    """What the embedding reads: every word piece in order, the words its vocabulary lacks,
    and (when the embedding ranks, with a record ranked first) each distinct piece's part of
    that record's similarity."""
    count = len(sequence)
    claims: list[ReadingClaim] = [
        _claim(
            "pieces",
            "embedding",
            sequence,
            f"The embedding reads {count} word piece{'' if count == 1 else 's'}, in order: {' '.join(sequence)}."
            if sequence
            else "The embedding finds no word piece of the question in its vocabulary.",
        )
    ]
    if unknown:
        claims.append(
            _claim(
                "unknown_pieces",
                "embedding",
                unknown,
                f"The embedding ignores {_listed(unknown)}: unknown to its vocabulary.",
            )
        )
    if top is not None and sequence:
        record, similarity, parts = top
        values = [part["contribution"] for part in parts]
        listed = ", ".join(f"{_times(part['token'], part['count'])} {part['contribution']:.3f}" for part in parts)
        claim = _claim(
            "piece_parts",
            "embedding",
            [part["token"] for part in parts],
            f"Each piece's part of {record}'s similarity {similarity:.3f} (ranked first): {listed}.",
        )
        claim["record"] = record
        claim["values"] = values
        claims.append(claim)
    return claims


# What a lexical scorer does with a token of a negation, by the word claim whose items
# hold it: the same fates as any word of the question, said of the negation.
_NEGATION_FATES = (
    ("stop_words", "drops {} as a stop word", "drops {} as stop words"),
    ("short_words", "drops {}, too short to be a term", "drops {}, too short to be terms"),
    ("ignored", "ignores {}, in no record", "ignores {}, in no record"),
    ("terms", "matches {} like any other word", "matches {} like any other word"),
)


def negation_word_claims(
    lexical: str, negations: Sequence[Negation], read: Sequence[ReadingClaim]
) -> list[ReadingClaim]:
    """What the scorer that matches exact words did with each negation, from its word
    claims (``read``): the tokens it makes of it, each dropped, ignored or matched like
    any other word of the question."""
    if not negations:
        return []
    made = {n.word: [*tokens(n.word), *short_words(n.written)] for n in negations}
    made_tokens = list(dict.fromkeys(token for made_of in made.values() for token in made_of))
    said = [f"splits “{word}” into {_and(made_of)}" for word, made_of in made.items() if made_of != [word]]
    items = {claim["kind"]: claim["items"] for claim in read}
    for kind, one, many in _NEGATION_FATES:
        met = [token for token in made_tokens if token in items.get(kind, ())]
        if met:
            said.append((one if len(met) == 1 else many).format(_and(met)))
    matched = [token for token in made_tokens if token in items.get("terms", ())]
    if matched:
        them = "it" if len(matched) == 1 else "them"
        tail = f"so a record that holds {_and(matched)} gains from {them}, as if the question asked for {them}"
    else:
        tail = f"so it scores the question exactly as without {'it' if len(made) == 1 else 'them'}"
    joined = f"{'; it '.join(said)}{';' if len(said) > 1 else ','} {tail}"
    text = f"{SCORER_NAMES[lexical]} cannot read a negation: it {joined}."
    return [_claim("negation", lexical, list(made), text)]


def negation_piece_claims(
    negations: Sequence[Negation],
    sequence: Sequence[str],
    spans: Sequence[tuple[int, int]],
    top: tuple[str, float, str, Mapping[str, float]] | None,
) -> list[ReadingClaim]:
    """What the embedding did with each negation: its word pieces averaged into the
    question's vector like the others, and (with a record ranked first) their parts of
    that record's similarity."""
    pieces = list(
        dict.fromkeys(
            piece
            for piece, (start, end) in zip(sequence, spans, strict=True)
            if any(n.start <= start and end <= n.end for n in negations)
        )
    )
    if not pieces:
        return []
    text = (
        f"The embedding cannot read a negation: it averages {_and(pieces)} into the question's vector "
        "like any other piece, as meaning to match, not as a word that excludes"
    )
    if top is None:
        return [_claim("negation", "embedding", pieces, text + ".")]
    record, similarity, ranker, parts = top
    values = [parts[piece] for piece in pieces]
    of = f"of {record}'s similarity {similarity:.3f} (ranked first under {SCORER_NAMES[ranker]})"
    if len(pieces) == 1:
        said = f"its part {of} is {values[0]:.3f}"
    else:
        listed = ", ".join(f"“{piece}” {value:.3f}" for piece, value in zip(pieces, values, strict=True))
        said = f"their parts {of}: {listed}"
    claim = _claim("negation", "embedding", pieces, f"{text}; {said}.")
    claim["record"] = record
    claim["values"] = values
    return [claim]


def negated_first_claims(
    negations: Sequence[Negation], text: str, ranker: str, record: str, record_terms: Collection[str]
) -> list[ReadingClaim]:
    """The record ranked first, when it holds a word that a negation of the question negates."""
    held: dict[str, str] = {}
    for negation in negations:
        for term in tokenize(text[negation.end : negation.reach]):
            if term in record_terms:
                held.setdefault(term, negation.word)
    if not held:
        return []
    name = SCORER_NAMES[ranker]
    listed = ", ".join(f"“{term}” (after “{word}”)" for term, word in held.items())
    negating = list(dict.fromkeys(held.values()))
    leaves = "leaves" if len(negating) == 1 else "leave"
    claim = _claim(
        "negated_first",
        ranker,
        list(held),
        f"{record} ranks first under {name} and holds {listed}: a score counts what a record has in common "
        f"with the question, so {name} cannot leave out what {_and(negating)} {leaves} out.",
    )
    claim["record"] = record
    return [claim]


def _and(items: Sequence[str]) -> str:
    """Quoted words: “a”, “a” and “b”, “a”, “b” and “c”."""
    quoted = [f"“{item}”" for item in items]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def _times(token: str, count: int) -> str:
    return f"{token} ×{count}" if count > 1 else token


def _claim(kind: str, scorer: str, items: Sequence[str], text: str) -> ReadingClaim:
    return {"kind": kind, "scorer": scorer, "items": list(items), "text": text, "record": None, "values": []}
