import { defineConfig } from 'vitest/config';
import { testTiers } from './test/tiers.ts';

const tiers = testTiers();
/** DynamoDB Local for the whole run (Java); test files each create their own table. */
const database = { globalSetup: ['test/support/service/global-setup.ts'] };

export default defineConfig({
  test: {
    // Service logs stay out of test output, warnings and errors too (the expected 503s and 500s of
    // fault tests log them): tests that check logs raise the level themselves and capture stdout
    // (test/support/service/capture-stdout.ts).
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/report.json' },
    // The tiers (test/tiers.ts): `npm run test:unit` runs `unit` alone, with no Java and no Chromium.
    projects: [
      { extends: true, test: { name: 'unit', include: tiers.unit } },
      { extends: true, test: { name: 'infra', include: tiers.infra } },
      { extends: true, test: { name: 'integration', include: tiers.integration, ...database } },
      { extends: true, test: { name: 'browser', include: tiers.browser, ...database } },
    ],
  },
});
