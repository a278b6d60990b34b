"""JavaScript line width: no line of the page's scripts, its service worker or the build's
Node tools is over LIMIT characters, but in the files LONG_LINES lists, whose figures are
ceilings that can only fall."""

from __future__ import annotations

from harness import ROOT
from sitebuild.paths import SCORERS_JS, SERVICE_WORKER, SHAPES_JS, SITE_JS, TABLES_JS

LIMIT = 160

# The files with lines over LIMIT, each as (its longest line, its lines over LIMIT): most
# are HTML templates, whose line breaks would be the page's. Neither figure may rise, and
# once one falls the test fails until it is lowered here, so each improvement is kept; a
# file with no line over LIMIT leaves the table.
LONG_LINES: dict[str, tuple[int, int]] = {
    "site/js/core/share.js": (165, 1),
    "site/js/engine-start.js": (187, 1),
    "site/js/panels/fullscreen.js": (168, 1),
    "site/js/panels/lms.js": (247, 2),
    "site/js/panels/prediction.js": (201, 2),
    "site/js/panels/store-opening.js": (181, 1),
    "site/js/python/engine-life.js": (176, 1),
    "site/js/python/snapshot-pages.js": (168, 2),
    "site/js/python/worker-boot.js": (163, 1),
    "site/js/views/breakdown-bm25.js": (257, 6),
    "site/js/views/breakdown-cosine.js": (250, 3),
    "site/js/views/breakdown-embedding.js": (244, 3),
    "site/js/views/breakdown-fusion.js": (308, 3),
    "site/js/views/blend-seed.js": (199, 1),
    "site/js/views/breakdown.js": (175, 1),
    "site/js/views/comparison.js": (214, 4),
    "site/js/views/experiment.js": (230, 4),
    "site/js/views/guides.js": (229, 5),
    "site/js/views/map.js": (512, 6),
    "site/js/views/prediction.js": (226, 2),
    "site/js/views/records.js": (344, 5),
    "site/js/views/timeline.js": (458, 11),
    "site/js/views/tray.js": (257, 5),
    "tools/build-bytecode.mjs": (174, 2),
}

# Written by `build.py --write-tables` from the Python tables: a line per row, as long as the row.
GENERATED = frozenset(path.relative_to(ROOT).as_posix() for path in (TABLES_JS, SCORERS_JS, SHAPES_JS))


def scripts() -> list[str]:
    """The JavaScript files measured, as paths from the repository's root."""
    found = [*SITE_JS.rglob("*.js"), SERVICE_WORKER, *(ROOT / "tools").rglob("*.js"), *(ROOT / "tools").rglob("*.mjs")]
    return sorted(name for name in (path.relative_to(ROOT).as_posix() for path in found) if name not in GENERATED)


def width(text: str, limit: int = LIMIT) -> tuple[int, int]:
    """A file's longest line and its number of lines over ``limit``, in characters."""
    lengths = [len(line) for line in text.splitlines()]
    return max(lengths, default=0), sum(length > limit for length in lengths)


def ceiling_problems(measured: dict[str, tuple[int, int]], recorded: dict[str, tuple[int, int]]) -> list[str]:
    """What differs between each file's figures and its ceiling (LIMIT and no line over it for
    a file that is not recorded), each with what to do about it."""
    problems = []
    for name, (longest, over) in measured.items():
        entry = f'"{name}": ({longest}, {over}),'
        if name not in recorded:
            if over:
                problems.append(f"{name}: {over} line(s) over {LIMIT} characters, the longest {longest}: wrap them")
            continue
        ceiling = recorded[name]
        if not over:
            problems.append(f"{name}: no line over {LIMIT} characters any more: remove it from LONG_LINES")
        elif longest > ceiling[0] or over > ceiling[1]:
            problems.append(f"{name}: (longest, over {LIMIT}) = ({longest}, {over}), above its ceiling {ceiling}")
        elif (longest, over) != ceiling:
            problems.append(f"{name}: below its ceiling {ceiling}: lower it in LONG_LINES to {entry}")
    problems.extend(f"{name}: no such file: remove it from LONG_LINES" for name in recorded if name not in measured)
    return problems


def test_no_javascript_line_is_wider_than_its_ceiling_and_every_ceiling_is_as_low_as_the_code() -> None:
    """Every script's widest line and count of lines over LIMIT are exactly its recorded ceiling."""
    measured = {name: width((ROOT / name).read_text(encoding="utf-8")) for name in scripts()}
    assert {"site/js/main.js", "site/sw.js", "tools/prerender.mjs"} <= measured.keys()
    assert all((ROOT / name).is_file() for name in GENERATED)  # the exemption names real files
    assert ceiling_problems(measured, LONG_LINES) == []


def test_the_ceiling_check_fails_on_a_new_long_line_a_ceiling_left_high_and_a_stale_entry() -> None:
    """A long line added anywhere fails, and so does a ceiling not lowered after the code improved."""
    short, long = "x" * LIMIT, "y" * (LIMIT + 1)
    assert width(f"{short}\n{long}\n{long}x\n") == (LIMIT + 2, 2)
    assert ceiling_problems({"a.js": width(short)}, {}) == []
    assert ceiling_problems({"a.js": width(long)}, {}) == [
        f"a.js: 1 line(s) over {LIMIT} characters, the longest {LIMIT + 1}: wrap them"
    ]
    recorded = {"a.js": (LIMIT + 1, 1)}
    assert ceiling_problems({"a.js": width(long)}, recorded) == []
    assert ceiling_problems({"a.js": width(f"{long}\n{long}")}, recorded) == [
        f"a.js: (longest, over {LIMIT}) = ({LIMIT + 1}, 2), above its ceiling ({LIMIT + 1}, 1)"
    ]
    assert ceiling_problems({"a.js": width(f"{long}x")}, recorded)[0].endswith(f"above its ceiling ({LIMIT + 1}, 1)")
    assert ceiling_problems({"a.js": width(short)}, recorded) == [
        f"a.js: no line over {LIMIT} characters any more: remove it from LONG_LINES"
    ]
    assert ceiling_problems({"a.js": width(long)}, {"a.js": (LIMIT + 5, 1)}) == [
        f'a.js: below its ceiling ({LIMIT + 5}, 1): lower it in LONG_LINES to "a.js": ({LIMIT + 1}, 1),'
    ]
    assert ceiling_problems({}, recorded) == ["a.js: no such file: remove it from LONG_LINES"]
