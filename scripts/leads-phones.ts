// npm run leads:phones [-- --restart]: gives every lead its phone_e164 by the app's phone rule
// (web/app/modules/crm/phone-backfill.server.ts), in keyset batches of 5,000 from where the last run
// stopped (--restart: from the first lead). The web processes run the same job in the background;
// this waits for theirs and is safe to rerun. Against DATABASE_URL, or the embedded server.
import postgres from 'postgres';
import { openAppDatabase } from './lib/database.ts';
import { backfillLeadPhones, restartBackfill } from '../web/app/modules/crm/phone-backfill.server.ts';

const { url, server } = await openAppDatabase(console.log);
const sql = postgres(url, { max: 1, onnotice: () => {} });
try {
  if (process.argv.includes('--restart')) await restartBackfill(sql);
  const t0 = performance.now();
  const r = await backfillLeadPhones(sql, {
    wait: true,
    onBatch: (b) => console.log(`[leads:phones] up to lead ${b.lastId}: ${b.checked} checked, ${b.changed} changed`),
  });
  console.log(JSON.stringify({ checked: r.checked, changed: r.changed, seconds: Number(((performance.now() - t0) / 1000).toFixed(2)) }));
} finally {
  await sql.end();
  await server?.stop();
}
