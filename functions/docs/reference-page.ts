import * as v from 'valibot';
import { notFound } from '#shared/errors.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { file } from '#shared/http/response-spec.ts';
import { apiDocsOf } from '#shared/openapi/api-docs.ts';
import { referenceFile, referencePage } from '#shared/openapi/reference-page.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';

/** `/docs` has no parameter; `/docs/{file}` names one of the page's files. */
const ReferencePath = v.object({ file: v.optional(v.pipe(v.string(), v.maxLength(64))) });

/** GET /docs and GET /docs/{file}: the API reference page (Swagger UI) and its files (docs/openapi.md). */
export const handler = httpHandler(
  { page: HOSTED_PAGE, path: ReferencePath, responses: { 200: file('text/html', 'text/javascript', 'text/css') } },
  async ({ path, runtime }) => {
    if (path.file === undefined) return referencePage();
    const answer = await referenceFile(path.file, (name) => apiDocsOf(runtime).file(name));
    if (!answer) throw notFound();
    return answer;
  },
);
