// Engine entry point: wiring, listening, clean shutdown.
import { loadConfig } from './config.ts';
import { connect } from './db.ts';
import { createApp } from './http/app.ts';

const config = loadConfig();
const sql = connect(config.DATABASE_URL);
const app = createApp({ sql }).listen({ hostname: config.ENGINE_HOST, port: config.ENGINE_PORT });

console.log(`[engine] listening on http://${config.ENGINE_HOST}:${app.server?.port} (role ${config.ENGINE_ROLE})`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`[engine] ${signal}: stopping`);
  await app.stop();
  await sql.end({ timeout: 5 });
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
