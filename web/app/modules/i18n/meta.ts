// Page titles: staff pages are '{appName} Admin' (docs/specs.md#admin-layout); others '{page} | {appName}'.
import type { MetaDescriptor } from '@remix-run/react';

interface RootLike { branding?: { appName?: string }; locale?: string; titles?: Record<string, string> }

/**
 * The keys of the page titles: meta functions render outside the components' i18next, from the
 * root's data, which carries these texts (not every translation: see translationBundle). Every
 * route module registers its title as it loads (a server build loads them all at start).
 */
export const PAGE_TITLE_KEYS = new Set<string>(['Admin']);

function rootOf(matches: readonly { id: string; data?: unknown }[]): RootLike {
  return (matches.find((m) => m.id === 'root')?.data ?? {}) as RootLike;
}

export function translateWith(root: RootLike, key: string): string {
  return root.titles?.[key] || key;
}

export function staffMeta({ matches }: { matches: readonly { id: string; data?: unknown }[] }): MetaDescriptor[] {
  const root = rootOf(matches);
  return [{ title: `${root.branding?.appName ?? 'Broker'} ${translateWith(root, 'Admin')}` }];
}

export function pageMeta(title: string) {
  if (title) PAGE_TITLE_KEYS.add(title);
  return ({ matches }: { matches: readonly { id: string; data?: unknown }[] }): MetaDescriptor[] => {
    const root = rootOf(matches);
    const app = root.branding?.appName ?? 'Broker';
    return [{ title: title ? `${translateWith(root, title)} | ${app}` : app }];
  };
}
