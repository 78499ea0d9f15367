// Makes docs/sidebar-dark.png and docs/sidebar-light.png: the Sessions sidebar in a real VS Code
// (code-server, as the e2e) with a few sessions showing real coloured output, in "Default Dark
// Modern" and "Default Light Modern". Not a test; run after `npm run build` and compiling:
//
//   npx tsc -p . --outDir .out-sidebar && node .out-sidebar/test/e2e/sidebar-screenshots.js [OUT_DIR]
//
// OUT_DIR defaults to docs/ ($HOLDFAST_SCREENSHOTS also works).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HoldfastClient } from '../../src/client/client';
import { HoldfastE2E, openSidebar, REPO_ROOT, SessionsWebview, trace, waitFor } from './harness';

const OUT = path.resolve(process.argv[2] ?? process.env.HOLDFAST_SCREENSHOTS ?? path.join(REPO_ROOT, 'docs'));

/** A Claude Code look-alike that asks a question and rings the bell (waiting for input). */
const CLAUDE = String.raw`printf '\033[38;5;208m✻\033[0m \033[1mWelcome to Claude Code!\033[0m\n\n'
printf '\033[2m>\033[0m Make the tokenizer stream its tokens\n\n'
printf '\033[38;5;208m●\033[0m I will turn \033[1mtokenize()\033[0m into a generator.\n\n'
printf '  \033[2m12\033[0m \033[41;97m-export function tokenize(src: string): Token[] {\033[0m\n'
printf '  \033[2m12\033[0m \033[42;30m+export function* tokens(src: string): Iterable<Token> {\033[0m\n'
printf '  \033[2m13\033[0m    let at = 0;\n\n'
printf '\033[1mDo you want to make this edit to src/tokenizer.ts?\033[0m\n'
printf ' \033[36m❯ 1. Yes\033[0m\n   2. Yes, and do not ask again\n   3. No, tell Claude what to do\n\a'
read answer`;

/** A test run that keeps printing (running). */
const TESTS = String.raw`names="parses numbers|parses strings|skips comments|reports the line of an error"
names="$names|streams 10k tokens|handles CRLF|keeps unicode escapes"
i=0
printf '\033[1m> npm test\033[0m\n\n'
while true; do
  IFS='|'; for n in $names; do
    i=$((i+1))
    if [ $((i % 9)) -eq 0 ]; then printf ' \033[33m↻\033[0m %s \033[2m(retry)\033[0m\n' "$n"
    else printf ' \033[32m✔\033[0m %s \033[2m(%dms)\033[0m\n' "$n" $((i * 7 % 40 + 1)); fi
    sleep 0.35
  done
done`;

/** A Codex CLI look-alike that finished its turn (idle). */
const CODEX = String.raw`printf '\033[1;36m>_ Codex\033[0m \033[2m(gpt, ~/src/parser)\033[0m\n\n'
printf '\033[35muser\033[0m\nAdd a benchmark for the tokenizer\n\n'
printf '\033[1;34mcodex\033[0m\nAdded \033[1mbench/tokenizer.bench.ts\033[0m (3 cases).\n'
printf '\033[32m✓\033[0m npm run bench  \033[2m— 41.2 MB/s\033[0m\n\n'
printf '\033[2m▌ Ask Codex to do anything\033[0m\n'
read answer`;

/** A dev server in another workspace that stopped with an error. */
const SERVER = String.raw`printf '\033[36m[vite]\033[0m dev server running at \033[4mhttp://localhost:5173/\033[0m\n'
printf '\033[36m[vite]\033[0m page reload \033[2msrc/App.tsx\033[0m\n'
printf '\033[31m✘ [ERROR]\033[0m Could not resolve "./Tokens"\n\n    src/App.tsx:3:19:\n'
printf '\033[2m      3 │ import { Tokens } from "./Tokens";\033[0m\n'
exit 1`;

