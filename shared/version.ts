import pkg from '../package.json' with { type: 'json' };

/** The package version, reported by the health endpoint as `server_version` (spec 4.4). */
export const SERVICE_VERSION: string = pkg.version;
