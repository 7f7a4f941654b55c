// GET /statements/export?dateStart&dateEnd — the statement as a CSV download, streamed.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { db } from '~/shared/db.server.ts';
import { requireUser } from '~/modules/auth/guards.server.ts';
import { activeWallet } from '~/modules/accounts/accounts.server.ts';
import { statementCsv, statementFileName } from '~/modules/statements/statements.server.ts';
import { listQuery } from '~/components/ui/list-params.ts';
import { routeAccess } from '~/modules/auth/permissions.ts';

// who may use this route: its entry in the permission map, enforced by the route gate
export const access = routeAccess('/statements/export');

export async function loader({ request }: LoaderFunctionArgs) {
  const sql = db();
  const s = await requireUser(request, sql);
  // validated before the stream starts: a bad date is a 400 with its message, not a cut download
  const { dateStart, dateEnd } = listQuery(request, [], '', { dates: true });
  const range = { dateStart, dateEnd };
  const balance = await activeWallet(sql, s.user.id);
  if (!balance) return new Response('No active wallet', { status: 404 });
  const name = statementFileName(balance, range);
  return new Response(statementCsv(sql, balance, range), {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${name}"`,
      'cache-control': 'no-store',
    },
  });
}
