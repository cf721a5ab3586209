import type { HttpResponse } from '../http/response.ts';
import { REFERENCE_FILES } from './api-docs.ts';

/**
 * `GET /docs`: Swagger UI (the `swagger-ui-dist` package, served by this function from its
 * bundle; no CDN) over `/openapi.json`. Paths are relative (`docs/...`, `openapi.json`), so the
 * page works under an API Gateway stage prefix (`/<stage>/docs`) as on a custom domain.
 */
// No favicon request (a 404 otherwise): an empty `data:` icon, which `img-src data:` allows.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Identity service API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/reference-init.js"></script>
</body>
</html>
`;

/** Starts Swagger UI on the document; a file of its own so that `script-src 'self'` needs no inline script. */
export const REFERENCE_INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: new URL('openapi.json', document.baseURI).href,
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: false,
});
`;

/**
 * What the page needs and no more: its scripts and stylesheet from this origin, Swagger UI's
 * inline SVG icons (`data:` images), `fetch` of the document (and "Try it out") to this origin;
 * no inline script, no eval, no frames, no forms, no framing by others.
 */
export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const CACHE = { 'Cache-Control': 'public, max-age=3600' };

export function referencePage(): HttpResponse {
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': REFERENCE_CSP, ...CACHE },
    body: PAGE,
  };
}

/** One of the page's files, or `undefined` when the name is not one of them. */
export function referenceFile(name: string, read: (name: string) => Promise<Buffer | undefined>): Promise<HttpResponse | undefined> {
  if (name === 'reference-init.js') {
    return Promise.resolve({
      statusCode: 200,
      headers: { 'Content-Type': 'text/javascript; charset=utf-8', ...CACHE },
      body: REFERENCE_INIT_SCRIPT,
    });
  }
  const type = Object.hasOwn(REFERENCE_FILES, name) ? REFERENCE_FILES[name] : undefined;
  if (!type) return Promise.resolve(undefined);
  return read(name).then((body) =>
    body ? { statusCode: 200, headers: { 'Content-Type': type, ...CACHE }, body: body.toString('utf8') } : undefined,
  );
}
