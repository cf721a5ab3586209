import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { ProviderError } from './federation-errors.ts';
import type { BoundedFetchOptions } from './fetch-bounded.ts';
import { checkLiteralHost, guardedLookup } from './provider-address.ts';
import { checkProviderUrl } from './provider-url.ts';

/**
 * One POST of a form to a provider's token endpoint (RFC 6749 §4.1.3), held to the rules of the
 * GET adapter (fetch-bounded.ts, docs/federation.md "Reading a provider"): the URL policy, public
 * addresses only (checked in the socket's own lookup), a connect and a total timeout, a size
 * bound, no redirect followed. The answer is JSON whatever its status: a token endpoint answers
 * its errors as a JSON body with 400 or 401 (RFC 6749 §5.2), which the caller reads.
 */

/** A token response is an ID token, an access token and a few members: a few KB. */
export const TOKEN_RESPONSE_MAX_BYTES = 64 * 1024;

export interface PostAnswer {
  status: number;
  body: unknown;
}

/** The port the federated login posts through: a form, optional extra headers (client authentication). */
export type PostForm = (url: URL, form: Record<string, string>, headers?: Record<string, string>) => Promise<PostAnswer>;

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

export function boundedFormPoster(options: BoundedFetchOptions, maxBytes = TOKEN_RESPONSE_MAX_BYTES): PostForm {
  return (url, form, headers = {}) => postForm(url, form, headers, maxBytes, options);
}

async function postForm(
  url: URL,
  form: Record<string, string>,
  headers: Record<string, string>,
  maxBytes: number,
  options: BoundedFetchOptions,
): Promise<PostAnswer> {
  checkProviderUrl(url.href, options);
  checkLiteralHost(url.hostname, options.allowLoopbackHttp);
  const where = `${url.origin}${url.pathname}`;
  const body = new URLSearchParams(form).toString();
  return await new Promise<PostAnswer>((resolve, reject) => {
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (error: ProviderError | undefined, value?: PostAnswer) => {
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
      method: 'POST',
      headers: {
        ...headers,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'identity-service-federation',
      },
      agent: false,
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
    req.end(body);
  });
}
