import type { MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { db } from '~/utils/db.server.ts';

export async function loader() {
  const [branding] = await db()`SELECT value FROM site_settings WHERE key = 'branding'`;
  return { appName: (branding?.value?.appName as string | undefined) ?? 'Broker' };
}

export default function Index() {
  const { appName } = useLoaderData<typeof loader>();
  return (
    <main style={{ maxWidth: 550, margin: '10vh auto', padding: 24 }}>
      <h1>{appName}</h1>
      <p>Trade forex, commodities, indices, stocks and crypto with live prices.</p>
    </main>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.appName ?? 'Broker' }];
