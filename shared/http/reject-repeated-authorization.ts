import type middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { AppError, badRequest } from '../errors.ts';

/**
 * docs/contract.md §8 "Headers": two `Authorization` headers are a 400. RFC 9110 §5.3 forbids repeating a
 * field that is not a list, and API Gateway keeps only the last value in `headers` (all of them in
 * `multiValueHeaders`), while a proxy in front may have checked the first: which credential counts
 * must not depend on who reads the request. The same for `DPoP` (one proof per request). Runs before
 * the header normalizer, on the names as sent.
 */
export function rejectRepeatedAuthorization(): middy.MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: (request) => {
      // Names as sent, in any case (RFC 9110 §5.1: field names are case-insensitive).
      const all = request.event.multiValueHeaders ?? {};
      let count = 0;
      let proofs = 0;
      for (const name in all) {
        if (name.length === 13 && name.toLowerCase() === 'authorization') count += all[name]?.length ?? 0;
        if (name.length === 4 && name.toLowerCase() === 'dpop') proofs += all[name]?.length ?? 0;
      }
      if (count > 1) throw badRequest('header.authorization: must be sent once');
      // RFC 9449 §4.3 item 1: "not more than one DPoP HTTP request header field".
      if (proofs > 1) throw new AppError(400, 'invalid_dpop_proof', 'header.dpop: must be sent once.', { oauth: true });
    },
  };
}
