import { perRuntime } from '../../per-runtime.ts';
import type { Runtime } from '../../runtime.ts';
import { deviceCodesRepository } from '../../store/sessions/device-codes-repository.ts';
import { oauthDeps } from '../../wiring/token-path/token-path-records.ts';
import type { DeviceAuthorizationDeps } from './device-authorization.ts';

/**
 * `/device_code`'s dependencies, built once per runtime: the OAuth ones, with the device codes
 * repository that creates authorizations (the token path's OAuth dependencies only poll them).
 */
export const deviceAuthorizationDeps = perRuntime(
  (runtime: Runtime): DeviceAuthorizationDeps => ({
    ...oauthDeps(runtime),
    deviceCodes: deviceCodesRepository(runtime.db, runtime.config.tableName, runtime.now),
  }),
);
