// Server Information (admin status page) for the web process: the same reading the engine answers
// GET /v1/server with (engine/src/contract/server-info.ts), one implementation for both processes.
export { cpuUsage, serverInfo, type ServerInfo } from '@broker/engine/contract/server-info';
