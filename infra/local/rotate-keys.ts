import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '#shared/config.ts';
import { rotateKeys } from '#shared/keys/rotate-keys.ts';
import { createDocumentClient } from '#shared/store/core/dynamodb-client.ts';

/**
 * `npm run rotate-keys [-- --force]`: rotates the signing keys of the running local server (the
 * same code as the scheduled function in AWS). It reads `.data/runtime.json`, which `npm start`
 * writes while it runs. `--force` promotes the next key even if it was published only moments ago
 * (fine locally; in AWS a next key must be in the JWKS for 10 minutes first).
 */
interface LocalRuntimeFile {
  dynamodbEndpoint: string;
  tableName: string;
  masterKeyFile: string;
  url?: string;
}

const out = process.stdout;
const fail = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const file = join(dataDir, 'runtime.json');
const rt = readRuntimeFile(file);

const config = loadConfig({
  TABLE_NAME: rt.tableName,
  DYNAMODB_ENDPOINT: rt.dynamodbEndpoint,
  AWS_REGION: 'local',
  ISSUER: rt.url ?? 'http://localhost:3000',
  KEY_MODE: 'local',
  LOCAL_MASTER_KEY_FILE: rt.masterKeyFile,
  KEY_RETIRE_AFTER_SECONDS: process.env.KEY_RETIRE_AFTER_SECONDS,
});
const db = createDocumentClient({ region: config.region, endpoint: config.dynamodbEndpoint, budget: config.budgets.dynamodb });

try {
  const results = await rotateKeys({ config, db, now: () => new Date(), force: process.argv.includes('--force') });
  for (const r of results) {
    out.write(`${r.alg}: ${r.action}${r.reason ? ` (${r.reason})` : ''}\n`);
    if (r.current) out.write(`  current  ${r.current}\n`);
    if (r.next) out.write(`  next     ${r.next}\n`);
    for (const kid of r.previous) out.write(`  previous ${kid}\n`);
    for (const kid of r.deleted) out.write(`  deleted  ${kid}\n`);
  }
  if (results.some((r) => r.action === 'skipped' && r.reason?.startsWith('the next key'))) {
    out.write('Add `-- --force` to promote the next key now.\n');
  }
} catch (err) {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  // The repository turns an unreachable DynamoDB into a 503 AppError (docs/design.md §3.4).
  if (code === 'ECONNREFUSED' || (err as { status?: number }).status === 503) {
    fail(`Cannot reach DynamoDB at ${config.dynamodbEndpoint}: is \`npm start\` still running? (${file} may be stale)`);
  }
  fail(`Key rotation failed: ${e.message ?? String(err)}`);
} finally {
  db.destroy();
}

function readRuntimeFile(path: string): LocalRuntimeFile {
  let parsed: Partial<LocalRuntimeFile>;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LocalRuntimeFile>;
  } catch {
    return fail(
      `The local server is not running (${path} not found).\nStart it with \`npm start\` in another terminal, then run \`npm run rotate-keys\` again.`,
    );
  }
  if (!parsed.dynamodbEndpoint || !parsed.tableName || !parsed.masterKeyFile) return fail(`${path} is incomplete; restart \`npm start\`.`);
  return parsed as LocalRuntimeFile;
}
