import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { matchRoute } from '#shared/routes/match-route.ts';
import type { ObservedExchange } from '../../../infra/local/server.ts';

type Json = Record<string, any>;

/** One request and its answer (the local server's `observe`, or a recorded `fetch`). */
export type Exchange = ObservedExchange;

/**
 * Checks real answers against the OpenAPI document (docs/openapi.md "Contract test"): the route's
 * operation, the response of that status (or `default`), its media type and, for JSON, its schema
 * with ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect). Validators are compiled once per schema.
 */
export function contractChecker(document: Json) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictRequired: false });
  addFormats.default(ajv);
  // The document's components, addressable as `openapi#/components/...`.
  ajv.addKeyword({ keyword: 'components', schemaType: 'object' });
  ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi');
  const compiled = new Map<Json, ValidateFunction>();
  const deref = (x: Json): Json => (x.$ref ? deref(pointer(document, x.$ref)) : x);
  const localRefs = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(localRefs)
      : x && typeof x === 'object'
        ? Object.fromEntries(
            Object.entries(x).map(([k, v]) => [
              k,
              k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi${v}` : localRefs(v),
            ]),
          )
        : x;
  const validatorOf = (schema: Json) => {
    let fn = compiled.get(schema);
    if (!fn) {
      fn = ajv.compile(localRefs(schema) as Json);
      compiled.set(schema, fn);
    }
    return fn;
  };

  /** The problems of one exchange (empty: it matches the document). */
  return (x: Exchange): string[] => {
    const where = `${x.method} ${x.path} → ${x.status}`;
    const match = matchRoute(x.method, x.path);
    if (match.kind === 'redirect') return x.status === 308 ? [] : [`${where}: a redirect`];
    if (match.kind !== 'route') return x.status === 404 || x.status === 405 ? [] : [`${where}: no route`];
    // HEAD is checked as the GET row it is served by (docs/deploy.md "Unknown paths and methods").
    const operation = document.paths?.[match.route.path]?.[match.route.method.toLowerCase()] as Json | undefined;
    if (!operation) return [`${where}: ${match.route.path} is not in the document`];
    const declared = operation.responses[String(x.status)] ?? operation.responses.default;
    if (!declared) return [`${where}: status not documented`];
    const response = deref(declared);
    const content = response.content as Json | undefined;
    if (!content) return x.body === '' ? [] : [`${where}: documented without a body, answered ${x.body.length} bytes`];
    const type = (x.contentType ?? '').split(';')[0]!.trim();
    const media = content[type] as Json | undefined;
    if (!media) return [`${where}: ${type || 'no content type'} is not one of ${Object.keys(content).join(', ')}`];
    if (type !== 'application/json' || !media.schema) return [];
    const validate = validatorOf(media.schema);
    if (validate(JSON.parse(x.body))) return [];
    return [`${where}: ${ajv.errorsText(validate.errors)} in ${x.body.slice(0, 300)}`];
  };
}

function pointer(document: Json, ref: string): Json {
  return ref
    .slice(2)
    .split('/')
    .reduce((node: Json, key) => node[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
}

/**
 * Records every exchange with `baseUrl` made through `fetch` while installed (opt-in per test
 * file: `const recorder = recordExchanges(url)`, then `recorder.stop()` and check `recorder.exchanges`).
 * The body is read from a clone, so the test reads its own answer as usual.
 */
export function recordExchanges(baseUrl: string) {
  const exchanges: Exchange[] = [];
  const pending: Promise<void>[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const res = await original(input, init);
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (url.origin === new URL(baseUrl).origin) {
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      pending.push(
        res
          .clone()
          .text()
          .then((body) => {
            exchanges.push({ method, path: url.pathname, status: res.status, contentType: res.headers.get('content-type'), body });
          }),
      );
    }
    return res;
  };
  return {
    exchanges,
    async stop() {
      globalThis.fetch = original;
      await Promise.all(pending);
    },
  };
}
