// What a bundle must not hold, checked on esbuild's metafile by every build (scripts/build.mjs) and by
// test/bundles.test.ts. The CLI starts the daemon and loads the MCP server by their bundles (src/host/bundles.ts).
// The daemon's main thread never parses a screen: @xterm/headless lives in the emulator worker alone. The search
// worker, replaced after each runaway search, leaves zod's schemas to the checkpoint reader it loads on demand.
export const FORBIDDEN = {
  cli: { pattern: /^src\/(daemon|mcp)\//, why: 'the daemon or the MCP server' },
  daemon: { pattern: /node_modules\/@xterm\/headless\//, why: "@xterm/headless (the emulator worker's alone)" },
  searchWorker: { pattern: /node_modules\/zod\//, why: "zod (the checkpoint reader's, loaded on its first job)" },
};

/** The inputs of `metafile` that bundle `name` must not hold, as one error message, or undefined. */
export function forbiddenInputs(name, metafile) {
  const rule = FORBIDDEN[name];
  if (!rule) return undefined;
  const inputs = Object.keys(metafile.inputs).filter((input) => rule.pattern.test(input));
  if (inputs.length === 0) return undefined;
  const shown = inputs.slice(0, 5).join(', ') + (inputs.length > 5 ? `, and ${inputs.length - 5} more` : '');
  return `dist/${name}.js must not contain ${rule.why}, but bundles ${shown}`;
}
