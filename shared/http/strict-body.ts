import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { badRequest } from '../errors.ts';
import { JSON_LIMITS, scanJson } from './json-bounds.ts';

/** The content types the JSON parser (@middy/http-json-body-parser) parses: `application/json`, `application/*+json`. */
const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]+\+)?json(;|$)/i;
const FORM_CONTENT_TYPE = /^application\/x-www-form-urlencoded(;|$)/i;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const notUtf8 = () => badRequest('body: is not valid UTF-8');

/**
 * What the form parser (@middy/http-urlencode-body-parser: `node:querystring`'s `parse`, whose
 * `maxKeys` is 1,000) reads of a form at most; it would drop the pairs after these without a word.
 */
export const MAX_FORM_PARAMETERS = 1000;

/** More than `max` `&`-separated pairs, counted without splitting the body. */
function pairsAbove(body: string, max: number): boolean {
  let pairs = 1;
  for (let i = body.indexOf('&'); i !== -1; i = body.indexOf('&', i + 1)) if (++pairs > max) return true;
  return false;
}

/** A percent escape of a byte above 0x7F: only these can make a bad UTF-8 sequence. */
const NON_ASCII_ESCAPE = /%[89A-Fa-f][0-9A-Fa-f]/;

/**
 * Every percent-decoded name and value of a form body is UTF-8: decodeURIComponent throws on a bad
 * sequence. A `%` that starts no escape is kept as a `%`, as URLSearchParams (the parser) does.
 * A body whose escapes are all ASCII (a token request's URL-encoded `resource`) is UTF-8 without
 * decoding anything.
 */
function isUtf8Form(body: string): boolean {
  if (!NON_ASCII_ESCAPE.test(body)) return true;
  try {
    for (const part of body.split(/[&=]/)) decodeURIComponent(part.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The body rules of docs/security.md ("Input rules", "Exhaustion bounds"), before the body parsers
 * and before authentication, so that no unauthenticated body costs more than reading it once:
 * - a body must be valid UTF-8 (RFC 8259 §8.1: JSON exchanged between systems MUST be UTF-8; the
 *   WHATWG form encoding is UTF-8 too), else 400; the parsers would turn bad bytes into U+FFFD;
 * - a JSON body nests at most 64 levels and holds at most 10,000 members and elements in all
 *   (json-bounds.ts), checked in one linear pass before anything parses it, else 400;
 * - a JSON body holds no member name twice in one object, else 400 naming the member;
 * - a form has at most 1,000 parameters (the parser's own limit), else 400.
 *
 * Invalid UTF-8 reaches the function in one of three ways: a base64 body (binary media types) is
 * decoded here strictly; a text body has already been decoded by API Gateway (and by the local
 * server, which does the same), which turns each invalid sequence into U+FFFD, so a raw U+FFFD is
 * refused too (no identity data needs the replacement character; an escaped `\uFFFD` in JSON is
 * left alone); and a form body may percent-encode bad bytes (`%FF`).
 */
export function strictBody(): middy.MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: (request) => {
      const event = request.event;
      const contentType = event.headers?.['content-type'] ?? event.headers?.['Content-Type'] ?? '';
      const json = JSON_CONTENT_TYPE.test(contentType);
      const form = FORM_CONTENT_TYPE.test(contentType);
      if (typeof event.body !== 'string' || !(json || form)) return;
      let text = event.body;
      if (event.isBase64Encoded) {
        try {
          text = utf8.decode(Buffer.from(event.body, 'base64'));
        } catch {
          throw notUtf8();
        }
        event.body = text;
        event.isBase64Encoded = false;
      }
      if (form && pairsAbove(text, MAX_FORM_PARAMETERS)) throw badRequest(`body: must have at most ${MAX_FORM_PARAMETERS} parameters.`);
      if (text.includes('\uFFFD') || (form && !isUtf8Form(text))) throw notUtf8();
      if (!json) return;
      const scan = scanJson(text);
      if (scan.kind === 'too_deep') throw badRequest(`body: must nest at most ${JSON_LIMITS.maxDepth} levels of objects and arrays.`);
      if (scan.kind === 'too_many_members')
        throw badRequest(`body: must hold at most ${JSON_LIMITS.maxMembers} members and array elements in all.`);
      // A candidate only: malformed text is the JSON parser's 400 (malformed JSON), as without duplicates.
      if (scan.kind === 'duplicate' && parses(text)) {
        // The path is echoed only when made of plain field names (errors echo no request value).
        const plain = scan.path.every((p) => /^[A-Za-z0-9_]{1,64}$/.test(p));
        throw badRequest(`body${plain ? `.${scan.path.join('.')}` : ''}: a member name appears twice in one object`);
      }
    },
  };
}

/** Whether JSON.parse accepts the text (run only on a text within the bounds). */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
