import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface OutboxMessage {
  file: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The messages of a local outbox (shared/email/outbox-email-sender.ts), oldest first. */
export async function readOutbox(dir: string): Promise<OutboxMessage[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return [];
    throw err;
  }
  return Promise.all(names.map(async (file) => ({ file, ...JSON.parse(await readFile(join(dir, file), 'utf8')) })));
}
