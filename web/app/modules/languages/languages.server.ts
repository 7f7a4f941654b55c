// Languages and translations of the back-office (docs/specs.md: /admin/languages and
// /admin/languages/:code, admin only). The languages (name, code) are added and edited; each
// language's translations are a server-paged table with add, 'Add or Edit Translation' and delete.
// A language's missing keys are the keys the code uses (the English seed's key list, the one
// POST /translations/{lng} accepts) that it has no text for. Every change is audited in its
// transaction; the tables' trigger NOTIFYs web_cache, so every web process drops its copy and the
// next page view shows the change without a restart (this process drops its own at once).
import type { Sql } from '~/shared/db.server.ts';
import { invalidateCached } from '~/shared/live-cache.server.ts';
import { notFound } from '~/modules/auth/guards.server.ts';
import { audit } from '~/shared/audit.server.ts';
import { auditIp } from '~/modules/trades/trades.server.ts';
import { codeKeys, isKnownKey, loadTranslations } from '~/modules/i18n/i18n.server.ts';
import { FALLBACK_LANGUAGE } from '~/modules/i18n/i18n.ts';
import { listQuery, type ListQuery } from '~/components/ui/list-params.ts';
import { parseIntent } from '~/shared/forms.ts';
import { replyRefused } from '~/shared/reply.server.ts';
import { pgCode, refuse, replyOutcome, type Actor, type Outcome } from '~/shared/result.server.ts';
import { likeEscape } from '~/shared/prefix-search.server.ts';
import { LANGUAGE_ACTIONS, LANGUAGE_CODE, MISSING_PAGE_SIZE, TRANSLATION_ACTIONS, placeholders, type LanguageInput, type TranslationInput } from './schemas.ts';

// ---------------------------------------------------------------- languages

export interface LanguageRow { code: string; name: string; translated: number; missing: number; total: number }

/** The keys of the code's list that `code` has no text for (an empty value is none). */
export async function missingKeys(sql: Sql, code: string): Promise<string[]> {
  const own = await loadTranslations(sql, code);
  return codeKeys().filter((k) => !Object.hasOwn(own, k));
}

export async function listLanguageRows(sql: Sql): Promise<LanguageRow[]> {
  const rows = await sql`SELECT code, name FROM languages ORDER BY position, code`;
  const total = codeKeys().length;
  return Promise.all(rows.map(async (r) => {
    const missing = (await missingKeys(sql, r.code)).length;
    return { code: r.code as string, name: r.name as string, translated: total - missing, missing, total };
  }));
}

const languageExists = () => refuse(409, 'A language with this code already exists', 'code');

/** Adds a language (no id) or edits one (id: its current code). A code change carries its translations along. */
export async function saveLanguage(sql: Sql, input: LanguageInput, who: Actor): Promise<Outcome<{ code: string }>> {
  try {
    const r = await sql.begin(async (tx): Promise<Outcome<{ code: string }>> => {
      const [clash] = await tx`SELECT code FROM languages WHERE lower(code) = lower(${input.code}) AND code IS DISTINCT FROM ${input.id ?? null}`;
      if (clash) return languageExists();
      if (input.id === undefined) {
        const [row] = await tx`
          INSERT INTO languages (code, name, position)
          VALUES (${input.code}, ${input.name}, (SELECT coalesce(max(position), 0) + 1 FROM languages)) RETURNING code, name`;
        await audit(tx, { actorId: who.actorId, action: 'language.create', targetKind: 'language', targetId: row.code, after: { code: row.code, name: row.name }, ip: auditIp(who.ip) });
        return { ok: true, toast: 'Languages updated successfully', code: row.code };
      }
      const [before] = await tx`SELECT code, name FROM languages WHERE code = ${input.id} FOR UPDATE`;
      if (!before) return refuse(404, 'Language not found');
      if (before.code === FALLBACK_LANGUAGE && input.code !== FALLBACK_LANGUAGE) {
        return refuse(409, 'English is the fallback language: its code cannot change', 'code');
      }
      const [after] = await tx`UPDATE languages SET code = ${input.code}, name = ${input.name} WHERE code = ${input.id} RETURNING code, name`;
      await audit(tx, {
        actorId: who.actorId, action: 'language.update', targetKind: 'language', targetId: after.code,
        before: { code: before.code, name: before.name }, after: { code: after.code, name: after.name }, ip: auditIp(who.ip),
      });
      return { ok: true, toast: 'Languages updated successfully', code: after.code };
    });
    if (r.ok) {
      invalidateCached(sql, 'languages');
      invalidateCached(sql, 'translations');
    }
    return r;
  } catch (e) {
    if (pgCode(e) === '23505') return languageExists(); // a concurrent add of the same code won
    throw e;
  }
}

