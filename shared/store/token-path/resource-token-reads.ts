import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { RESOURCE_LIMITS as LIMITS, type ResourceRecord } from '../../records/resource-record.ts';
import { normalisedOrSame } from '../../validation/identifier-url.ts';
import { toRecord } from '../core/entity.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { type ResourceTokenView, tokenViewOf, tokenViewOfMarker } from './resource-token-view.ts';

/** Could a resource have this identifier_url? A longer audience names none, and might not fit a key. */
export const isPossibleIdentifier = (url: string): boolean => Buffer.byteLength(url) <= LIMITS.identifierUrl;

export interface ResourceTokenReads {
  /** THE TOKEN PATH: the token view of the resource a token's `audience` names (one consistent GetItem of its marker). */
  getTokenView(tenantId: string, identifierUrl: string): Promise<ResourceTokenView | undefined>;
  /** The same from a marker item already read (the token path's BatchGetItem); reads only for a marker that predates views. */
  tokenViewOfItem(marker: Record<string, unknown>): Promise<ResourceTokenView | undefined>;
}

/**
 * The token path's reads of a Resource, apart from the resources repository and its write paths:
 * the OAuth functions bundle only these (docs/benchmarks.md "Token function bundle"), the
 * repository offers the same methods to management.
 */
export function resourceTokenReads(db: DynamoDBDocumentClient, tableName: string, now: () => Date): ResourceTokenReads {
  const viewOfMarker = async (marker: Record<string, unknown>) => {
    const view = tokenViewOfMarker(marker);
    if (view) return view;
    // A marker from before views (until the bootstrap reconciles it): the record.
    const item = typeof marker.target_id === 'string' ? await getItem(db, tableName, keys.resource(marker.target_id), now()) : undefined;
    return item ? tokenViewOf(toRecord<ResourceRecord>(item)) : undefined;
  };
  return {
    async getTokenView(tenantId, identifierUrl) {
      if (!isPossibleIdentifier(identifierUrl)) return undefined;
      let marker = await getItem(db, tableName, keys.marker('RESOURCE_ID_URL', tenantId, identifierUrl), now());
      // An audience not in normal form names the resource stored under its normal form (docs/contract.md §8);
      // the exact spelling is read first, so what was stored before normalisation is still found.
      const normal = normalisedOrSame(identifierUrl);
      if (!marker && normal !== identifierUrl && isPossibleIdentifier(normal))
        marker = await getItem(db, tableName, keys.marker('RESOURCE_ID_URL', tenantId, normal), now());
      return marker ? viewOfMarker(marker) : undefined;
    },
    tokenViewOfItem: (marker) => viewOfMarker(marker),
  };
}
