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
    echo "pantheon: Node $(node -v 2>/dev/null || echo 'none') is older than 22.12; installing Node 22 into $cache (once)" >&2
    mkdir -p "$cache"
    npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=error node@22 >&2
  fi
  PATH="$cache/node_modules/.bin:$PATH"
  export PATH
fi

# Install or refresh dependencies when node_modules is missing or older than the lockfile.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "pantheon: installing dependencies (npm install)" >&2
  npm install --no-audit --no-fund --loglevel=error >&2
fi

exec "$@"
