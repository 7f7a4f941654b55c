// The one msw setup of the web tests: the server is listening for the whole file, handlers added
// with server.use() in a test are dropped after it, and it is closed at the end. Call it at the
// top level of a test file. mockServer lets requests no handler answers go out unchanged (the
// test database's engine calls, other local servers); strictMockServer fails them (an adapter's
// test: every call it makes must be one the mocks know).
import { afterAll, afterEach, beforeAll } from 'vitest';
import { setupServer } from 'msw/node';
import type { RequestHandler } from 'msw';

function listening(onUnhandledRequest: 'bypass' | 'error', handlers: RequestHandler[]) {
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

export const mockServer = (...handlers: RequestHandler[]) => listening('bypass', handlers);
export const strictMockServer = (...handlers: RequestHandler[]) => listening('error', handlers);
