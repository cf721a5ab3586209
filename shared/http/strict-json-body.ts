import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { badRequest } from '../errors.ts';
import { findDuplicateKey } from './find-duplicate-key.ts';

/** The content types the JSON parser (@middy/http-json-body-parser) parses: `application/json`, `application/*+json`. */
const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]+\+)?json(;|$)/i;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * API.md §8 "Bodies": a JSON body must be valid UTF-8 and hold no duplicate member names, else 400
 * (RFC 8259 §8.1: JSON text exchanged between systems MUST be UTF-8). Runs before the JSON parser.
 *
 * Invalid UTF-8 reaches the function in one of two ways: a base64 body (binary media types) is
 * decoded here strictly; a text body has already been decoded by API Gateway (and by the local
 * server, which does the same), which turns each invalid sequence into U+FFFD. A raw U+FFFD in a
 * JSON body is therefore refused too: no identity data needs the replacement character, and
 * letting it through would store a silently mangled value. (An escaped `\uFFFD` is left alone.)
 */
export function strictJsonBody(): middy.MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: (request) => {
      const event = request.event;
      const contentType = event.headers?.['content-type'] ?? event.headers?.['Content-Type'];
      if (typeof event.body !== 'string' || !JSON_CONTENT_TYPE.test(contentType ?? '')) return;
      let text = event.body;
      if (event.isBase64Encoded) {
        try {
          text = utf8.decode(Buffer.from(event.body, 'base64'));
        } catch {
          throw badRequest('body: is not valid UTF-8');
        }
        event.body = text;
        event.isBase64Encoded = false;
      }
      if (text.includes('\uFFFD')) throw badRequest('body: is not valid UTF-8 (or holds U+FFFD)');
      let parsed = true;
      try {
        JSON.parse(text);
      } catch {
        parsed = false; // the JSON parser answers 400 malformed JSON
      }
      const duplicate = parsed ? findDuplicateKey(text) : undefined;
      // The name is echoed only when it is a plain field name (API.md §8: errors echo no request value).
      if (duplicate) {
        const plain = duplicate.every((p) => /^[A-Za-z0-9_]{1,64}$/.test(p));
        throw badRequest(`body${plain ? `.${duplicate.join('.')}` : ''}: a member name appears twice in one object`);
      }
    },
  };
}
