import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DdbMeter } from '../lib/ddb-meter.ts';
import { clientCount, readClientItem, seedClients } from '../lib/seed-clients.ts';
import { median, percentile, round, timed } from '../lib/stats.ts';

export interface OpStats {
  /** Median and p90 latency over the samples, HTTP round trip on loopback, ms. */
  medianMs: number;
  p90Ms: number;
  samples: number;
  /** Per request, mean over the samples (DynamoDB's own accounting). */
  ddbCalls: number;
  rru: number;
  wru: number;
  /** KMS calls per request (the fake KMS's count; 0 warm: secrets open under the data key). */
  kmsCalls: number;
  /** Items in the page (lists). */
  items?: number;
  status: number;
  error?: string;
}

export interface ListsAtSize {
  clients: number;
  firstPage: OpStats;
  offset900: OpStats;
  cursor: OpStats;
  create: OpStats;
  /** First page for a caller holding `read:client_keys`: every returned client's secret is opened. */
  firstPageWithSecrets: OpStats;
}

export interface ListsResult {
  limit: number;
  sizes: ListsAtSize[];
  /** first page at the largest size / at the smallest. */
  firstPageGrowth: number;
  seedMs: number;
  seedSource: string;
  skipped?: string;
}

interface Http {
  url: string;
  token: string;
  /** Holds read:client_keys as well. */
  keysToken: string;
}

