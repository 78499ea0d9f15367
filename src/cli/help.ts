// Help text: the overview (`holdfast help`) and one page per command (`holdfast CMD --help`).
import { GLOBAL_OPTIONS, type OptionSpecs } from './args';
import type { Command } from './command';
import { COMMANDS } from './commands/index';

export const EXIT_CODES_HELP = [
  '  0    ok',
  '  1    failed',
  '  2    usage error (bad arguments, ambiguous session name)',
  '  4    no such session',
  '  6    no daemon listening (every command but new, serve, doctor, version, help)',
  '  124  wait timed out',
].join('\n');

export function overviewHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'holdfast: terminal sessions that outlive their windows',
    '',
    'usage: holdfast COMMAND [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    `  ${'help'.padEnd(width)}this overview, or \`holdfast help COMMAND\``,
    '',
    'Sessions are named by id or by a unique name. Every command takes:',
    optionLines(GLOBAL_OPTIONS),
    '',
    'exit codes:',
    EXIT_CODES_HELP,
    '',
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const parts = [`usage: holdfast ${command.usage}`, '', command.summary];
  if (Object.keys(command.options).length > 0) parts.push('', 'options:', optionLines(command.options));
  parts.push('', 'common options:', optionLines(GLOBAL_OPTIONS));
  for (const paragraph of command.details ?? []) parts.push('', paragraph);
  return parts.join('\n') + '\n';
}

function optionLines(options: OptionSpecs): string {
  const labels = Object.entries(options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`;
    return [flag, spec.help] as const;
  });
  const width = Math.max(...labels.map(([flag]) => flag.length)) + 2;
  return labels.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`).join('\n');
}
