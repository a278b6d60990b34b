"""The session's cache (engine/recent.py): a value is made once per key while kept, and the
least recently used key is the one dropped."""

from __future__ import annotations

from engine.recent import Recent


def test_the_least_recently_used_key_is_dropped() -> None:
    """With room for two: a, b, a again (kept), c (drops b), then b is made again and a is not."""
    made: list[str] = []
    recent: Recent[str, str] = Recent(2)

    def get(key: str) -> str:
        def make() -> str:
            made.append(key)
            return key.upper()

        return recent.get(key, make)

    assert [get(key) for key in "abacab"] == ["A", "B", "A", "C", "A", "B"]
    assert made == ["a", "b", "c", "b"]
