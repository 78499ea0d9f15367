// E2E: Restricted Mode (workspace trust on, the folder not trusted): a Holdfast terminal runs the user's shell,
// never the one the workspace's settings name (package.json's restrictedConfigurations).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { type HoldfastE2E, waitFor, scenarioHooks } from './harness';

describe('in Restricted Mode', () => {
  let e2e: HoldfastE2E;
  scenarioHooks(
    {
      name: 'restricted',
      settings: {
        'security.workspace.trust.enabled': true,
        // No dialog: a folder not trusted before opens in Restricted Mode.
        'security.workspace.trust.startupPrompt': 'never',
      },
    },
    (started) => (e2e = started),
  );

  test("a workspace's settings do not choose the shell a Holdfast terminal runs", { timeout: 240_000 }, async (t) => {
    await e2e.run(t.name, async () => {
      const folder = e2e.workspace('restricted');
      fs.mkdirSync(path.join(folder, '.vscode'));
      const planted = { 'holdfast.shell.path': '/bin/sh', 'holdfast.shell.args': ['-c', 'touch planted-ran; exec sh'] };
      fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify(planted));
      const wb = e2e.wb;
      await e2e.open(folder);
      await waitFor(
        async () => /Restricted Mode/.test((await wb.page.locator('.part.statusbar').textContent()) ?? ''),
        {
          message: 'the window in Restricted Mode',
        },
      );
      await wb.runCommand('Holdfast: New Terminal');
      // VS Code asks whether to trust the folder; declined, the terminal still opens, in Restricted Mode.
      const asked = await waitFor(() => wb.dialogText(), { message: "VS Code's trust dialog" });
      assert.match(asked, /Do you trust the authors/);
      await wb.clickButton(/^Cancel$/);
      const session = await waitFor(() => e2e.iso.sessions()[0], { message: 'the terminal its session' });
      await e2e.iso.waitForScreen(session.id, /[#$] ?$/m);
      assert.deepEqual(session.argv, ['/bin/bash', '--norc', '--noprofile'], "the user's shell, not the workspace's");
      assert.equal(fs.existsSync(path.join(folder, 'planted-ran')), false, "the workspace's shell command never ran");
      assert.match((await wb.page.locator('.part.statusbar').textContent()) ?? '', /Restricted Mode/);
    });
  });
});
