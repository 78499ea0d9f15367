// The shell API probe (shellApiProbe.ts, an extension of its own) as an extension folder to install beside
// Holdfast: its manifest, and the probe's compiled code as its main file.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PROBE_COMMAND_TITLE = 'Shell API Probe: Run In Active Terminal';

/** The probe as an extension folder: its manifest and this file's compiled code. */
export function probeExtension(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(__dirname, 'shellApiProbe.js'), path.join(dir, 'extension.js'));
  const manifest = {
    name: 'shell-api-probe',
    publisher: 'holdfast-tests',
    version: '0.0.1',
    engines: { vscode: '^1.93.0' },
    main: './extension.js',
    activationEvents: ['onStartupFinished'],
    contributes: { commands: [{ command: 'holdfastShellApiProbe.run', title: PROBE_COMMAND_TITLE }] },
  };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  return dir;
}
