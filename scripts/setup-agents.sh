#!/usr/bin/env bash
# Installs the real agent CLIs (Claude Code, Codex CLI, Gemini CLI) from the npm registry into the
# tool cache (scripts/toolCache.sh), linked as .vscode-test/agents/, so test/agents-real checks each
# built-in profile's command line against the CLI's own option parsing, and test/agents-real-prompt
# answers Claude Code's permission prompt. They run without credentials: Claude Code talks to a local
# stand-in of the API.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES=(@anthropic-ai/claude-code@2.1.328 @openai/codex@0.169.0 @google/gemini-cli@0.61.0)
source scripts/toolCache.sh
DIR="$TOOL_CACHE/agents-$(printf '%s\n' "${PACKAGES[@]}" | sha1sum | cut -c1-12)"
STAMP="$DIR/installed.txt"
tool_cache_lock agents
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "${PACKAGES[*]}" ]; then
  tool_cache_link "$DIR" agents
  exit 0
fi
echo "[setup-agents] installing ${PACKAGES[*]}" >&2
rm -rf "$DIR" && mkdir -p "$DIR"
tool_cache_link "$DIR" agents
cd "$DIR"
echo '{"name":"holdfast-agent-clis","private":true}' >package.json
# No install scripts (one of Gemini's builds native modules Holdfast does not use), except Claude
# Code's own, which links its native binary from its optional platform package.
npm install --no-audit --no-fund --ignore-scripts --loglevel=error "${PACKAGES[@]}" </dev/null
(cd node_modules/@anthropic-ai/claude-code && node install.cjs)
echo "${PACKAGES[*]}" >"$STAMP"
