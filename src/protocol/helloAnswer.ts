// The client's check of the daemon's hello, by hand: zod in the client would add about 30 KiB (zod/mini) to
// the extension's bundle for this one object. The table has a check for every field of hello.ts's schema
// (the compiler holds it to that type), and test/hello-schemas.test.ts holds both to the same verdicts.
import type { DaemonHello } from './hello';
import { PROTOCOL_VERSION } from './messages';
import { OLDEST_DAEMON_PROTOCOL, ProtocolMismatchError } from './version';

type FieldCheck<T> = readonly [what: string, is: (value: unknown) => value is T];

const isNumber = (value: unknown): value is number => typeof value === 'number';
const isInteger = (value: unknown): value is number => Number.isInteger(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);

const FIELDS: { [K in keyof DaemonHello]-?: FieldCheck<DaemonHello[K]> } = {
  protocol: ['a number', isNumber],
  version: ['a string', isString],
  pid: ['an integer', isInteger],
  startedAt: ['a number', isNumber],
  startMode: ['a string', isString],
  capabilities: ['a list of strings', isStrings],
};

/**
 * What a daemon's Error frame in answer to our hello says it speaks: a daemon that no longer serves this client's
 * protocol (docs/protocol.md) is a mismatch, not an error of the hello.
 */
export function refusedHello(body: unknown): ProtocolMismatchError | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { code, protocol, oldestClient, version } = body as Record<string, unknown>;
  if (code !== 'protocol' || !isNumber(protocol) || !isNumber(oldestClient) || oldestClient <= PROTOCOL_VERSION)
    return undefined;
  return new ProtocolMismatchError('daemon-too-new', protocol, isString(version) ? version : '');
}

/** The daemon's hello with only its own fields, or an Error saying which field is wrong. */
export function readDaemonHello(body: unknown): DaemonHello {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw malformed('it is not a JSON object');
  const fields = body as Record<string, unknown>;
  // The version first: a daemon out of range is said so, whatever else its hello lacks or adds.
  const { protocol, version } = fields;
  const named = isString(version) ? version : '';
  if (isNumber(protocol) && protocol < OLDEST_DAEMON_PROTOCOL)
    throw new ProtocolMismatchError('daemon-too-old', protocol, named);
  const wrong = Object.entries(FIELDS).find(([key, [, is]]) => !is(fields[key]));
  if (wrong && isNumber(protocol) && protocol > PROTOCOL_VERSION)
    throw new ProtocolMismatchError('daemon-too-new', protocol, named);
  if (wrong) throw malformed(`${wrong[0]} must be ${wrong[1][0]}`);
  const hello: Record<string, unknown> = {};
  for (const key of Object.keys(FIELDS)) hello[key] = fields[key];
  return hello as DaemonHello;
}

function malformed(why: string): Error {
  return new Error(`the daemon's hello is malformed: ${why}`);
}
