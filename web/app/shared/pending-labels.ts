// How a pending order's side and type read (docs/specs.md#pending-orders): translation keys.
export const PENDING_TYPE_LABELS = {
  buy: { limit: 'Buy Limit', stop: 'Buy Stop' },
  sell: { limit: 'Sell Limit', stop: 'Sell Stop' },
} as const;

export const pendingTypeLabel = (side: 'buy' | 'sell', type: 'limit' | 'stop'): string => PENDING_TYPE_LABELS[side][type];

/** The expiry's label key (the value 'at' shows its date and time instead). */
export const PENDING_EXPIRY_LABELS = { gtc: 'Good till cancelled', day: 'End of day', at: 'Date and time' } as const;
