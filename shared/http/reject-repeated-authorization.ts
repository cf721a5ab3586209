import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { badRequest } from '../errors.ts';

/**
 * API.md §8 "Headers": two `Authorization` headers are a 400. RFC 9110 §5.3 forbids repeating a
 * field that is not a list, and API Gateway keeps only the last value in `headers` (all of them in
 * `multiValueHeaders`), while a proxy in front may have checked the first: which credential counts
 * must not depend on who reads the request.
 */
export function rejectRepeatedAuthorization(): middy.MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: (request) => {
      const all = request.event.multiValueHeaders ?? {};
      let count = 0;
      for (const [name, values] of Object.entries(all)) {
        if (name.toLowerCase() === 'authorization') count += values?.length ?? 0;
      }
      if (count > 1) throw badRequest('header.authorization: must be sent once');
    },
  };
}
