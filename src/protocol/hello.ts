// The first frame each way (docs/protocol.md): the client's hello, checked by the daemon before anything
// else it sends, and the daemon's answer, checked by the client. Their types are derived from here.
import { z } from 'zod';

/**
 * What a client says first. Only `protocol` decides whether the hello is well formed: a token that is
 * missing or not a string is refused as a wrong one (`auth`), and the other fields, which only name the
 * client in the daemon's log, fall back to empty when they are of another type.
 */
export const clientHelloSchema = z.object(
  {
    protocol: z.number({ error: 'protocol must be a number' }),
    /** "cli", "extension", "test", ... */
    client: z.string().catch(''),
    version: z.string().catch(''),
    /** The token file's token, or a credential from `grant`. */
    token: z.string().optional().catch(undefined),
    capabilities: z.array(z.string()).catch([]),
  },
  { error: 'it must be a JSON object' },
);

/** What a client sends (its fields as a client fills them in). */
export type ClientHello = z.input<typeof clientHelloSchema>;

/**
 * The daemon's answer. Every field has been sent since protocol 1; a newer daemon's extra fields are
 * ignored. `startMode` is 'on-demand' or 'persistent' today, shown and never acted on, so a mode this
 * client does not know is kept rather than refused.
 */
export const daemonHelloSchema = z.object({
  protocol: z.number(),
  version: z.string(),
  pid: z.number().int(),
  startedAt: z.number(),
  startMode: z.string(),
  /** What it can do (messages.ts's Capability): a client checks these instead of the version. */
  capabilities: z.array(z.string()),
});

export type DaemonHello = z.infer<typeof daemonHelloSchema>;
