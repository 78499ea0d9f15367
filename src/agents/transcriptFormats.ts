// How each agent's transcript file turns into readable lines (`user: ...`, `assistant: ...`, one
// short line per tool call). Where the files are, and why these shapes: transcripts.ts.
// Every line is made printable here: the text is the agent's and the program's, so untrusted.
import { printable } from '../text/printable';

export enum TranscriptText {
  /** A longer line is cut: a pasted file or a long answer stays searchable by its start. */
  MaxLineChars = 2000,
  /** A tool call's arguments or a tool result, characters: one short line each. */
  ToolChars = 160,
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) + '…' : text;
}

/** One line of the form `label: first line`, then the text's other lines indented, each printable. */
function said(label: string, text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  if (lines.length === 0) return [];
  return lines.map((line, i) =>
    clip(printable(i === 0 ? `${label}: ${line}` : `  ${line}`), TranscriptText.MaxLineChars),
  );
}

/** A value as one short line: a string as it is, anything else as compact JSON, newlines as spaces. */
function short(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return printable(clip(text.replace(/\s+/g, ' ').trim(), TranscriptText.ToolChars));
}

function tool(name: unknown, input: unknown): string {
  return `tool: ${short(typeof name === 'string' ? name : '?')} ${short(input ?? '')}`.trimEnd();
}

/** The JSON values of a JSONL text; a line that does not parse (cut by the tail read, or damaged) is skipped. */
function records(text: string): Json[] {
  const out: Json[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isObject(value)) out.push(value);
    } catch {
      // A partial or damaged line: the others still read.
    }
  }
  return out;
}

/** The text of a tool result's content: a string, or blocks of {type:'text', text}. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join(' ');
}

/** Claude Code: {type:'user'|'assistant', message:{content: string | blocks}}; other types are bookkeeping. */
export function claudeLines(text: string): string[] {
  const out: string[] = [];
  for (const record of records(text)) {
    const role = record.type;
    if ((role !== 'user' && role !== 'assistant') || record.isMeta === true || !isObject(record.message)) continue;
    const content = record.message.content;
    if (typeof content === 'string') {
      out.push(...said(role, content));
      continue;
    }
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') out.push(...said(role, block.text));
      else if (block.type === 'tool_use') out.push(tool(block.name, block.input));
      else if (block.type === 'tool_result') out.push(`tool result: ${short(textOf(block.content))}`.trimEnd());
      else if (block.type === 'image') out.push(`${role}: [image]`);
      // thinking, redacted_thinking: not shown (the agent's hidden reasoning).
    }
  }
  return out;
}

/**
 * Codex: {type, payload}. event_msg user_message / agent_message are what the user typed and read
 * (the response_item messages also carry injected context); response_item function_call,
 * custom_tool_call and local_shell_call are the tool calls.
 */
export function codexLines(text: string): string[] {
  const out: string[] = [];
  for (const { type, payload } of records(text)) {
    if (!isObject(payload)) continue;
    if (type === 'event_msg' && typeof payload.message === 'string') {
      if (payload.type === 'user_message') out.push(...said('user', payload.message));
      else if (payload.type === 'agent_message') out.push(...said('assistant', payload.message));
    } else if (type === 'response_item') {
      if (payload.type === 'function_call') out.push(tool(payload.name, payload.arguments));
      else if (payload.type === 'custom_tool_call') out.push(tool(payload.name, payload.input));
      else if (payload.type === 'local_shell_call' && isObject(payload.action))
        out.push(tool('shell', payload.action.command));
    }
  }
  return out;
}

/** Gemini's content: a string, or parts of {text}. */
function geminiText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (isObject(content) && typeof content.text === 'string') return content.text;
  return Array.isArray(content) ? content.map(geminiText).join('') : '';
}

function legacyMessages(text: string): Json[] {
  try {
    const whole: unknown = JSON.parse(text);
    return isObject(whole) && Array.isArray(whole.messages) ? whole.messages.filter(isObject) : [];
  } catch {
    // Cut by the tail read or damaged: nothing to show.
    return [];
  }
}

/**
 * Gemini CLI: JSONL of a metadata record, message records {id, type:'user'|'gemini'|..., content,
 * toolCalls} (a later record with the same id replaces the earlier), {$set} updates and {$rewindTo: id}
 * (the messages from that id on were taken back). `legacy`: an older .json file, one object with `messages`.
 */
export function geminiLines(text: string, legacy = false): string[] {
  const messages = new Map<string, Json>();
  const list = legacy ? legacyMessages(text) : records(text);
  for (const record of list) {
    if (typeof record.$rewindTo === 'string') {
      let found = false;
      for (const id of [...messages.keys()]) if ((found ||= id === record.$rewindTo)) messages.delete(id);
    } else if (typeof record.id === 'string' && typeof record.type === 'string') messages.set(record.id, record);
  }
  const out: string[] = [];
  for (const message of messages.values()) {
    if (message.type === 'user') out.push(...said('user', geminiText(message.content)));
    else if (message.type === 'gemini') out.push(...said('assistant', geminiText(message.content)));
    if (Array.isArray(message.toolCalls))
      for (const call of message.toolCalls) if (isObject(call)) out.push(tool(call.name, call.args));
  }
  return out;
}
