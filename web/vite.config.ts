import { vitePlugin as remix } from '@remix-run/dev';
import { defineConfig } from 'vite';
import tsconfigPaths from 'vite-tsconfig-paths';

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true;
  }
}

export default defineConfig({
  // native addon: never pre-bundled for the browser
  optimizeDeps: { exclude: ['@node-rs/argon2'] },
  server: { port: Number(process.env.WEB_PORT ?? 3000), host: '127.0.0.1' },
  plugins: [
    !process.env.VITEST &&
      remix({
        future: {
          v3_fetcherPersist: true,
          v3_throwAbortReason: true,
          v3_singleFetch: true,
          v3_lazyRouteDiscovery: true,
        },
      }),
    tsconfigPaths(),
  ],
  test: {
    // VITEST_SERIAL=1: only the files that change site-wide settings, one file at a time
    // (scripts/test.ts runs them after the others)
    include: process.env.VITEST_SERIAL ? ['test/**/*.serial.test.ts'] : ['app/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    exclude: process.env.VITEST_SERIAL ? [] : ['**/node_modules/**', '**/*.serial.test.ts'],
    fileParallelism: !process.env.VITEST_SERIAL,
    // vitest's default is one worker less than the cores: a single file at a time on a 2-core
    // machine. The files wait on PostgreSQL as much as they compute, so three side by side.
    maxWorkers: process.env.VITEST_SERIAL ? 1 : 3,
    minWorkers: 1,
    setupFiles: ['./test/setup.ts'],
    testTimeout: 20000,
    hookTimeout: 30000,
    pool: 'forks',
  },
});
