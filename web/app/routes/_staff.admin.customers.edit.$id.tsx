import type { LoaderFunctionArgs } from '@remix-run/node';
import { requireCustomerRecord } from '~/modules/auth/guards.server.ts';
import { PlaceholderPage } from '~/modules/shell/placeholder.tsx';

// /admin/customers/edit/:id — a customer this role may see (requireCustomerRecord), else 404;
// a later issue fills this page.
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  await requireCustomerRecord(request, params.id, undefined, context);
  return null;
}

export default function Page() {
  return <PlaceholderPage title="Edit Customer" />;
}
