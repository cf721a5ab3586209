import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type ApiDocs, REFERENCE_FILES } from '#shared/openapi/api-docs.ts';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import type { Route } from '#shared/routes/route.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { SERVICE_VERSION } from '#shared/version.ts';
import { loadRouteSpecs } from './route-specs.ts';

/** The folder of the `swagger-ui-dist` package: the reference page's files. */
export const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The OpenAPI document of a route table, from its handlers' specs (docs/openapi.md). */
export async function openApiDocument(routes: readonly Route[] = ROUTES): Promise<Record<string, unknown>> {
  return buildOpenApiDocument({ routes, specOf: await loadRouteSpecs(routes), version: SERVICE_VERSION });
}

/**
 * The local server's API docs: the document made on first request from the route table (about
 * two seconds to import every handler, once per process), the page's files read from node_modules.
 */
export function liveApiDocs(): ApiDocs {
  let document: Promise<Record<string, unknown>> | undefined;
  return {
    document: () => {
      document ??= openApiDocument();
      return document;
    },
    file: async (name) => (Object.hasOwn(REFERENCE_FILES, name) ? readFile(join(SWAGGER_UI_DIR, name)) : undefined),
  };
}
