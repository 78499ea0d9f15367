// A local stand-in for the Anthropic Messages API, enough for the real Claude Code to reach a tool's
// permission prompt: a turn that offers tools answers with one call of the given tool; the turn
// after its result, and any request without tools (titles, summaries), answers with a short text.
// Streaming (SSE) and plain JSON both; count_tokens answers a count; anything else is a 404.
import type * as http from 'node:http';
import { json, startFakeApiServer } from './fakeApiServer';

export interface FakeAnthropicApi {
  /** For ANTHROPIC_BASE_URL. */
  readonly url: string;
  /** The requests' paths, in order (for a failure's message). */
  readonly paths: string[];
  /** How many tool calls it answered with, and how many of their results came back. */
  readonly toolCalls: { asked: number; answered: number };
  close(): Promise<void>;
}

interface MessageRequest {
  model?: string;
  stream?: boolean;
  tools?: unknown[];
  messages?: { role: string; content: unknown }[];
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: object };

/**
 * Whether the conversation's last message carries a tool's result and nothing the user wrote (the turn after the
 * call; Claude Code puts a next request in the same message as the last result).
 */
function afterToolResult(request: MessageRequest): boolean {
  const last = request.messages?.at(-1);
  const types = Array.isArray(last?.content) ? last.content.map((b) => (b as { type?: string }).type) : [];
  return types.includes('tool_result') && !types.includes('text');
}

function sse(res: http.ServerResponse, model: string, block: Block, stopReason: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type: string, data: object) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const usage = { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  send('message_start', {
    message: { id: 'msg_fake', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage },
  });
  if (block.type === 'text') {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: block.text } });
  } else {
    send('content_block_start', { index: 0, content_block: { ...block, input: {} } });
    const json = JSON.stringify(block.input);
    send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: json } });
  }
  send('content_block_stop', { index: 0 });
  send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } });
  send('message_stop', {});
  res.end();
}

/** A call of one of Claude Code's tools, e.g. `{ name: 'Bash', input: { command: 'touch x' } }`. */
export interface ToolCall {
  name: string;
  input: object;
}

/**
 * Starts the stand-in on 127.0.0.1; every turn that offers tools gets `tool`, or with a list, the n-th such
 * turn its n-th call (the last one from then on).
 */
export async function startFakeAnthropicApi(tool: ToolCall | readonly ToolCall[]): Promise<FakeAnthropicApi> {
  const calls = Array.isArray(tool) ? tool : [tool];
  const toolCalls = { asked: 0, answered: 0 };
  const server = await startFakeApiServer((req, path, body, res) => {
    if (req.method !== 'POST' || !path.startsWith('/v1/messages'))
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'not here' } });
    if (path.endsWith('/count_tokens')) return json(res, 200, { input_tokens: 12 });
    let request: MessageRequest;
    try {
      request = JSON.parse(body) as MessageRequest;
    } catch {
      return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'bad JSON' } });
    }
    const model = request.model ?? 'claude-fake';
    let block: Block = { type: 'text', text: 'Done.' };
    let stop = 'end_turn';
    if (afterToolResult(request)) toolCalls.answered++;
    else if ((request.tools?.length ?? 0) > 0) {
      toolCalls.asked++;
      const call = calls[Math.min(toolCalls.asked, calls.length) - 1];
      block = { type: 'tool_use', id: `toolu_fake${toolCalls.asked}`, ...call };
      stop = 'tool_use';
    }
    if (request.stream) return sse(res, model, block, stop);
    const usage = { input_tokens: 12, output_tokens: 20 };
    json(res, 200, {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content: [block],
      stop_reason: stop,
      usage,
    });
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    paths: server.paths,
    toolCalls,
    close: server.close.bind(server),
  };
}
