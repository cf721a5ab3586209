import { describe, expect, it } from 'vitest';
import { logger } from '#shared/logger.ts';

/**
 * Test output holds the tests' own results: the service's warnings and errors, which fault tests
 * cause on purpose (503 `dependency unavailable`, 500 `unhandled error`), stay off the terminal
 * (vitest.config.ts). Tests that check logs raise the level and capture stdout themselves
 * (test/support/service/capture-stdout.ts).
 */
describe('service logs in a test run', () => {
  it('are silent by default, warnings and errors included', () => {
    expect(process.env.POWERTOOLS_LOG_LEVEL).toBe('SILENT');
    expect(logger.getLevelName()).toBe('SILENT');
  });
});
