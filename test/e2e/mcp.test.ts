// E2E: VS Code's own MCP support lists the server the extension offers
// (lm.registerMcpServerDefinitionProvider), starts it, and the server answers with its tools.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HoldfastE2E, trace, waitFor } from './harness';

let e2e: HoldfastE2E;

before(async () => {
  // MCP lives with VS Code's AI features, which the other scenarios turn off.
  e2e = await HoldfastE2E.start({ name: 'mcp', settings: { 'chat.disableAIFeatures': false } });
});

after(async () => {
  await e2e?.dispose();
});

test('MCP: List Servers shows Holdfast; started, it reports its tools', { timeout: 240_000 }, async (t) => {
  await e2e.run(t.name, async () => {
    const wb = e2e.wb;
    await e2e.open(e2e.workspace('mcp'));
    await wb.runCommand('MCP: List Servers');
    const items = await waitFor(
      async () => {
        const labels = await wb.quickPickItems();
        return labels.some((l) => /Holdfast/.test(l)) ? labels : undefined;
      },
      { timeout: 30_000, message: 'Holdfast among the MCP servers' },
    );
    assert.ok(
      items.some((l) => /Holdfast/.test(l)),
      JSON.stringify(items),
    );
    await wb.pickQuickItem(/Holdfast/);
    await wb.pickQuickItem(/^Start Server$/);
    // VS Code lists the tools of a running server; its state shows in the list.
    const running = await waitFor(
      async () => {
        await wb.runCommand('MCP: List Servers');
        const labels = await wb.quickPickItems();
        const row = await wb.page
          .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Holdfast' })
          .first()
          .textContent();
        await wb.closeQuickInput();
        return labels.length > 0 && /Running|tools/i.test(row ?? '') ? row : undefined;
      },
      { timeout: 60_000, message: 'the Holdfast server running' },
    );
    trace(`MCP server row: ${running}`);
    // Its output, as VS Code logs it: the handshake went through and the tools were listed.
    await wb.runCommand('MCP: List Servers');
    await wb.pickQuickItem(/Holdfast/);
    await wb.pickQuickItem(/^Show Output$/);
    const output = await waitFor(
      async () => {
        const text = await wb.outputText();
        return /Discovered \d+ tools/.test(text) ? text : undefined;
      },
      { timeout: 30_000, message: "VS Code's MCP output to list Holdfast's tools" },
    );
    trace(
      `MCP output: ${output
        .split('\n')
        .filter((l) => /tools|Connection state/.test(l))
        .join(' | ')}`,
    );
  });
});
