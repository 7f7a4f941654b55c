// Page titles: staff pages are '{appName} Admin' (docs/specs.md#admin-layout); others '{page} | {appName}'.
import type { MetaDescriptor } from '@remix-run/node';

interface RootLike { branding?: { appName?: string }; locale?: string; resources?: Record<string, Record<string, string>> }

function rootOf(matches: readonly { id: string; data?: unknown }[]): RootLike {
  return (matches.find((m) => m.id === 'root')?.data ?? {}) as RootLike;
}

export function translateWith(root: RootLike, key: string): string {
  const lng = root.locale ?? 'en';
  return root.resources?.[lng]?.[key] || root.resources?.en?.[key] || key;
}

export function staffMeta({ matches }: { matches: readonly { id: string; data?: unknown }[] }): MetaDescriptor[] {
  const root = rootOf(matches);
  return [{ title: `${root.branding?.appName ?? 'Broker'} ${translateWith(root, 'Admin')}` }];
}

export function pageMeta(title: string) {
  return ({ matches }: { matches: readonly { id: string; data?: unknown }[] }): MetaDescriptor[] => {
    const root = rootOf(matches);
    const app = root.branding?.appName ?? 'Broker';
    return [{ title: title ? `${translateWith(root, title)} | ${app}` : app }];
  };
}
