#!/usr/bin/env bash
# The project's two commands, for people and for CI alike:
#   bash dev.sh serve       set up, build the site and serve it at http://127.0.0.1:8000/
#   bash dev.sh test        set up (Chromium included) and run every check and test
#   bash dev.sh test fast   while working: lint, types, the engine and JS unit tests
set -euo pipefail
cd "$(dirname "$0")"

VENV=.venv
PY="$VENV/bin/python"

# Set-up steps run again only when what they install from has changed: each leaves a stamp
# holding the checksum of its file (pyproject.toml, package-lock.json), so serving again
# starts at once. Delete .venv/ or node_modules/ to install afresh.
current() {
  # $1: a stamp, $2: the file it remembers. True when the stamp holds the file's checksum.
  [ -f "$1" ] && [ "$(cat "$1")" = "$(cksum < "$2")" ]
}

setup() {
  # $1: the pyproject.toml extra to install: site (build and serve) or dev (every check and
  # test; it holds site).
  if [ ! -x "$PY" ]; then
    python3 -m venv "$VENV"
  fi
  if ! current "$VENV/.installed-$1" pyproject.toml; then
    echo "Installing the Python packages (.[$1])…"
    "$PY" -m pip install --quiet --disable-pip-version-check -e ".[$1]"
    cksum < pyproject.toml > "$VENV/.installed-$1"
    if [ "$1" = dev ]; then
      cp "$VENV/.installed-dev" "$VENV/.installed-site"
    fi
  fi
  # Pyodide's runtime files and esbuild, which bundles the page, are the npm dependencies
  # pinned in package-lock.json: all serving needs. The test tools (TypeScript, axe-core,
  # Lighthouse…) are its devDependencies. npm ci empties node_modules/ first, stamps and all.
  if ! current "node_modules/.installed-$1" package-lock.json; then
    if [ "$1" = dev ]; then
      echo "Installing the npm packages (npm ci)…"
      npm ci --no-audit --no-fund --loglevel=error
    else
      echo "Installing the npm packages the site needs (npm ci --omit=dev)…"
      npm ci --omit=dev --no-audit --no-fund --loglevel=error
    fi
    cksum < package-lock.json > "node_modules/.installed-$1"
    if [ "$1" = dev ]; then
      cp node_modules/.installed-dev node_modules/.installed-site
    fi
  fi
}

ensure_chromium() {
  # Debian's Chromium: `playwright install` cannot download browsers on these machines.
  if [ -n "${CHROMIUM_PATH:-}" ] || command -v chromium >/dev/null 2>&1; then
    return
  fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests…"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
  else
    echo "Chromium is missing: install it with 'sudo apt-get install chromium' (or set CHROMIUM_PATH)." >&2
    exit 1
  fi
}

checks() {
  "$VENV/bin/ruff" check .
  "$VENV/bin/ruff" format --check .
  "$VENV/bin/mypy"
  while IFS= read -r -d "" module; do
    node --check "$module"
  done < <(find site/js site/sw.js tools -name "*.js" -print0 -o -name "*.mjs" -print0)
  # The page's JSDoc types, checked (tsconfig.json): TypeScript reads the JavaScript as it is.
  node_modules/.bin/tsc --noEmit -p tsconfig.json
  node --test tests/js/
}

# The tier that needs no browser, no site build and no Pyodide.
FAST_TESTS=(tests --ignore=tests/browser --ignore=tests/test_build.py --ignore=tests/test_engine_pyodide.py)

case "${1:-}" in
  serve)
    setup site
    exec "$PY" build.py --serve --port "${PORT:-8000}"
    ;;
  test)
    setup dev
    if [ "${2:-}" = fast ]; then
      checks
      exec "$PY" -m pytest -q "${FAST_TESTS[@]}" "${@:3}"
    fi
    ensure_chromium
    checks
    "$PY" -m pytest "${@:2}"
    ;;
  *)
    echo "usage: bash dev.sh serve | bash dev.sh test [fast] [pytest arguments]" >&2
    exit 2
    ;;
esac
