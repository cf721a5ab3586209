/**
 * Run by the bundling of the docs functions (infra/constructs/api-docs-bundle.ts, an esbuild
 * `afterBundling` hook): `node --import tsx infra/openapi/write-api-docs.ts <bundle dir> document|page`
 * writes `openapi.json` (document) or the reference page's files (page) beside the bundled code,
 * where the function reads them (shared/openapi/api-docs.ts `bundledApiDocs`).
 */
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OPENAPI_FILE, REFERENCE_FILES } from '#shared/openapi/api-docs.ts';
import { openApiDocument, SWAGGER_UI_DIR } from './live-api-docs.ts';

export async function writeApiDocs(dir: string, part: 'document' | 'page'): Promise<string[]> {
  if (part === 'document') {
    await writeFile(join(dir, OPENAPI_FILE), JSON.stringify(await openApiDocument()));
    return [OPENAPI_FILE];
  }
  const names = Object.keys(REFERENCE_FILES);
  await Promise.all(names.map((name) => copyFile(join(SWAGGER_UI_DIR, name), join(dir, name))));
  return names;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, part] = process.argv.slice(2);
  if (!dir || (part !== 'document' && part !== 'page')) {
    console.error('usage: write-api-docs.ts <bundle dir> document|page');
    process.exit(2);
  }
  await writeApiDocs(dir, part);
}
