// A local stand-in for OpenAI's Responses API, enough for the real Codex CLI (a custom model provider
// whose base_url points here) to reach a tool's approval prompt: a turn that offers tools answers with
// one call of the given function; the turn after its output, and any request without tools (titles),
// answers with a short text. Streaming (SSE) only, as Codex asks; anything else is a 404.
import type * as http from 'node:http';
import { startFakeApiServer } from './fakeApiServer';

export interface FakeResponsesApi {
  /** For the provider's base_url (ends in /v1). */
  readonly url: string;
  /** The requests' paths, in order (for a failure's message). */
  readonly paths: string[];
  /** How many function calls it answered with, and how many of their outputs came back. */
  readonly toolCalls: { asked: number; answered: number };
  close(): Promise<void>;
}

/** A call of one of Codex's functions, e.g. `{ name: 'exec_command', arguments: { cmd: 'touch x' } }`. */
export interface FunctionCall {
  name: string;
  arguments: object;
}

interface ResponsesRequest {
  input?: { type?: string }[];
  tools?: unknown[];
}

type OutputItem =
  | { type: 'message'; role: 'assistant'; id: string; content: { type: 'output_text'; text: string }[] }
  | { type: 'function_call'; id: string; call_id: string; name: string; arguments: string };

function sse(res: http.ServerResponse, id: string, item: OutputItem): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type: string, data: object) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('response.created', { response: { id } });
  send('response.output_item.done', { output_index: 0, item });
  const usage = {
    input_tokens: 12,
    input_tokens_details: null,
    output_tokens: 20,
    output_tokens_details: null,
    total_tokens: 32,
  };
  send('response.completed', { response: { id, usage } });
  res.end();
}

function notFound(res: http.ServerResponse, status = 404, message = 'not here'): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { type: 'invalid_request_error', message } }));
}

/** Starts the stand-in on 127.0.0.1; every turn that offers tools gets `call`. */
export async function startFakeResponsesApi(call: FunctionCall): Promise<FakeResponsesApi> {
  const toolCalls = { asked: 0, answered: 0 };
  let responses = 0;
  const server = await startFakeApiServer((req, path, body, res) => {
    if (req.method !== 'POST' || path !== '/v1/responses') return notFound(res);
    let request: ResponsesRequest;
    try {
      request = JSON.parse(body) as ResponsesRequest;
    } catch {
      return notFound(res, 400, 'bad JSON');
    }
    const id = `resp_fake${++responses}`;
    let item: OutputItem = {
      type: 'message',
      role: 'assistant',
      id: `msg_fake${responses}`,
      content: [{ type: 'output_text', text: 'Done.' }],
    };
    if (request.input?.at(-1)?.type === 'function_call_output') toolCalls.answered++;
    else if ((request.tools?.length ?? 0) > 0) {
      toolCalls.asked++;
      const callId = `call_fake${toolCalls.asked}`;
      const args = JSON.stringify(call.arguments);
      item = { type: 'function_call', id: `fc_fake${responses}`, call_id: callId, name: call.name, arguments: args };
    }
    sse(res, id, item);
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    paths: server.paths,
    toolCalls,
    close: server.close.bind(server),
  };
}
