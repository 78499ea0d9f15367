// Approving or denying an agent's permission prompt from a shell: the daemon checks the prompt on the
// session's screen against what its agent is known to draw, and sends that prompt's keys only where the
// agent's own hook said it asks. Else the prompt's block is printed here with its digest, and the answer
// goes once asked again naming that digest (`--shown`): to that block, if the screen still shows it.
import {
  findPermissionPrompt,
  type PromptChoice,
  promptArea,
  promptAreaDigest,
  VERIFIED_PROMPTS,
} from '../../agents/permissionPrompt';
import { type HoldfastClient, RequestError } from '../../client/client';
import { ErrorCode } from '../../protocol/messages';
import { agentOf } from '../../protocol/recovery';
import { printable } from '../../text/printable';
import { expectPositionals, stringOpt } from '../args';
import type { Command, CommandResult } from '../command';
import { withClient } from '../connect';
import { ExitCode } from '../errors';

/** The prompt's block as the screen shows it now, to print before any answer: undefined when none is there. */
async function shownArea(
  client: HoldfastClient,
  session: string,
): Promise<{ area: string[]; digest: string } | undefined> {
  const { session: info } = await client.request('show', { session });
  const profile = agentOf(info.metadata)?.profile;
  const { lines } = await client.request('read', { session });
  const prompt = findPermissionPrompt(typeof profile === 'string' ? profile : undefined, lines);
  if (!prompt) return undefined;
  const area = promptArea(lines, prompt);
  return { area, digest: promptAreaDigest(area) };
}

function answerCommand(choice: PromptChoice, summary: string, example: string): Command {
  const name = choice === 'approve' ? 'approve' : 'deny';
  return {
    name,
    summary,
    usage: `${name} ID [--shown DIGEST]`,
    options: { shown: { type: 'string', value: 'DIGEST', help: 'answer the prompt this printed, and only it' } },
    details: [
      "Only at a permission prompt the daemon recognises on the session's screen, as drawn by " +
        `${Object.values(VERIFIED_PROMPTS).join(', ')}: approve picks its "yes, this once" choice, deny its ` +
        '"no". Anything else is refused with no-prompt and nothing is sent.',
      "Any program can print a prompt's layout, so the keys go at once only where the agent's own hook said " +
        'it asks (Claude Code). Else the prompt as its screen shows it is printed, nothing is sent, and the ' +
        'line under it names the command that answers it: --shown DIGEST, refused if the screen shows anything ' +
        'else by then.',
      '--json prints {"question": Q, "sent": KEYS}, or {"unconfirmed": {"area": ROWS, "shown": DIGEST}}.',
      `Example: holdfast ${name} ${example}`,
    ],
    async run(ctx) {
      expectPositionals(ctx.args, 1, 1, 'session ID or name');
      const session = ctx.args.positionals[0];
      const shown = stringOpt(ctx.args, 'shown');
      return withClient(ctx, async (client): Promise<CommandResult> => {
        try {
          const result = await client.request('answer', { session, choice, shown });
          return {
            data: result,
            text: `${name === 'approve' ? 'approved' : 'denied'}: ${printable(result.question)}\n`,
          };
        } catch (err) {
          if (!(err instanceof RequestError) || err.code !== ErrorCode.Unconfirmed || shown !== undefined) throw err;
          const block = await shownArea(client, session);
          if (!block) throw err;
          return {
            data: { unconfirmed: { area: block.area, shown: block.digest } },
            text: block.area.map((row) => `  ${row}`).join('\n'),
            note:
              `not sent: its agent's own hook has not said it asks; this is the prompt on its screen. ` +
              `To ${name} it: holdfast ${name} ${session} --shown ${block.digest}`,
            exitCode: ExitCode.Failed,
          };
        }
      });
    },
  };
}

export const approveCommand = answerCommand('approve', "approve an agent's permission prompt (once)", 'agent-1');
export const denyCommand = answerCommand('deny', "deny an agent's permission prompt", 'agent-1');
