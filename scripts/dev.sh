#!/usr/bin/env bash
# Runs Holdfast in a real VS Code: builds the extension, installs code-server on first use
# (linked from .vscode-test/, see scripts/setup-e2e.sh) and serves a workspace on 127.0.0.1 with
# Holdfast installed. Open the printed URL in a browser; Ctrl-C stops the editor (Holdfast
# sessions keep running in their daemon, as after any editor quit).
#
#   bash scripts/dev.sh [WORKSPACE_FOLDER]      (PORT=8080 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PORT="${PORT:-8080}"
DEV="$ROOT/.vscode-test/dev"
WORKSPACE="${1:-$ROOT/.vscode-test/demo-workspace}"

say() { printf '[dev] %s\n' "$*" >&2; }

# 1. Dependencies and the build.
if [ ! -d node_modules/node-pty ] || ! npm ls --depth=0 >/dev/null 2>&1; then
  say "installing dependencies (npm ci)"
  npm ci --no-audit --no-fund </dev/null
fi
npm run build

# 2. code-server, Node 24 and Chromium's friends (cached after the first run).
setup="$(bash scripts/setup-e2e.sh --newest)"
node24="$(sed -n 's/^HOLDFAST_E2E_NODE=//p' <<<"$setup")"
cs_entry="$ROOT/.vscode-test/code-server/node_modules/code-server/out/node/entry.js"
[ -x "$node24" ] && [ -f "$cs_entry" ] || {
  say "code-server is not installed; see the output of scripts/setup-e2e.sh"
  exit 1
}

# 3. A user-data dir and extensions dir of its own, with Holdfast linked in.
mkdir -p "$DEV/user-data/User" "$DEV/extensions"
if [ ! -f "$DEV/user-data/User/settings.json" ]; then
  cat >"$DEV/user-data/User/settings.json" <<'EOF'
{
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "update.mode": "none",
  "telemetry.telemetryLevel": "off"
}
EOF
fi
ext_id="$(node -p 'const p = require("./package.json"); `${p.publisher}.${p.name}`.toLowerCase()')"
ext_version="$(node -p 'require("./package.json").version')"
for old in "$DEV/extensions/$ext_id"-*; do
  [ -e "$old" ] || [ -L "$old" ] || continue
  rm -rf "$old"
done
ln -s "$ROOT" "$DEV/extensions/$ext_id-$ext_version"
rm -f "$DEV/extensions/extensions.json" "$DEV/extensions/.obsolete"
printf 'auth: none\ncert: false\n' >"$DEV/config.yaml"

# 4. A workspace to open.
if [ ! -e "$WORKSPACE" ]; then
  mkdir -p "$WORKSPACE"
  cat >"$WORKSPACE/README.md" <<'EOF'
# Holdfast demo workspace

Open a Holdfast terminal: F1 → "Holdfast: New Terminal" (or the terminal profile "Holdfast").
Start something long-running in it, then F1 → "Developer: Reload Window": the terminal comes back
with the same process. Stop this editor (Ctrl-C in dev.sh) and start it again: it is still there.
EOF
fi
WORKSPACE="$(cd "$WORKSPACE" && pwd)"

url="http://127.0.0.1:$PORT/?folder=$(node -p 'encodeURIComponent(process.argv[1])' "$WORKSPACE")"
echo
echo "Holdfast $ext_version in VS Code (code-server 4.139.1) for $WORKSPACE"
echo "  open:  $url"
if command -v code >/dev/null 2>&1; then
  echo "  or, in your desktop VS Code:  code --extensionDevelopmentPath=\"$ROOT\" \"$WORKSPACE\""
fi
echo "  stop:  Ctrl-C (sessions keep running; \`node dist/cli.js list\` shows them)"
echo

exec "$node24" "$cs_entry" \
  --config "$DEV/config.yaml" \
  --auth none \
  --bind-addr "127.0.0.1:$PORT" \
  --user-data-dir "$DEV/user-data" \
  --extensions-dir "$DEV/extensions" \
  --disable-telemetry \
  --disable-update-check \
  --disable-workspace-trust \
  "$WORKSPACE"
