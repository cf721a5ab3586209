import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The structured logger (Powertools). One per process. Log records never carry request bodies,
 * Authorization headers, secrets or tokens: call sites log ids and outcomes only.
 */
export const logger = new Logger({ serviceName: 'identity-service' });
