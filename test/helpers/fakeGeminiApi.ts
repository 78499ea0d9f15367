// A local stand-in for the Gemini API (generativelanguage's v1beta), enough for the real Gemini CLI
// (GOOGLE_GEMINI_BASE_URL pointing here) to reach a tool's confirmation prompt: a turn that declares
// functions answers with one call of the function set last (`call`: one CLI is asked for several in turn);
// the turn after its response, and any request without functions (routing, summaries), answers with a short
// text. generateContent and its streaming form (SSE), countTokens; anything else is a 404.
import { json, startFakeApiServer } from './fakeApiServer';

export interface FakeGeminiApi {
  /** For GOOGLE_GEMINI_BASE_URL. */
  readonly url: string;
  /** The requests' paths, in order (for a failure's message). */
  readonly paths: string[];
  /** How many function calls it answered with, and how many of their responses came back. */
  readonly toolCalls: { asked: number; answered: number };
  /** What the next turn that declares functions is answered with. */
  call: GeminiFunctionCall;
  close(): Promise<void>;
}

/** A call of one of Gemini CLI's tools, e.g. `{ name: 'run_shell_command', args: { command: 'touch x' } }`. */
export interface GeminiFunctionCall {
  name: string;
  args: object;
}

interface GenerateRequest {
  contents?: { role?: string; parts?: object[] }[];
  tools?: { functionDeclarations?: unknown[] }[];
}

type Part = { text: string } | { functionCall: GeminiFunctionCall };

/** models/NAME:METHOD, the methods answered. */
const MODEL_PATH = /^\/v1beta\/models\/[\w.-]+:(generateContent|streamGenerateContent|countTokens)$/;

/** Starts the stand-in on 127.0.0.1; every turn that declares functions gets `call` until another is set. */
export async function startFakeGeminiApi(call: GeminiFunctionCall): Promise<FakeGeminiApi> {
  const toolCalls = { asked: 0, answered: 0 };
  let api: FakeGeminiApi | undefined;
  const server = await startFakeApiServer((req, path, body, res) => {
    const method = MODEL_PATH.exec(path)?.[1];
    if (req.method !== 'POST' || !method) return json(res, 404, { error: { code: 404, message: 'not here' } });
    if (method === 'countTokens') return json(res, 200, { totalTokens: 12 });
    let request: GenerateRequest;
    try {
      request = JSON.parse(body) as GenerateRequest;
    } catch {
      return json(res, 400, { error: { code: 400, message: 'bad JSON' } });
    }
    let part: Part = { text: 'Done.' };
    const lastParts = request.contents?.at(-1)?.parts ?? [];
    const declared = request.tools?.some((t) => (t.functionDeclarations?.length ?? 0) > 0) ?? false;
    if (lastParts.some((p) => 'functionResponse' in p)) toolCalls.answered++;
    else if (declared) {
      toolCalls.asked++;
      part = { functionCall: api?.call ?? call };
    }
    const answer = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 20, totalTokenCount: 32 },
      modelVersion: 'gemini-fake',
    };
    if (method === 'generateContent') return json(res, 200, answer);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
  });
  api = {
    url: `http://127.0.0.1:${server.port}`,
    paths: server.paths,
    toolCalls,
    call,
    close: server.close.bind(server),
  };
  return api;
}
