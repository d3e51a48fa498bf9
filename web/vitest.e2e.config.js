// End-to-end tests: the built page (dist/) served by Vite's preview server, driven in the
// machine's Chromium through playwright-core (no browser download).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['e2e/**/*.test.js'],
    globalSetup: ['e2e/global-setup.js'],
    testTimeout: 60000,
    hookTimeout: 120000,
    fileParallelism: false,
    reporters: ['default', ['./tests/plain-reporter.js', { suite: 'e2e' }]],
  },
});
