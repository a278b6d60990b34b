"""Where the build reads from and writes to: every path it uses, in one place."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
SITE_JS = SITE / "js"
TEMPLATES = SITE / "templates"
SERVICE_WORKER = SITE / "sw.js"
ICON = SITE / "favicon.svg"
DEFAULT_STORE = ROOT / "fixtures" / "store.json"
DEFAULT_OUT = ROOT / "dist"

# Generated from engine/fields.py: the page's copy of the tables (the build writes a
# fresh one into dist/js) and the policy section of the store schema, for editors.
TABLES_JS = SITE_JS / "core" / "tables.js"
SCORERS_JS = SITE_JS / "core" / "scorers.js"
# Generated from engine/shapes.py: the page's JSDoc types of the engine's JSON shapes.
SHAPES_JS = SITE_JS / "core" / "shapes.js"
STORE_SCHEMA = ROOT / "fixtures" / "store.schema.json"
FIELD_TABLE = ROOT / "engine" / "fields.py"

# Inlined into index.html: first-frames.js must run before the body is parsed (see the
# file), and the stylesheet inline spares a first visit one round trip before its first
# paint.
INLINE_SCRIPT = SITE_JS / "first-frames.js"
INLINE_STYLE = SITE / "css" / "site.css"

# The build-time Node scripts: the bytecode (stdlib and engine) and the prerender.
BUILD_BYTECODE = ROOT / "tools" / "build-bytecode.mjs"
PRERENDER = ROOT / "tools" / "prerender.mjs"

# The npm packages the site is built from (`npm ci` installs them).
NODE_MODULES = ROOT / "node_modules"
PYODIDE_PACKAGE = NODE_MODULES / "pyodide"
ZSTD_PACKAGE = NODE_MODULES / "zstddec"
# The cmi5 launch contract, implemented by the npm package @xapi/cmi5; a --cmi5 build
# serves its browser module as js/vendor/cmi5.js (site/js/lms/cmi5-reporter.js imports it).
CMI5_PACKAGE = NODE_MODULES / "@xapi" / "cmi5"
ESBUILD = NODE_MODULES / ".bin" / "esbuild"

# The static embedding's vectors and what travels with them: the model's licence and the
# notice of how the vectors were derived from it (issue 40). The page fetches the vectors
# only when a learner picks a scorer that reads them.
EMBEDDING = ROOT / "embedding"
VECTORS = EMBEDDING / "minilm-static.rwse"
VECTORS_LICENSE = EMBEDDING / "LICENSE"
VECTORS_NOTICE = EMBEDDING / "NOTICE.md"
