// What a bundle must not hold (scripts/bundleRules.mjs, checked by every build): the daemon's main thread without
// @xterm/headless, the search worker without zod, the CLI without the daemon or the MCP server.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import { ROOT } from './helpers/daemon';

interface BundleRules {
  forbiddenInputs: (name: string, metafile: esbuild.Metafile) => string | undefined;
}

async function rules(): Promise<BundleRules> {
  // An ES module of the build's, loaded as the build loads it.
  return (await import(path.join(ROOT, 'scripts', 'bundleRules.mjs'))) as BundleRules;
}

async function metafile(entry: string): Promise<{ metafile: esbuild.Metafile; bytes: number }> {
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['node-pty', 'vscode'],
    write: false,
    metafile: true,
    outfile: 'bundle.js',
    logLevel: 'silent',
  });
  const bytes = result.outputFiles.find((f) => f.path.endsWith('bundle.js'))?.contents.length ?? 0;
  return { metafile: result.metafile, bytes };
}

test('the daemon, the search worker and the CLI bundle nothing they must not', async () => {
  const { forbiddenInputs } = await rules();
  for (const [name, entry] of [
    ['daemon', 'src/daemon/main.ts'],
    ['searchWorker', 'src/daemon/searchWorker.ts'],
    ['cli', 'src/cli/main.ts'],
  ]) {
    const { metafile: meta, bytes } = await metafile(entry);
    console.log(`${name}: ${bytes} bytes`);
    assert.equal(forbiddenInputs(name, meta), undefined);
  }
});

test('the check names what came back: @xterm/headless in the daemon, zod in the search worker', async () => {
  const { forbiddenInputs } = await rules();
  const emulator = await metafile('src/daemon/emulator/snapshot.ts');
  assert.match(
    forbiddenInputs('daemon', emulator.metafile) ?? '',
    /^dist\/daemon\.js must not contain @xterm\/headless/,
  );
  const checkpoints = await metafile('src/daemon/search/checkpointReader.ts');
  assert.match(
    forbiddenInputs('searchWorker', checkpoints.metafile) ?? '',
    /must not contain zod .*node_modules\/zod\//,
  );
});
