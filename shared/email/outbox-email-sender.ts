import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EmailSender } from './email-sender.ts';

/**
 * The local email sender (docs/contract.md §7.2): each message becomes one JSON file
 * `{to, subject, text, html}` in `dir` (`<DATA_DIR>/outbox/`), so a developer or a test reads the
 * mail a real user would get. Names sort by time: `<UTC time to the ms>-<random>.json`, with a
 * per-process counter so two messages of one millisecond keep their order. Written to a dot file
 * first and renamed, so a reader never sees half a message.
 */
export function outboxEmailSender(dir: string, now: () => Date = () => new Date()): EmailSender {
  let lastStamp = '';
  let seq = 0;
  return {
    async send({ to, subject, text, html }) {
      await mkdir(dir, { recursive: true });
      const stamp = now().toISOString().replace(/[-:]/g, '').replace('.', '');
      seq = stamp === lastStamp ? seq + 1 : 0;
      lastStamp = stamp;
      const name = `${stamp}-${String(seq).padStart(4, '0')}-${randomBytes(6).toString('hex')}.json`;
      const tmp = join(dir, `.${name}.tmp`);
      await writeFile(tmp, `${JSON.stringify({ to, subject, text, html }, null, 2)}\n`, { mode: 0o600 });
      await rename(tmp, join(dir, name));
    },
  };
}
