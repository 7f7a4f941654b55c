import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireAccess } from '~/modules/auth/guards.server.ts';
import { PlaceholderPage } from '~/modules/shell/placeholder.tsx';

// /admin/instruments/stock — roles from the permission map; a later issue fills this page.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAccess(request);
  return null;
}

export default function Page() {
  return <PlaceholderPage title="Stocks" />;
}
