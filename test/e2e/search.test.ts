// E2E: *Holdfast: Search Sessions…* in a real VS Code. A session prints a marker, then
// 5,000 lines; the search quick pick finds it as the marker is typed (with a match from another
// session too), and choosing it opens that session's history as a document at the marker's line.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { type HoldfastE2E, waitFor, scenarioHooks } from './harness';

let e2e: HoldfastE2E;

scenarioHooks({ name: 'search' }, (started) => (e2e = started));

test(
  'search sessions: the quick pick finds a line 5,000 lines up; choosing it opens the history there',
  { timeout: 240_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      const server = e2e.iso.newShellSession(
        'api-server',
        "echo 'GET /health 200'; echo 'request req-7f3a: upstream Search-Marker timeout after 30s'; " +
          "seq -f 'GET /items/%g 200' 1 5000; exec sleep 1000",
      );
      const worker = e2e.iso.newShellSession(
        'queue-worker',
        "echo 'job 41 done'; echo 'job 42: retrying req-7f3a (search-marker timeout)'; " +
          "echo 'job 43 done'; exec sleep 1000",
      );
      await e2e.iso.waitForScreen(server.id, /^GET \/items\/5000 200$/m);
      await e2e.iso.waitForScreen(worker.id, /^job 43 done$/m);
      const grep = e2e.iso.cliJson<{ matches: { session: string; line: number; text: string }[] }>([
        'grep',
        'Search-Marker',
      ]);
      assert.equal(grep.matches.length, 1);
      const expected = grep.matches[0];
      assert.equal(expected.session, server.id);

      await e2e.open(e2e.workspace('search'));
      await wb.runCommand('Holdfast: Search Sessions…');
      // Lowercase: either case matches (smart case), so both sessions' lines come up.
      await wb.page.fill('.quick-input-widget .quick-input-box input', 'search-marker');
      await waitFor(
        async () => {
          const items = await wb.quickPickItems();
          return items.some((l) => /req-7f3a: upstream Search-Marker/.test(l)) && items.some((l) => /job 42/.test(l))
            ? true
            : undefined;
        },
        { timeout: 20_000, message: 'both matches in the search quick pick' },
      );
      assert.equal(await wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').count(), 2);
      const shot = await wb.screenshot('search-quick-pick');
      // The README's picture, renewed on demand (HOLDFAST_SCREENSHOTS=DIR), never by an ordinary run.
      const pictures = process.env.HOLDFAST_SCREENSHOTS;
      if (pictures) fs.copyFileSync(shot, path.join(pictures, 'search.png'));

      await wb.pickQuickItem(/req-7f3a: upstream Search-Marker/);
      await waitFor(async () => (await wb.editorTabs()).some((tab) => tab.active && /api-server/.test(tab.name)), {
        timeout: 20_000,
        message: "the session's history document",
      });
      // The cursor is on the match's line (status bar "Ln N"), and that line is on screen.
      // The document opens at line 1, then the match's line is selected.
      const at = new RegExp(`Ln ${expected.line + 1},`);
      await waitFor(
        async () => {
          const position = await wb.page
            .locator('.part.statusbar #status\\.editor\\.selection')
            .textContent({ timeout: 1_000 });
          // Thrown, so that a timeout reports what the status bar said last.
          if (!at.test(position ?? '')) throw new Error(`the status bar says "${position}"`);
          return true;
        },
        { timeout: 15_000, message: `the cursor on line ${expected.line + 1}` },
      );
      const visible = await wb.page.locator('.part.editor .monaco-editor .view-lines').first().textContent();
      assert.match(visible?.replace(/\u00a0/g, ' ') ?? '', /request req-7f3a: upstream Search-Marker timeout/);
      await wb.screenshot('search-history-document');
    });
  },
);
