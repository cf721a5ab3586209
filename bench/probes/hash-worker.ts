/**
 * `node --import tsx bench/probes/hash-worker.ts`: hashes each line of stdin with the service's
 * `hashPassword` (shared/crypto/password-hash.ts, argon2id) and answers one line per hash, the
 * milliseconds it took. Section 9 runs it on the server core, so the hash it compares the password
 * grant with runs where the grant's own hash runs. Answers `missing` and exits when this tree has
 * no password hashing.
 */
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const modulePath = join(resolve(import.meta.dirname, '../..'), 'shared/crypto/password-hash.ts');
let hashPassword: ((password: string) => Promise<string>) | undefined;
try {
  ({ hashPassword } = (await import(pathToFileURL(modulePath).href)) as { hashPassword?: (password: string) => Promise<string> });
} catch {
  hashPassword = undefined;
}
if (!hashPassword) {
  process.stdout.write('missing\n');
  process.exit(0);
}
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const t = performance.now();
  await hashPassword(line);
  process.stdout.write(`${performance.now() - t}\n`);
}
