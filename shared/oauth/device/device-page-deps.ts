import { secureCookies } from '../../browser/cookies.ts';
import { perRuntime } from '../../per-runtime.ts';
import type { Runtime } from '../../runtime.ts';
import { deviceCodesRepository } from '../../store/sessions/device-codes-repository.ts';
import { interactionsRepository } from '../../store/sessions/interactions-repository.ts';
import { sessionsRepository } from '../../store/sessions/sessions-repository.ts';
import { userCodeAttemptsRepository } from '../../store/sessions/user-code-attempts-repository.ts';
import type { DevicePageDeps } from './device-page.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const devicePageDeps = perRuntime((runtime: Runtime): DevicePageDeps => {
  const { db, config, now } = runtime;
  return {
    deviceCodes: deviceCodesRepository(db, config.tableName, now),
    attempts: userCodeAttemptsRepository(db, config.tableName, now),
    interactions: interactionsRepository(db, config.tableName, now),
    sessions: sessionsRepository(db, config.tableName, now),
    csrfKey: () => runtime.serviceSecret('hosted-pages'),
    issuer: config.issuer,
    secureCookies: secureCookies(config.issuer),
  };
});
