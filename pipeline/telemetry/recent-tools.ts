import { open } from 'node:fs/promises';
import { toolFamily } from './tool-family.js';

/** How far back the session-start hook looks for the tools in use: the log's last bytes and events. */
export const RECENT_BYTES = 256 * 1024;
export const RECENT_EVENTS = 500;

/**
 * The tool families (and raw tool names) of the last events of a telemetry log: skill rules are shown
 * at session start only for tools the agent has been using. Reads only the file's tail; a missing or
 * unreadable log is no tools. Lines are parsed loosely: a broken one is skipped, as ingest counts it.
 */
export async function readRecentTools(path: string, maxBytes = RECENT_BYTES): Promise<Set<string>> {
  const tail = await readTail(path, maxBytes);
  const tools = new Set<string>();
  // The first line of a cut tail is partial; the last may be torn (no newline yet): both are skipped.
  const lines = tail.split('\n').slice(1, -1).slice(-RECENT_EVENTS);
  for (const line of lines) {
    const event = parseLoose(line);
    if (event === null) continue;
    tools.add(event.tool_name);
    tools.add(toolFamily(event.tool_name, event.input_summary, event.error_message));
  }
  return tools;
}

async function readTail(path: string, maxBytes: number): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    // From the file's start, the first line is whole: a newline in front keeps it.
    return `${start === 0 ? '\n' : ''}${buffer.toString('utf8')}`;
  } finally {
    await handle.close();
  }
}

function parseLoose(line: string): { tool_name: string; input_summary?: string; error_message?: string } | null {
  if (line.length === 0 || line.length > 100_000) return null;
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (typeof value !== 'object' || value === null || typeof value.tool_name !== 'string' || value.tool_name === '' || typeof value.exposure === 'string') return null;
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return { tool_name: value.tool_name, input_summary: text(value.input_summary), error_message: text(value.error_message) };
  } catch {
    return null;
  }
}
