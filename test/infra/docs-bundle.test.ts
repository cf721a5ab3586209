import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/routes/route-table.ts';
import { PROJECT_ROOT } from '../../infra/constructs/service-function.ts';

const run = promisify(execFile);

/**
 * The docs functions as Lambda runs them (docs/openapi.md "In AWS"): bundled by esbuild with the
 * afterBundling step that writes the OpenAPI document and copies Swagger UI beside the code, then
 * the bundle itself invoked (in a child Node process, with Lambda's LAMBDA_TASK_ROOT) with API
 * Gateway events.
 */
describe('the docs functions bundle their files', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'docs-bundle-'));
  let bundles: string[];
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  beforeAll(async () => {
    await run(process.execPath, ['--import', 'tsx', 'test/infra/bundle-docs-functions.ts', outdir], {
      cwd: PROJECT_ROOT,
      timeout: 170_000,
    });
    bundles = readdirSync(outdir)
      .filter((d) => d.startsWith('asset.') && statSync(join(outdir, d)).isDirectory())
      .map((d) => join(outdir, d));
  }, 180_000);

  const bundleWith = (file: string) => {
    const dir = bundles.find((d) => existsSync(join(d, file)));
    if (!dir) throw new Error(`no bundle holds ${file}`);
    return dir;
  };

  /** Invokes the bundle in `dir` with a GET of `resource` (`path` its parameters) in a fresh Node process. */
  const invoke = async (dir: string, resource: string, pathParameters: Record<string, string> | null = null) => {
    const event = {
      httpMethod: 'GET',
      resource,
      path: resource,
      headers: {},
      pathParameters,
      requestContext: { requestId: 'r1' },
      body: null,
    };
    const script = `const { handler } = await import(${JSON.stringify(join(dir, 'index.mjs'))});
const res = await handler(${JSON.stringify(event)}, { awsRequestId: 'r1', getRemainingTimeInMillis: () => 3000 });
process.stdout.write(JSON.stringify(res));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        LAMBDA_TASK_ROOT: dir,
        TABLE_NAME: 'unused',
        ISSUER: 'https://api.example.com/prod',
        KMS_KEY_ID: 'unused',
        POWERTOOLS_LOG_LEVEL: 'ERROR',
      },
      timeout: 30_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as { statusCode: number; headers: Record<string, string>; body: string };
  };

  it('/openapi.json: the document of the whole route table, with the stage as its server', async () => {
    const dir = bundleWith('openapi.json');
    expect(readdirSync(dir).sort()).toEqual(expect.arrayContaining(['index.mjs', 'openapi.json']));
    expect(readdirSync(dir)).not.toContain('swagger-ui-bundle.js');
    const res = await invoke(dir, '/openapi.json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['Content-Type']).toMatch(/^application\/json/);
    const doc = JSON.parse(res.body) as { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://api.example.com/prod' }]);
    for (const r of ROUTES) {
      expect(doc.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path}`).toMatchObject({ operationId: expect.any(String) });
    }
  }, 60_000);

  it('/docs and its files: served from the bundle, nothing else', async () => {
    const dir = bundleWith('swagger-ui-bundle.js');
    expect(readdirSync(dir)).toContain('swagger-ui.css');
    const page = await invoke(dir, '/docs');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<div id="swagger-ui"></div>');
    const script = await invoke(dir, '/docs/{file}', { file: 'swagger-ui-bundle.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect(script.body.length).toBeGreaterThan(500_000);
    const other = await invoke(dir, '/docs/{file}', { file: 'index.mjs' });
    expect(other.statusCode).toBe(404);
  }, 60_000);
});
