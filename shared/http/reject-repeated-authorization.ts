import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { badRequest } from '../errors.ts';

/**
 * docs/contract.md §8 "Headers": two `Authorization` headers are a 400. RFC 9110 §5.3 forbids repeating a
 * field that is not a list, and API Gateway keeps only the last value in `headers` (all of them in
 * `multiValueHeaders`), while a proxy in front may have checked the first: which credential counts
 * must not depend on who reads the request. Runs before the header normalizer, on the names as sent.
 */
export function rejectRepeatedAuthorization(): middy.MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: (request) => {
      // Names as sent, in any case (RFC 9110 §5.1: field names are case-insensitive).
      const all = request.event.multiValueHeaders ?? {};
      let count = 0;
      for (const name in all) {
        if (name.length === 13 && name.toLowerCase() === 'authorization') count += all[name]?.length ?? 0;
      }
      if (count > 1) throw badRequest('header.authorization: must be sent once');
    },
  };
}