async function main(): Promise<void> {
  const e2e = await HoldfastE2E.start({ name: 'sidebar-screenshots' });
  e2eRef = e2e;
  try {
    const wb = e2e.wb;
    await wb.page.setViewportSize({ width: 1280, height: 1060 });
    // A short, stable path for the cards' cwd line.
    const folder = path.join(os.tmpdir(), 'holdfast-docs', 'parser');
    fs.mkdirSync(folder, { recursive: true });
    await e2e.open(folder);
    const workspace = pathToFileURL(folder).toString();
    const client = await HoldfastClient.connect({ socket: e2e.iso.socket, client: 'screenshots', version: 'docs' });
    const make = async (name: string, script: string, metadata: Record<string, unknown>, cols = 90, rows = 16) =>
      (
        await client.request('create', {
          name,
          argv: ['/bin/bash', '--norc', '--noprofile', '-c', script],
          cwd: folder,
          cols,
          rows,
          metadata,
        })
      ).session;
    const claude = await make('claude: streaming tokenizer', CLAUDE, {
      workspace,
      order: 0,
      agent: { profile: 'claude', name: 'Claude Code' },
    });
    const tests = await make('tests', TESTS, { workspace, order: 1 });
    const codex = await make('codex: benchmarks', CODEX, {
      workspace,
      order: 2,
      agent: { profile: 'codex', name: 'Codex CLI' },
    });
    const server = await make('dev server', SERVER, { workspace: 'file:///home/me/src/web' });
    await openSidebar(wb);
    await widenSidebar(440);
    const sidebar = new SessionsWebview(wb, 'sidebar');
    await sidebar.waitForText(claude.id, 'Do you want');
    await sidebar.waitForText(codex.id, 'Ask Codex');
    await sidebar.waitForText(server.id, 'Could not resolve');
    await sidebar.waitForPhase(claude.id, 'waiting', 30_000);
    await sidebar.waitForPhase(codex.id, 'idle', 30_000);
    await sidebar.waitForPhase(server.id, 'exited');
    fs.mkdirSync(OUT, { recursive: true });
    for (const [theme, label, file, bodyClass] of [
      ['Default Dark Modern', 'Dark Modern', 'sidebar-dark.png', 'vscode-dark'],
      ['Default Light Modern', 'Light Modern', 'sidebar-light.png', 'vscode-light'],
    ] as const) {
      await wb.runCommand('Preferences: Color Theme');
      // Filter: the list shows only its first rows.
      await wb.page.fill('.quick-input-widget .quick-input-box input', label);
      await wb.pickQuickItem(label); // the picker's label of the theme id "Default … Modern"
      await wb.closeQuickInput();
      const frame = await sidebar.frame();
      await waitFor(
        async () => {
          const cls = await frame.evaluate(() => document.body.className);
          return cls.split(' ').includes(bodyClass);
        },
        { timeout: 20_000, message: `the ${theme} theme` },
      );
      await sidebar.waitForPhase(tests.id, 'running');
      await sidebar.waitForText(tests.id, '✔');
      await wb.page.mouse.move(900, 500); // no hover highlight on a card
      const bar = await wb.page.locator('.part.activitybar').boundingBox();
      const side = await wb.page.locator('.part.sidebar').boundingBox();
      if (!bar || !side) throw new Error('no sidebar on the page');
      const target = path.join(OUT, file);
      await wb.page.screenshot({
        path: target,
        clip: { x: bar.x, y: side.y, width: side.x + side.width - bar.x, height: side.height },
      });
      trace(`wrote ${target}`);
      console.log(target);
    }
    client.close();
  } finally {
    await e2e.dispose();
  }
}

/** Drags the sash at the sidebar's right edge until the sidebar is `width` pixels wide. */
async function widenSidebar(width: number): Promise<void> {
  const page = e2eRef!.wb.page;
  const side = await page.locator('.part.sidebar').boundingBox();
  if (!side) throw new Error('no sidebar on the page');
  // The sash nearest the sidebar's right edge (the floating-panel layout leaves a gap).
  const sashes = await page
    .locator('.monaco-sash.vertical')
    .evaluateAll((els) =>
      els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: r.x + r.width / 2, y: r.y, height: r.height })),
    );
  const edge = side.x + side.width;
  const sash = sashes
    .filter((s) => s.height > side.height / 2)
    .sort((a, b) => Math.abs(a.x - edge) - Math.abs(b.x - edge))[0];
  if (!sash) throw new Error('no sash beside the sidebar');
  const x = sash.x;
  const y = sash.y + sash.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + (width - side.width) / 2, y, { steps: 4 });
  await page.mouse.move(x + width - side.width, y, { steps: 4 });
  await page.mouse.up();
  await waitFor(async () => Math.abs(((await page.locator('.part.sidebar').boundingBox())?.width ?? 0) - width) < 8, {
    timeout: 5_000,
    message: `the sidebar ${width} px wide`,
  });
}

let e2eRef: HoldfastE2E | undefined;

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
