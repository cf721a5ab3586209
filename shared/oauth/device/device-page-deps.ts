import { secureCookies } from '../../browser/cookies.ts';
import type { Runtime } from '../../runtime.ts';
import { interactionsRepository } from '../../store/interactions-repository.ts';
import { sessionsRepository } from '../../store/sessions-repository.ts';
import { oauthDeps } from '../../store/token-path-records.ts';
import { userCodeAttemptsRepository } from '../../store/user-code-attempts-repository.ts';
import type { DevicePageDeps } from './device-page.ts';

const perRuntime = new WeakMap<Runtime, DevicePageDeps>();

/** Built once per runtime (per container in Lambda, per local stack locally). */
export function devicePageDeps(runtime: Runtime): DevicePageDeps {
  let deps = perRuntime.get(runtime);
  if (deps) return deps;
  const { db, config, now } = runtime;
  deps = {
    deviceCodes: oauthDeps(runtime).deviceCodes,
    attempts: userCodeAttemptsRepository(db, config.tableName, now),
    interactions: interactionsRepository(db, config.tableName, now),
    sessions: sessionsRepository(db, config.tableName, now),
    csrfKey: () => runtime.serviceSecret('hosted-pages'),
    issuer: config.issuer,
    secureCookies: secureCookies(config.issuer),
  };
  perRuntime.set(runtime, deps);
  return deps;
}
