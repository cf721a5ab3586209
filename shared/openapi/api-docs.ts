import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The API's own documentation (docs/openapi.md): the OpenAPI document and the files of the
 * reference page (Swagger UI, from the `swagger-ui-dist` package). In Lambda they sit in the
 * function's bundle, written there when it is bundled (infra/openapi/write-api-docs.ts); locally
 * they are made on first use from the route table and node_modules (infra/openapi/live-api-docs.ts).
 */
export interface ApiDocs {
  /** The OpenAPI document, without `servers` (the handler adds the stage's base URL). */
  document(): Promise<Record<string, unknown>>;
  /** A file of the reference page by its name in REFERENCE_FILES, or `undefined`. */
  file(name: string): Promise<Buffer | undefined>;
}

export const OPENAPI_FILE = 'openapi.json';

/** The reference page's files from `swagger-ui-dist`, by name, with their media types. */
export const REFERENCE_FILES: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

const bundled = new WeakMap<object, ApiDocs>();

/**
 * The docs of this runtime: the live ones it was made with (locally), else the files the bundling
 * step left in `config.bundleDir`. Here, not in the runtime, so only the two docs functions carry it.
 */
export function apiDocsOf(runtime: { apiDocs?: ApiDocs | undefined; config: { bundleDir?: string | undefined } }): ApiDocs {
  if (runtime.apiDocs) return runtime.apiDocs;
  let docs = bundled.get(runtime);
  if (!docs) bundled.set(runtime, (docs = bundledApiDocs(runtime.config.bundleDir)));
  return docs;
}

/** The files as the bundling step left them in `dir`; each read once per container. */
export function bundledApiDocs(dir: string | undefined): ApiDocs {
  const cache = new Map<string, Promise<Buffer | undefined>>();
  const read = (name: string) => {
    let p = cache.get(name);
    if (!p) {
      p = dir ? readFile(join(dir, name)).catch(() => undefined) : Promise.resolve(undefined);
      cache.set(name, p);
    }
    return p;
  };
  return {
    async document() {
      const raw = await read(OPENAPI_FILE);
      if (!raw) throw new Error(`${OPENAPI_FILE} is missing from the function bundle (${dir ?? 'no LAMBDA_TASK_ROOT'})`);
      return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    },
    file: (name) => (Object.hasOwn(REFERENCE_FILES, name) ? read(name) : Promise.resolve(undefined)),
  };
}
