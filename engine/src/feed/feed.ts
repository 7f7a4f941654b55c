// A feed provider yields normalised ticks and reports its health as heartbeats.
import type { Tick } from '../book/book.ts';

export type HeartbeatApi = 'polygonForex' | 'polygonCrypto' | 'eodStock' | 'oandaRest';
export interface Heartbeat { api: HeartbeatApi | 'simulator'; success: boolean; msg: string }

export interface FeedStatus { name: string; connected: boolean; ticks: number; lastTickAt: number | null; message: string }

export interface FeedProvider {
  readonly name: string;
  start(emit: (t: Tick) => void, heartbeat: (h: Heartbeat) => void): Promise<void>;
  stop(): Promise<void>;
  status(): FeedStatus;
}
