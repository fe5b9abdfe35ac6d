#!/bin/sh
# Runs a command with Node.js >= 22.12 (what wrangler needs) and the project's dependencies installed.
# Where the machine's Node is older, Node 22 is installed from the npm registry (the `node` package)
# into a cache folder outside the repo, once, and put first on PATH. A machine with Node 22 skips that.
set -e
cd "$(dirname "$0")/.."

node_ok() {
  command -v node >/dev/null 2>&1 && node -e '
    const [major, minor] = process.versions.node.split(".").map(Number);
    process.exit(major > 22 || (major === 22 && minor >= 12) ? 0 : 1);'
}

if ! node_ok; then
  cache="${PANTHEON_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pantheon}/node22"
  if [ ! -x "$cache/node_modules/.bin/node" ]; then
    echo "pantheon: Node $(node -v 2>/dev/null || echo 'none') is older than 22.12; installing Node 22 into $cache (once, about 185 MB unpacked)" >&2
    mkdir -p "$cache"
    node scripts/progress.mjs "installing Node 22" --count '^npm http (fetch|cache) ' -- \
      npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=http node@22
  fi
  PATH="$cache/node_modules/.bin:$PATH"
  export PATH
fi

# Install or refresh dependencies when node_modules is missing or older than the lockfile.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # The output is kept and shown only on failure; the progress line ticks meanwhile (a first
  # install takes minutes) and counts what npm fetched.
  echo "pantheon: installing dependencies (npm install; a first install takes a few minutes)" >&2
  node scripts/progress.mjs "installing dependencies" --count '^npm http (fetch|cache) ' -- \
    npm install --no-audit --no-fund --loglevel=http
fi

exec "$@"
