import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Service logs stay quiet in test output; tests that check logs raise the level themselves.
    env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files share one DynamoDB Local; each file makes its own table.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/report.json' },
  },
});