// ---------------------------------------------------------------- translations

export interface TranslationRow { id: number; key: string; value: string }

const SORTS = { id: 'id', key: 'key' } as const;
export const TRANSLATION_SORTS = Object.keys(SORTS) as (keyof typeof SORTS)[];

/**
 * One page of a language's translations, searched in key and value. A language holds at most a
 * few thousand rows: the (language_code, id) and (language_code, key) indexes bound every scan to them.
 */
export async function listTranslations(sql: Sql, code: string, q: Pick<ListQuery, 'limit' | 'offset' | 'sort' | 'dir' | 'search'>) {
  const term = q.search.trim();
  const like = `%${likeEscape(term)}%`;
  const where = sql`language_code = ${code} ${term ? sql`AND (key ILIKE ${like} OR value ILIKE ${like})` : sql``}`;
  const column = SORTS[(q.sort in SORTS ? q.sort : 'id') as keyof typeof SORTS];
  const dir = q.dir === 'asc' ? sql`ASC` : sql`DESC`;
  const [rows, [count]] = await Promise.all([
    sql`SELECT id, key, value FROM translations WHERE ${where} ORDER BY ${sql(column)} ${dir}, id ${dir} LIMIT ${q.limit} OFFSET ${q.offset}`,
    sql`SELECT count(*)::int AS n FROM translations WHERE ${where}`,
  ]);
  return { total: count.n as number, rows: rows.map((r): TranslationRow => ({ id: Number(r.id), key: r.key, value: r.value })) };
}

const keyTaken = () => refuse(409, 'This key already has a translation in this language', 'key');
const translationNotFound = () => refuse(404, 'Translation not found');

/**
 * Adds (no id) or edits a translation of the language `code`. Only keys the code uses are taken
 * (others are never shown); a key recorded as missing (an empty value) is filled in by an add.
 */
export async function saveTranslation(sql: Sql, code: string, input: TranslationInput, who: Actor): Promise<Outcome<{ id: number }>> {
  if (input.code !== code) return refuse(404, 'Language not found');
  if (!isKnownKey(input.key)) return refuse(422, 'The application does not use this key', 'key');
  if (placeholders(input.value) !== placeholders(input.key)) return refuse(422, 'Keep every placeholder of the key (the names in double braces) unchanged', 'value');
  const ip = auditIp(who.ip);
  try {
    const r = await sql.begin(async (tx): Promise<Outcome<{ id: number }>> => {
      const [lang] = await tx`SELECT code FROM languages WHERE code = ${code} FOR SHARE`;
      if (!lang) return refuse(404, 'Language not found');
      const [same] = await tx`SELECT id, key, value FROM translations WHERE language_code = ${code} AND key = ${input.key} FOR UPDATE`;
      if (input.id === undefined) {
        if (same && same.value !== '') return keyTaken();
        if (same) {
          await tx`UPDATE translations SET value = ${input.value}, updated_at = now() WHERE id = ${same.id}`;
          await audit(tx, { actorId: who.actorId, action: 'translation.update', targetKind: 'translation', targetId: same.id, before: { code, key: same.key, value: same.value }, after: { code, key: input.key, value: input.value }, ip });
          return { ok: true, toast: 'Translation added successfully', id: Number(same.id) };
        }
        const [row] = await tx`INSERT INTO translations (language_code, key, value) VALUES (${code}, ${input.key}, ${input.value}) RETURNING id`;
        await audit(tx, { actorId: who.actorId, action: 'translation.create', targetKind: 'translation', targetId: row.id, after: { code, key: input.key, value: input.value }, ip });
        return { ok: true, toast: 'Translation added successfully', id: Number(row.id) };
      }
      const [before] = await tx`SELECT id, key, value FROM translations WHERE id = ${input.id} AND language_code = ${code} FOR UPDATE`;
      if (!before) return translationNotFound();
      if (same && Number(same.id) !== input.id) return keyTaken();
      await tx`UPDATE translations SET key = ${input.key}, value = ${input.value}, updated_at = now() WHERE id = ${input.id}`;
      await audit(tx, { actorId: who.actorId, action: 'translation.update', targetKind: 'translation', targetId: input.id, before: { code, key: before.key, value: before.value }, after: { code, key: input.key, value: input.value }, ip });
      return { ok: true, toast: 'Translation updated successfully', id: input.id };
    });
    if (r.ok) invalidateCached(sql, 'translations');
    return r;
  } catch (e) {
    if (pgCode(e) === '23505') return keyTaken();
    throw e;
  }
}

