/**
 * A JSON-lines trace of what the extension did (activation, each cell run with its status and output MIME
 * types, runs shown in the sidebar), written only when CCKIT_EXTENSION_TRACE names a file. The real-VS-Code
 * test reads it to know when the extension is active and when cells have finished; it also helps debugging.
 */
import * as fs from 'fs';

export function trace(event: string, data: Record<string, unknown> = {}): void {
  const file = process.env.CCKIT_EXTENSION_TRACE;
  if (!file) return;
  try {
    fs.appendFileSync(file, JSON.stringify({ time: new Date().toISOString(), event, ...data }) + '\n');
  } catch {
    // tracing never breaks the extension
  }
}
