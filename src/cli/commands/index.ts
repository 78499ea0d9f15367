// Every command, in the order help lists them.
import { attachCommand } from '../attach';
import type { Command } from '../command';
import { approveCommand, denyCommand } from './answer';
import { bridgeCommand } from './bridge';
import { doctorCommand } from '../doctor';
import { mcpCommand } from './mcp';
import { serveCommand, stopCommand, upgradeCommand, versionCommand } from './daemon';
import { grepCommand } from './grep';
import { hostCommand } from './host';
import { readCommand, replyCommand, sendCommand, waitCommand } from './io';
import { runCommand } from './shellRun';
import { notifyCommand } from './notify';
import { configCommand, recoveryCommand, relaunchCommand, resumeCommand } from './recovery';
import { killCommand, listCommand, newCommand, resizeCommand, rmCommand, showCommand } from './sessions';

export const COMMANDS: Command[] = [
  newCommand,
  listCommand,
  showCommand,
  readCommand,
  sendCommand,
  replyCommand,
  runCommand,
  approveCommand,
  denyCommand,
  waitCommand,
  grepCommand,
  notifyCommand,
  attachCommand,
  resizeCommand,
  killCommand,
  rmCommand,
  relaunchCommand,
  resumeCommand,
  recoveryCommand,
  configCommand,
  mcpCommand,
  serveCommand,
  stopCommand,
  upgradeCommand,
  hostCommand,
  bridgeCommand,
  doctorCommand,
  versionCommand,
];

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}
