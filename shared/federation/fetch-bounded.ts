import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { ProviderError } from './federation-errors.ts';
import { checkLiteralHost, guardedLookup } from './provider-address.ts';
import { checkProviderUrl, type UrlPolicy } from './provider-url.ts';

/**
 * The HTTP adapter of docs/federation.md "Reading a provider": one GET of a JSON document, bounded
 * in time and size, with every failure a `ProviderError` naming its reason. `requestJson` is that
 * request, shared with the token endpoint's POST of federated login (post-bounded.ts).
 *
 * Built on node:http(s) rather than `fetch`: Node's fetch has no connect timeout of its own (its
 * dispatcher would need the `undici` package), and node:http never follows a redirect, which is
 * what we want: a provider's discovery document and JWKS are answered at their URL, and a 3xx is
 * refused as `redirect` (as jose's own remote JWKS does with `redirect: 'manual'`), so a redirect
 * can neither leave the origin nor downgrade to http.
 */
/**
 * Default bounds: the OAuth functions run 6 s (shared/routes/function-groups.ts), and a cold
 * container may read a discovery document and then a JWKS, one after the other: 2 × 2 s leaves
 * time to answer. A loopback or same-region provider connects in milliseconds; 1 s is generous.
 */
export const CONNECT_TIMEOUT_MS = 1000;
export const TOTAL_TIMEOUT_MS = 2000;

export interface FetchLimits {
  /** Bytes of body read at most; past it the connection is dropped (`too_large`). */
  maxBytes: number;
}

/** The port the pure modules read through: a GET of one JSON document. */
export type FetchJson = (url: URL, limits: FetchLimits) => Promise<unknown>;

export interface BoundedFetchOptions extends UrlPolicy {
  /** TCP (and TLS) connection set-up, from the socket's creation. */
  connectTimeoutMs: number;
  /** The whole exchange: connect, request, headers and body. */
  totalTimeoutMs: number;
}

/** `application/json` and the `+json` types (`application/jwk-set+json`, RFC 7517 §8.5.1). */
const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

export function boundedJsonGetter(options: BoundedFetchOptions): FetchJson {
  return (url, limits) => getJson(url, limits, options);
}

export async function getJson(url: URL, limits: FetchLimits, options: BoundedFetchOptions): Promise<unknown> {
  const answer = await requestJson(
    url,
    { method: 'GET', headers: { accept: 'application/json, application/jwk-set+json' }, maxBytes: limits.maxBytes, okOnly: true },
    options,
  );
  return answer.body;
}

/** One request of `requestJson`: what is sent, and which answers count. */
export interface BoundedRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Bytes of answer read at most; past it the connection is dropped (`too_large`). */
  maxBytes: number;
  /** Only a 200 is an answer (a document); otherwise any non-redirect status is, with its JSON body (a token endpoint's errors). */
  okOnly: boolean;
}

/** The JSON answer to one request and its status, under every rule above; the GET and the POST adapter share it. */
export async function requestJson(
  url: URL,
  request: BoundedRequest,
  options: BoundedFetchOptions,
): Promise<{ status: number; body: unknown }> {
  // The URL policy holds whoever built the URL (a discovery document's jwks_uri included).
  checkProviderUrl(url.href, options);
  checkLiteralHost(url.hostname, options.allowLoopbackHttp);
  const where = `${url.origin}${url.pathname}`;
  const { maxBytes } = request;
  return await new Promise((resolve, reject) => {
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (error: ProviderError | undefined, value?: { status: number; body: unknown }) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(value!);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: request.method,
      headers: { ...request.headers, 'user-agent': 'identity-service-federation' },
      // A socket per read: a kept-alive socket to a provider would outlive its container's use of it.
      agent: false,
      // Every address the name resolves to must be public (provider-address.ts); loopback in local mode.
      lookup: guardedLookup(options.allowLoopbackHttp),
    });
    timers.push(
      setTimeout(
        () => finish(new ProviderError('timeout', `${where} did not answer within ${options.totalTimeoutMs} ms.`)),
        options.totalTimeoutMs,
      ),
    );
    req.on('socket', (socket: Socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(
        () => finish(new ProviderError('connect_timeout', `${where}: no connection within ${options.connectTimeoutMs} ms.`)),
        options.connectTimeoutMs,
      );
      timers.push(timer);
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(timer));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof ProviderError) return finish(err);
      finish(new ProviderError('unreachable', `${where} is unreachable (${err.code ?? err.message}).`, { cause: err }));
    });
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400)
        return finish(new ProviderError('redirect', `${where} answered a redirect (${status}); none is followed.`));
      if (request.okOnly && status !== 200) return finish(new ProviderError('bad_status', `${where} answered ${status}, not 200.`));
      const type = String(res.headers['content-type'] ?? '');
      if (!JSON_TYPE.test(type)) return finish(new ProviderError('not_json', `${where} answered ${type || 'no content type'}, not JSON.`));
      const tooLarge = () => new ProviderError('too_large', `${where} answered more than ${maxBytes} bytes.`);
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) return finish(tooLarge());
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return finish(tooLarge());
        chunks.push(chunk);
      });
      res.on('error', (err) =>
        finish(new ProviderError('unreachable', `${where}: the answer broke off (${err.message}).`, { cause: err })),
      );
      res.on('aborted', () => finish(new ProviderError('unreachable', `${where}: the answer broke off.`)));
      res.on('end', () => {
        try {
          finish(undefined, { status, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch (cause) {
          finish(new ProviderError('bad_json', `${where} answered a body that is not JSON.`, { cause }));
        }
      });
    });
    req.end(request.body);
  });
}
