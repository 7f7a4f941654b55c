// End-to-end tests: run by `npm test` (suite e2e) against a stack started like `npm start`.
// E2E_BASE_URL (web), E2E_ENGINE_URL and DATABASE_URL (the stack's database) are set.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // one browser-driven flow at a time: the machine has two cores
    fileParallelism: false,
    // tests a file marks concurrent (every-page's roles): this many at once
    maxConcurrency: 3,
  },
});