const get = async (h: Http, path: string, token = h.token) => {
  const res = await fetch(`${h.url}/identity/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.text() };
};

async function measure(
  meter: DdbMeter,
  kmsTotal: () => number,
  samples: number,
  call: () => Promise<{ status: number; body: string }>,
  countItems = false,
): Promise<OpStats> {
  const first = await call(); // warm: handler module loaded, caches filled
  if (first.status < 200 || first.status > 299) {
    return {
      medianMs: NaN,
      p90Ms: NaN,
      samples: 0,
      ddbCalls: NaN,
      rru: NaN,
      wru: NaN,
      kmsCalls: NaN,
      status: first.status,
      error: first.body.slice(0, 200),
    };
  }
  const ms: number[] = [];
  let calls = 0;
  let rru = 0;
  let wru = 0;
  let kms = 0;
  let items: number | undefined;
  let status = first.status;
  for (let i = 0; i < samples; i++) {
    const before = meter.snapshot();
    const k0 = kmsTotal();
    const r = await timed(call);
    const used = meter.since(before);
    kms += kmsTotal() - k0;
    ms.push(r.ms);
    calls += used.calls;
    rru += used.rcu;
    wru += used.wcu;
    status = r.value.status;
    if (countItems) items = (JSON.parse(r.value.body) as { items?: unknown[] }).items?.length;
  }
  return {
    medianMs: round(median(ms)),
    p90Ms: round(percentile(ms, 90)),
    samples,
    ddbCalls: round(calls / samples),
    rru: round(rru / samples),
    wru: round(wru / samples),
    kmsCalls: round(kms / samples),
    ...(items !== undefined ? { items } : {}),
    status,
  };
}

/**
 * Management at scale: the tenant's client collection at 10, 1,000 and 10,000 clients (seeded
 * directly in the table, see seed-clients.ts), and at each size: the first page, the page at
 * offset 900, a page reached through `cursor` (taken from the page at offset 850, so it starts at
 * item 900 too: same depth, O(limit) work), and creating a client through the API.
 */
export async function benchLists(o: {
  url: string;
  /** A management token with `scope` (all management scopes when undefined). */
  managementToken: (scope?: string) => Promise<string>;
  kmsTotal: () => number;
  db: DynamoDBDocumentClient;
  tableName: string;
  templateClientId: string;
  meter: DdbMeter;
  sizes: number[];
  samples: number;
  log: (line: string) => void;
}): Promise<ListsResult> {
  const limit = 50;
  // The measured caller has read:clients and create:clients, not read:client_keys (the secrets
  // column below is the caller that has it).
  const scope = 'read:clients create:clients';
  const h: Http = { url: o.url, token: await o.managementToken(scope), keysToken: await o.managementToken() };
  const probe = await get(h, `/clients?limit=${limit}`);
  if (probe.status !== 200) {
    return {
      limit,
      sizes: [],
      firstPageGrowth: NaN,
      seedMs: 0,
      seedSource: '',
      skipped: `GET /identity/v1/clients answers ${probe.status}: ${probe.body.slice(0, 200)}`,
    };
  }
  const template = await readClientItem(o.db, o.tableName, o.templateClientId);
  const tenantId = String(template.tenant_id);
  if (template.is_default) template.is_default = false;
  let seedMs = 0;
  const sizes: ListsAtSize[] = [];
  for (const size of o.sizes) {
    const have = await clientCount(o.db, o.tableName, tenantId);
    const t = await timed(() => seedClients(o.db, o.tableName, template, size - have));
    seedMs += t.ms;
    o.log(`lists: ${size} clients (seeded ${Math.max(0, size - have)} in ${Math.round(t.ms)} ms)`);
    h.token = await o.managementToken(scope);
    h.keysToken = await o.managementToken();
    const M = (samples: number, call: () => Promise<{ status: number; body: string }>, countItems = false) =>
      measure(o.meter, o.kmsTotal, samples, call, countItems);

    const firstPage = await M(o.samples, () => get(h, `/clients?limit=${limit}`), true);
    const offset900 = await M(o.samples, () => get(h, `/clients?offset=900&limit=${limit}`), true);
    const at850 = await get(h, `/clients?offset=850&limit=${limit}`);
    const nextCursor = at850.status === 200 ? (JSON.parse(at850.body) as { next_cursor?: string }).next_cursor : undefined;
    const firstCursor = (JSON.parse((await get(h, `/clients?limit=${Math.min(limit, 5)}`)).body) as { next_cursor?: string }).next_cursor;
    const cursor = nextCursor ?? firstCursor;
    const cursorStats: OpStats = cursor
      ? await M(o.samples, () => get(h, `/clients?cursor=${encodeURIComponent(cursor)}&limit=${limit}`), true)
      : {
          medianMs: NaN,
          p90Ms: NaN,
          samples: 0,
          ddbCalls: NaN,
          rru: NaN,
          wru: NaN,
          kmsCalls: NaN,
          status: 0,
          error: 'no next_cursor at this size',
        };
    if (!nextCursor && cursor) cursorStats.error = 'fewer than 900 clients: cursor taken from the first page';

    let n = 0;
    const firstPageWithSecrets = await M(
      Math.max(5, Math.floor(o.samples / 2)),
      () => get(h, `/clients?limit=${limit}`, h.keysToken),
      true,
    );
    const create = await M(Math.max(5, Math.floor(o.samples / 2)), async () => {
      const res = await fetch(`${h.url}/identity/v1/clients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: `bench create ${size}-${n++}`, client_metadata: { grant_types: ['client_credentials'] } }),
      });
      return { status: res.status, body: await res.text() };
    });
    sizes.push({ clients: size, firstPage, offset900, cursor: cursorStats, create, firstPageWithSecrets });
    o.log(
      `lists: @${size} first ${firstPage.medianMs} ms (${firstPage.ddbCalls} calls, ${firstPage.rru} RRU) | offset 900 ${offset900.medianMs} ms (${offset900.rru} RRU) | cursor ${cursorStats.medianMs} ms | create ${create.medianMs} ms | with secrets ${firstPageWithSecrets.medianMs} ms, ${firstPageWithSecrets.kmsCalls} KMS`,
    );
  }
  const a = sizes[0]?.firstPage.medianMs ?? NaN;
  const b = sizes.at(-1)?.firstPage.medianMs ?? NaN;
  return { limit, sizes, firstPageGrowth: round(b / a), seedMs: Math.round(seedMs), seedSource: `copies of client ${o.templateClientId}` };
}
