/**
 * Storage for the oidc-provider side (its `adapter` option, oidc-provider docs "Adapter"):
 *
 * - `MapAdapter`: in memory, like oidc-provider's built-in memory adapter but without its
 *   1,000-entry LRU bound, which would silently drop most of a 15,000-token introspection pool
 *   (and turn every lookup into a cheap miss);
 * - `RedisAdapter`: a real database in the loop, `redis-server` over a socket with `ioredis` (the
 *   client oidc-provider's own Redis example uses): one JSON value per model and id, with the
 *   token's lifetime as the key's TTL, and a list per grant for `revokeByGrantId`.
 *
 * Only what the bench's flows use is exercised (client_credentials tokens, introspection,
 * revocation), but every method of the interface does what the interface says.
 */
import { Redis } from 'ioredis';
import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Stored {
  payload: AdapterPayload;
  expiresAt: number;
}

export function mapAdapterFactory(): new (name: string) => Adapter {
  const store = new Map<string, Stored>();
  const index = new Map<string, string>(); // uid / userCode -> id, per model
  const grants = new Map<string, string[]>();
  return class MapAdapter implements Adapter {
    constructor(private readonly name: string) {}
    private key(id: string) {
      return `${this.name}:${id}`;
    }
    async upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
      const key = this.key(id);
      store.set(key, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY });
      if (payload.grantId) grants.set(payload.grantId, [...(grants.get(payload.grantId) ?? []), key]);
      if (payload.uid) index.set(`${this.name}:uid:${payload.uid}`, id);
      if (payload.userCode) index.set(`${this.name}:userCode:${payload.userCode}`, id);
    }
    async find(id: string) {
      const e = store.get(this.key(id));
      if (!e) return undefined;
      if (e.expiresAt <= Date.now()) {
        store.delete(this.key(id));
        return undefined;
      }
      return e.payload;
    }
    async findByUid(uid: string) {
      const id = index.get(`${this.name}:uid:${uid}`);
      return id ? this.find(id) : undefined;
    }
    async findByUserCode(userCode: string) {
      const id = index.get(`${this.name}:userCode:${userCode}`);
      return id ? this.find(id) : undefined;
    }
    async consume(id: string) {
      const e = store.get(this.key(id));
      if (e) e.payload = { ...e.payload, consumed: Math.floor(Date.now() / 1000) };
    }
    async destroy(id: string) {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      for (const key of grants.get(grantId) ?? []) store.delete(key);
      grants.delete(grantId);
    }
  };
}

export function redisAdapterFactory(url: string): { Adapter: new (name: string) => Adapter; client: Redis } {
  const client = new Redis(url, { keyPrefix: 'oidc:', enableAutoPipelining: false });
  const grantKey = (grantId: string) => `grant:${grantId}`;
  class RedisAdapter implements Adapter {
    constructor(private readonly name: string) {}
    private key(id: string) {
      return `${this.name}:${id}`;
    }
    async upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
      const key = this.key(id);
      const multi = client.multi();
      if (expiresIn) multi.set(key, JSON.stringify(payload), 'EX', expiresIn);
      else multi.set(key, JSON.stringify(payload));
      if (payload.grantId) {
        multi.rpush(grantKey(payload.grantId), key);
        if (expiresIn) multi.expire(grantKey(payload.grantId), expiresIn, 'GT');
      }
      for (const [kind, value] of [
        ['uid', payload.uid],
        ['userCode', payload.userCode],
      ] as const) {
        if (typeof value === 'string') {
          if (expiresIn) multi.set(`${this.name}:${kind}:${value}`, id, 'EX', expiresIn);
          else multi.set(`${this.name}:${kind}:${value}`, id);
        }
      }
      await multi.exec();
    }
    async find(id: string) {
      const data = await client.get(this.key(id));
      return data ? (JSON.parse(data) as AdapterPayload) : undefined;
    }
    async findByUid(uid: string) {
      const id = await client.get(`${this.name}:uid:${uid}`);
      return id ? this.find(id) : undefined;
    }
    async findByUserCode(userCode: string) {
      const id = await client.get(`${this.name}:userCode:${userCode}`);
      return id ? this.find(id) : undefined;
    }
    async consume(id: string) {
      const found = await this.find(id);
      if (!found) return;
      const ttl = await client.ttl(this.key(id));
      await this.upsert(id, { ...found, consumed: Math.floor(Date.now() / 1000) }, ttl > 0 ? ttl : undefined);
    }
    async destroy(id: string) {
      await client.del(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      // The list holds keys without the client's keyPrefix (values are not prefixed); del adds it.
      const keys = await client.lrange(grantKey(grantId), 0, -1);
      const multi = client.multi();
      for (const k of keys) multi.del(k);
      multi.del(grantKey(grantId));
      await multi.exec();
    }
  }
  return { Adapter: RedisAdapter, client };
}
