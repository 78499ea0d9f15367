// The client's check of the daemon's hello, by hand: zod in the client would add about 30 KiB (zod/mini) to
// the extension's bundle for this one object. The table has a check for every field of hello.ts's schema
// (the compiler holds it to that type), and test/hello-schemas.test.ts holds both to the same verdicts.
import type { DaemonHello } from './hello';

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

/** The daemon's hello with only its own fields, or an Error saying which field is wrong. */
export function readDaemonHello(body: unknown): DaemonHello {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw malformed('it is not a JSON object');
  const fields = body as Record<string, unknown>;
  const hello: Record<string, unknown> = {};
  for (const [key, [what, is]] of Object.entries(FIELDS)) {
    if (!is(fields[key])) throw malformed(`${key} must be ${what}`);
    hello[key] = fields[key];
  }
  return hello as DaemonHello;
}

function malformed(why: string): Error {
  return new Error(`the daemon's hello is malformed: ${why}`);
}