export async function deleteTranslation(sql: Sql, code: string, id: number, who: Actor): Promise<Outcome> {
  const r = await sql.begin(async (tx): Promise<Outcome> => {
    const [before] = await tx`DELETE FROM translations WHERE id = ${id} AND language_code = ${code} RETURNING id, key, value`;
    if (!before) return translationNotFound();
    await audit(tx, { actorId: who.actorId, action: 'translation.delete', targetKind: 'translation', targetId: id, before: { code, key: before.key, value: before.value }, ip: auditIp(who.ip) });
    return { ok: true, toast: 'Translation deleted successfully' };
  });
  if (r.ok) invalidateCached(sql, 'translations');
  return r;
}

// ---------------------------------------------------------------- the routes' loaders and actions
// (each route checks access and reads the URL and the form)

export async function languagesLoader(sql: Sql) {
  return { languages: await listLanguageRows(sql), total: codeKeys().length };
}

export async function languagesAction(sql: Sql, form: FormData, who: Actor) {
  const { intent, submission } = parseIntent(form, LANGUAGE_ACTIONS);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  return replyOutcome(submission, await saveLanguage(sql, submission.value as LanguageInput, who), intent);
}

/** The language of the URL, or 404 (an unknown or malformed code). */
async function languageOf(sql: Sql, code: string | undefined): Promise<{ code: string; name: string }> {
  if (!code || !LANGUAGE_CODE.test(code)) throw notFound();
  const [row] = await sql`SELECT code, name FROM languages WHERE code = ${code}`;
  if (!row) throw notFound();
  return { code: row.code, name: row.name };
}

/** One language's translations (`code` from the URL) and a page of its missing keys (`mpage` of the search). */
export async function translationsLoader(sql: Sql, code: string | undefined, search: URLSearchParams) {
  const language = await languageOf(sql, code);
  const q = listQuery(search, TRANSLATION_SORTS);
  const mpage = Math.max(1, Math.min(10_000, Math.floor(Number(search.get('mpage'))) || 1));
  const [list, missing] = await Promise.all([listTranslations(sql, language.code, q), missingKeys(sql, language.code)]);
  const pages = Math.max(1, Math.ceil(missing.length / MISSING_PAGE_SIZE));
  const page = Math.min(mpage, pages);
  return {
    language, ...list,
    missing: { count: missing.length, page, pages, keys: missing.slice((page - 1) * MISSING_PAGE_SIZE, page * MISSING_PAGE_SIZE) },
    fallback: FALLBACK_LANGUAGE,
  };
}

export async function translationsAction(sql: Sql, code: string | undefined, form: FormData, who: Actor) {
  const language = await languageOf(sql, code);
  const { intent, submission } = parseIntent(form, TRANSLATION_ACTIONS);
  if (submission.status !== 'success') return replyRefused(submission, { intent });
  const r = intent === 'delete'
    ? await deleteTranslation(sql, language.code, (submission.value as { id: number }).id, who)
    : await saveTranslation(sql, language.code, submission.value as TranslationInput, who);
  return replyOutcome(submission, r, intent);
}
