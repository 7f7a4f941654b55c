// Data-provider settings (/admin/apis, docs/specs.md#settings-and-providers): one card per
// api_settings key, each its own form told apart by `intent` (the key). Shared with the browser.
//   polygonAPI, eodAPI  value1 API key (required)
//   oandaAPI            value1 account number, value2 API key (both required), value3 fxpractice | fxtrade
//   currencyAPI         value1 API key (required); value2 remaining quota, value3 monthly limit: read-only
//   voiso               value1 cluster ID, value2 API key (optional)
// API keys are secrets: stored encrypted, shown masked, kept when the field is left empty.
import { z } from 'zod';

export const API_KEYS = ['polygonAPI', 'eodAPI', 'oandaAPI', 'currencyAPI', 'voiso'] as const;
export type ApiKey = (typeof API_KEYS)[number];

export const API_TITLES: Record<ApiKey, string> = {
  polygonAPI: 'Polygon API', eodAPI: 'EOD Historical Data API', oandaAPI: 'OANDA API', currencyAPI: 'Currency API', voiso: 'Voiso',
};

export interface ApiField { name: 'value1' | 'value2'; label: string; secret: boolean; required: boolean }
export const API_FIELDS: Record<ApiKey, ApiField[]> = {
  polygonAPI: [{ name: 'value1', label: 'API Key', secret: true, required: true }],
  eodAPI: [{ name: 'value1', label: 'API Key', secret: true, required: true }],
  oandaAPI: [
    { name: 'value1', label: 'Account Number', secret: false, required: true },
    { name: 'value2', label: 'API Key', secret: true, required: true },
  ],
  currencyAPI: [{ name: 'value1', label: 'API Key', secret: true, required: true }],
  voiso: [
    { name: 'value1', label: 'Cluster ID', secret: false, required: false },
    { name: 'value2', label: 'API Key', secret: true, required: false },
  ],
};

const value = z.string().trim().max(500, 'Too long').optional().transform((v) => v ?? '');
const box = z.literal('on').optional();
const base = { value1: value, value2: value, clear: box };

/** One schema per card; a required plain field is required here, a required secret by the server (it may be stored). */
export const ApiSchemas = {
  polygonAPI: z.object({ intent: z.literal('polygonAPI'), ...base }),
  eodAPI: z.object({ intent: z.literal('eodAPI'), ...base }),
  oandaAPI: z.object({
    intent: z.literal('oandaAPI'), ...base,
    value1: z.string({ required_error: 'required' }).trim().min(1, 'required').max(100, 'Too long').refine((v) => !v || /^[\w-]+$/.test(v), 'Letters, digits and dashes only'),
    practice: box,
  }),
  currencyAPI: z.object({ intent: z.literal('currencyAPI'), ...base }),
  voiso: z.object({ intent: z.literal('voiso'), ...base, value1: z.string().trim().max(200, 'Too long').optional().transform((v) => v ?? '') }),
} satisfies Record<ApiKey, z.ZodTypeAny>;
export type ApiInput = z.output<(typeof ApiSchemas)[ApiKey]>;

/** What the page's loader sends per card: plain values, secrets only as set + masked. */
export interface ApiCardView {
  key: ApiKey;
  values: Partial<Record<'value1' | 'value2', string>>;
  secrets: Partial<Record<'value1' | 'value2', { set: boolean; masked: string }>>;
  /** oandaAPI: the practice switch (fxpractice) */
  practice?: boolean;
  /** currencyAPI: used of the monthly limit, when the engine has read it */
  quota?: { used: number; total: number; remaining: number } | null;
}
