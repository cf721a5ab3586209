import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { badRequest } from '../errors.ts';
import { findDuplicateKey } from './find-duplicate-key.ts';

/** The content types the JSON parser (@middy/http-json-body-parser) parses: `application/json`, `application/*+json`. */
const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]+\+)?json(;|$)/i;
const FORM_CONTENT_TYPE = /^application\/x-www-form-urlencoded(;|$)/i;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const notUtf8 = () => badRequest('body: is not valid UTF-8');

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
 * API.md §8 "Bodies": a body must be valid UTF-8, and a JSON body hold no duplicate member names,
 * else 400 (RFC 8259 §8.1: JSON exchanged between systems MUST be UTF-8; the WHATWG form encoding
 * is UTF-8 too). Runs before the body parsers, which would otherwise turn bad bytes into U+FFFD.
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
      if (text.includes('\uFFFD') || (form && !isUtf8Form(text))) throw notUtf8();
      if (!json) return;
      let parsed = true;
      try {
        JSON.parse(text);
      } catch {
        parsed = false; // the JSON parser answers 400 malformed JSON
      }
      const duplicate = parsed ? findDuplicateKey(text) : undefined;
      // The path is echoed only when made of plain field names (API.md §8: errors echo no request value).
      if (duplicate) {
        const plain = duplicate.every((p) => /^[A-Za-z0-9_]{1,64}$/.test(p));
        throw badRequest(`body${plain ? `.${duplicate.join('.')}` : ''}: a member name appears twice in one object`);
      }
    },
  };
}
