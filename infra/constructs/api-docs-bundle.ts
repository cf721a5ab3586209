import { PROJECT_ROOT } from './service-function.ts';

/**
 * Files a handler reads from its bundle: the docs functions get the OpenAPI document generated from
 * the route table, and the reference page's files (infra/openapi/write-api-docs.ts, docs/openapi.md).
 */
export const BUNDLED_FILES: Readonly<Record<string, (outputDir: string) => string[]>> = {
  'functions/docs/openapi-document': (out) => [writeApiDocsCommand(out, 'document')],
  'functions/docs/reference-page': (out) => [writeApiDocsCommand(out, 'page')],
};

function writeApiDocsCommand(outputDir: string, part: 'document' | 'page'): string {
  return `cd "${PROJECT_ROOT}" && node --import tsx infra/openapi/write-api-docs.ts "${outputDir}" ${part}`;
}
