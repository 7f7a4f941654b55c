// Reads site settings: each key's stored jsonb is validated with its zod schema; a missing
// or invalid value falls back to the key's default (and says so in the log once). The table is
// small and read by every page: the process keeps a copy, dropped whenever it changes (live-cache).
import type { Db, Sql } from './db.server.ts';
import { cached, invalidateCached } from './live-cache.server.ts';
import { settingsDefaults, settingsSchemas, type Settings, type SettingsKey } from './settings-schema.ts';

const warned = new Set<string>();

function parse<K extends SettingsKey>(key: K, value: unknown): Settings<K> {
  if (value === undefined || value === null) return settingsDefaults[key];
  const schema = settingsSchemas[key];
  // stored values may omit fields added later: defaults fill them in
  const merged = typeof value === 'object' && !Array.isArray(value) ? { ...settingsDefaults[key], ...(value as object) } : value;
  const parsed = schema.safeParse(merged);
  if (parsed.success) return parsed.data as Settings<K>;
  if (!warned.has(key)) {
    warned.add(key);
    console.warn(`[settings] stored value of '${key}' is invalid, using defaults: ${parsed.error.issues.map((i) => i.path.join('.') + ' ' + i.message).join('; ')}`);
  }
  return settingsDefaults[key];
}

/** Every stored value by key, as stored (parse() copies before use, so the shared copy stays intact). */
function stored(sql: Db): Promise<ReadonlyMap<string, unknown>> {
  return cached(sql, 'site_settings', 'all', async () => {
    const rows = await sql`SELECT key, value FROM site_settings`;
    return new Map(rows.map((r) => [r.key as string, r.value]));
  });
}

export async function getSetting<K extends SettingsKey>(sql: Db, key: K): Promise<Settings<K>> {
  return parse(key, (await stored(sql)).get(key));
}

export async function getSettings<K extends SettingsKey>(sql: Db, keys: readonly K[]): Promise<{ [P in K]: Settings<P> }> {
  const byKey = await stored(sql);
  const out = {} as { [P in K]: Settings<P> };
  for (const k of keys) (out as Record<string, unknown>)[k] = parse(k, byKey.get(k));
  return out;
}

/** What every page's layout needs, safe to send to the browser (no secrets). */
export async function getPublicBranding(sql: Sql) {
  const s = await getSettings(sql, ['branding', 'theme', 'whatsapp', 'pricingPlan', 'favicon', 'authBackground', 'recaptcha', 'emailVerify'] as const);
  return {
    appName: s.branding.appName,
    currencies: s.branding.currencies,
    logoPath: s.branding.logoPath,
    theme: s.theme.mode,
    whatsapp: s.whatsapp.number.replace(/[^\d]/g, ''),
    pricingPlan: s.pricingPlan.enabled,
    faviconPath: s.favicon.path,
    authBackground: s.authBackground.path,
    recaptchaSiteKey: s.recaptcha.enabled === 'on' ? s.recaptcha.siteKey : '',
    emailVerify: s.emailVerify.enabled,
  };
}
export type PublicBranding = Awaited<ReturnType<typeof getPublicBranding>>;

/** Test and admin helper: stores a value after validating it. */
export async function setSetting<K extends SettingsKey>(sql: Sql, key: K, value: Settings<K>, actorId: number | null = null) {
  const parsed = settingsSchemas[key].parse(value);
  await sql`INSERT INTO site_settings (key, value, updated_by) VALUES (${key}, ${sql.json(parsed as never)}, ${actorId})
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now(), updated_by = EXCLUDED.updated_by`;
  invalidateCached(sql, 'site_settings');
}
