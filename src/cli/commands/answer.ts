// Approving or denying an agent's permission prompt from a shell: the daemon checks the prompt on the
// session's screen against what its agent is known to draw, and only then sends that prompt's keys.
import { type PromptChoice, VERIFIED_PROMPTS } from '../../agents/permissionPrompt';
import { printable } from '../../text/printable';
import { expectPositionals } from '../args';
import { Command } from '../command';
import { withClient } from '../connect';

function answerCommand(choice: PromptChoice, summary: string, example: string): Command {
  const name = choice === 'approve' ? 'approve' : 'deny';
  return {
    name,
    summary,
    usage: `${name} ID`,
    options: {},
    details: [
      "Only at a permission prompt the daemon recognises on the session's screen, as drawn by " +
        `${Object.values(VERIFIED_PROMPTS).join(', ')}: approve picks its "yes, this once" choice, deny its ` +
        '"no". Anything else is refused with no-prompt and nothing is sent.',
      '--json prints {"question": Q, "sent": KEYS}.',
      `Example: holdfast ${name} ${example}`,
    ],
    async run(ctx) {
      expectPositionals(ctx.args, 1, 1, 'session ID or name');
      const result = await withClient(ctx, (client) =>
        client.request('answer', { session: ctx.args.positionals[0], choice }),
      );
      return { data: result, text: `${name === 'approve' ? 'approved' : 'denied'}: ${printable(result.question)}\n` };
    },
  };
}

export const approveCommand = answerCommand('approve', "approve an agent's permission prompt (once)", 'agent-1');
export const denyCommand = answerCommand('deny', "deny an agent's permission prompt", 'agent-1');
