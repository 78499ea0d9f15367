// Signals as people name them (TERM, sigint, 9) for `holdfast kill --signal` and the MCP kill tool: checked
// against this machine's (os.constants.signals) and sent to the daemon as SIGNAME.
import * as os from 'node:os';
import { InputError } from '../base/inputError';

/** HUP, sighup, SIGHUP and 1 all mean SIGHUP. */
export function parseSignal(raw: string): string {
  const signals = os.constants.signals as Record<string, number>;
  if (/^\d+$/.test(raw)) {
    const name = Object.keys(signals).find((k) => signals[k] === Number(raw));
    if (name) return name;
  } else {
    const upper = raw.toUpperCase();
    const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
    if (name in signals) return name;
  }
  throw new InputError(`unknown signal "${raw}"`);
}
