import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { SYSTEM_ACTOR_ID } from '#shared/records/common.ts';
import type { Runtime } from '#shared/runtime.ts';
import { entity } from '#shared/store/core/entity.ts';
import { keys } from '#shared/store/core/table-keys.ts';

/** What a test sees of one HTTP exchange. */
export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export interface CallOptions {
  body?: unknown;
  /** A bearer token; `null` sends no Authorization header. Default: the caller's admin token. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** `call(method, '/clients', {...})` against `{url}/identity/v1`, JSON in and out. */
export function managementCaller(url: string, admin: string) {
  return async (method: string, path: string, options: CallOptions = {}): Promise<Reply> => {
    const token = options.token === undefined ? admin : options.token;
    const headers: Record<string, string> = { ...options.headers };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}/identity/v1${path}`, {
      method,
      headers,
      ...(options.body !== undefined ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
}

/** A tenant record, written as tenants-repository.ts writes the default one (no Tenants endpoints yet). */
export async function createTenant(runtime: Runtime, name = `tenant-${randomUUID()}`): Promise<string> {
  const id = randomUUID();
  const at = runtime.now().toISOString();
  const item = {
    id,
    tenant_name: name,
    tenant_metadata: [],
    is_default: false,
    version: 1,
    created_by: SYSTEM_ACTOR_ID,
    created_at: at,
    updated_by: SYSTEM_ACTOR_ID,
    updated_at: at,
  };
  await runtime.db.send(
    new PutCommand({
      TableName: runtime.config.tableName,
      Item: { ...keys.tenant(id), GSI1PK: keys.tenantsCollection, GSI1SK: id, ...entity('Tenant'), ...item },
    }),
  );
  return id;
}
