// The engine's quotes as a page's first render shows them. Every dashboard request used to ask the
// engine (GET /v1/quotes, every instrument) for prices that the page replaces within moments
// with the ones its live stream pushes; so each web process keeps the last answer and asks again
// once it is older than QUOTES_MAX_AGE_MS (1 s by default; 0 asks on every request). Requests that
// arrive while a question is out share it, and a failed answer (engine down, refusal) is not kept:
// the next request asks again. Trading never reads this copy: the engine prices every order itself.
import { env } from '~/shared/env.server.ts';
import { engine } from '~/shared/engine.server.ts';

type QuotesAnswer = Awaited<ReturnType<ReturnType<typeof engine>['quotes']>>;

let last: { at: number; answer: Promise<QuotesAnswer> } | undefined;

/** The engine's quotes and market status, at most QUOTES_MAX_AGE_MS old (plus the time the engine took to answer). */
export function currentQuotes(maxAgeMs = env().QUOTES_MAX_AGE_MS): Promise<QuotesAnswer> {
  const now = Date.now();
  if (last && now - last.at < maxAgeMs) return last.answer;
  const answer = engine().quotes();
  const mine = { at: now, answer };
  last = mine;
  void answer.then((r) => { if (!r.ok && last === mine) last = undefined; }, () => { if (last === mine) last = undefined; });
  return answer;
}

/** Drops the copy, so the next request asks the engine (tests that change the engine's answer between requests). */
export function forgetQuotes(): void {
  last = undefined;
}
