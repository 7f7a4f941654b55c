// vitest setup: the test database comes from scripts/test.ts (TEST_DATABASE_URL).
if (!process.env.DATABASE_URL && process.env.TEST_DATABASE_URL) {
  process.env.DATABASE_URL = process.env.TEST_DATABASE_URL;
}
