// npm run db:migrate | db:reset | db:seed — against DATABASE_URL, or the embedded
// server under .data/pg when it is unset.
import postgres from 'postgres';
import { migrate } from './lib/postgres.ts';
import { openAppDatabase } from './lib/database.ts';
import { loadDemoData } from '../seeds/demo.ts';

const command = process.argv[2];
if (!['migrate', 'reset', 'seed'].includes(command)) {
  console.error('usage: tsx scripts/db.ts migrate|reset|seed');
  process.exit(2);
}

const { url, server } = await openAppDatabase(console.log);
try {
  if (command === 'reset') {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    // Dropping the schema is the one way past the append-only ledger: development only.
    await sql.unsafe('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
    await sql.end();
    console.log('database emptied');
  }
  await migrate(url, 'up', (l) => console.log(l));
  if (command !== 'migrate') {
    const sql = postgres(url, { max: 2, onnotice: () => {} });
    await loadDemoData(sql, console.log);
    await sql.end();
  }
} finally {
  await server?.stop();
}
