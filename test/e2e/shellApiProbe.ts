// E2E only, an extension of its own (shell-integration.test.ts installs it beside Holdfast): what another
// extension, or VS Code's own chat tools, does with a terminal through the Terminal.shellIntegration API:
// waits for its shell integration, executeCommand, reads the output stream, takes the exit code from
// onDidEndTerminalShellExecution. The result goes to $HOLDFAST_SHELL_API_RESULT as JSON. Its manifest:
// shellApiProbeFolder.ts.
import * as fs from 'node:fs';
import * as vscode from 'vscode';

function integrationOf(terminal: vscode.Terminal): Promise<vscode.TerminalShellIntegration> {
  if (terminal.shellIntegration) return Promise.resolve(terminal.shellIntegration);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no shell integration within 30 s')), 30_000);
    const listener = vscode.window.onDidChangeTerminalShellIntegration((e) => {
      if (e.terminal !== terminal) return;
      clearTimeout(timer);
      listener.dispose();
      resolve(e.shellIntegration);
    });
  });
}

async function run(command: string): Promise<Record<string, unknown>> {
  const terminal = vscode.window.activeTerminal;
  if (!terminal) throw new Error('no active terminal');
  const integration = await integrationOf(terminal);
  const execution = integration.executeCommand(command);
  const ended = new Promise<number | undefined>((resolve) => {
    const listener = vscode.window.onDidEndTerminalShellExecution((e) => {
      if (e.execution !== execution) return;
      listener.dispose();
      resolve(e.exitCode);
    });
  });
  let output = '';
  for await (const data of execution.read()) output += data;
  const exitCode = await ended;
  const commandLine = execution.commandLine.value;
  return { terminal: terminal.name, commandLine, output, exitCode, cwd: integration.cwd?.fsPath };
}

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('holdfastShellApiProbe.run', async () => {
      const file = process.env.HOLDFAST_SHELL_API_RESULT!;
      try {
        fs.writeFileSync(file, JSON.stringify(await run('echo hi; sh -c "exit 3"')));
      } catch (err) {
        fs.writeFileSync(file, JSON.stringify({ error: String((err as Error).stack ?? err) }));
      }
    }),
  );
}

export function deactivate(): void {
  // nothing to let go of: the command is the context's
}
