"""The committed files generated from engine/fields.py, engine/scorers.py and engine/shapes.py, rewritten after editing them."""

from __future__ import annotations

import json

from engine.fields import policy_schema, tables_js
from engine.scorers import scorers_js

from .paths import SCORERS_JS, SHAPES_JS, STORE_SCHEMA, TABLES_JS
from .readme import write_readme
from .shapes_js import shapes_js


def write_tables() -> None:
    """Rewrite the files generated from the field table and the shapes, after editing them."""
    TABLES_JS.write_text(tables_js(), encoding="utf-8")
    SCORERS_JS.write_text(scorers_js(), encoding="utf-8")
    SHAPES_JS.write_text(shapes_js(), encoding="utf-8")
    write_readme()
    # The policy is the schema's last definition: its block is replaced as text, so the
    # hand-kept layout of the rest of the file stays as it is.
    text = STORE_SCHEMA.read_text(encoding="utf-8")
    start = text.index('\n    "policy": {')
    block = json.dumps(policy_schema(), ensure_ascii=False, indent=2).replace("\n", "\n    ")
    STORE_SCHEMA.write_text(f'{text[:start]}\n    "policy": {block}\n  }}\n}}\n', encoding="utf-8")
