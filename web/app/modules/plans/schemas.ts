// The pricing-plan form of the back-office (docs/specs.md#trading-configuration):
// name, description, price (≥ 0, cents), and per market a leverage (a positive whole number, or
// empty: the instrument's own) and a stop-out percent (0–100, or empty: the default 50 %).
import { z } from 'zod';
import type { Category } from '@broker/engine/domain';
import { RECORD_ID } from '~/shared/forms.ts';
import { decimalInput, optionalDecimalInput, optionalTextInput, optionalWholeInput, textInput } from '~/modules/catalog/numbers.ts';
import { MAX_LEVERAGE } from '~/modules/instruments/schemas.ts';

/** The plan table's market order (FOREX, COMM., STOCK, INDEX, CRYPTO). */
export const PLAN_MARKETS: readonly Category[] = ['forex', 'commodity', 'stock', 'index', 'crypto'];

// pricing_plans.{market}_leverage integer > 0; {market}_stopout numeric(5, 2) 0..100
const leverage = (m: { message: string }) => optionalWholeInput(1, MAX_LEVERAGE, m);
const stopout = (m: { message: string }) => optionalDecimalInput({ scale: 2, intDigits: 3, zero: true, max: 100 }, m);

export const PlanSchema = z.object({
  id: RECORD_ID.optional(),
  name: textInput(120, { required_error: 'Name is required', message: 'Name allows at most 120 characters' }),
  description: optionalTextInput(500, { message: 'Description allows at most 500 characters' }).transform((v) => v ?? ''),
  // pricing_plans.price numeric(20, 2) ≥ 0, bounded like any amount a person types
  price: decimalInput({ scale: 2, intDigits: 12, zero: true }, { required_error: 'Price is required', message: 'Price must be a number of at least 0 with at most 2 decimals' }),
  forexLeverage: leverage({ message: 'Forex leverage must be a whole number from 1 to 10000, or empty' }),
  commodityLeverage: leverage({ message: 'Commodity leverage must be a whole number from 1 to 10000, or empty' }),
  stockLeverage: leverage({ message: 'Stock leverage must be a whole number from 1 to 10000, or empty' }),
  indexLeverage: leverage({ message: 'Index leverage must be a whole number from 1 to 10000, or empty' }),
  cryptoLeverage: leverage({ message: 'Crypto leverage must be a whole number from 1 to 10000, or empty' }),
  forexStopout: stopout({ message: 'Forex stop-out must be a number from 0 to 100 with at most 2 decimals, or empty' }),
  commodityStopout: stopout({ message: 'Commodity stop-out must be a number from 0 to 100 with at most 2 decimals, or empty' }),
  stockStopout: stopout({ message: 'Stock stop-out must be a number from 0 to 100 with at most 2 decimals, or empty' }),
  indexStopout: stopout({ message: 'Index stop-out must be a number from 0 to 100 with at most 2 decimals, or empty' }),
  cryptoStopout: stopout({ message: 'Crypto stop-out must be a number from 0 to 100 with at most 2 decimals, or empty' }),
});

export type PlanInput = z.output<typeof PlanSchema>;

export const DeletePlanSchema = z.object({ id: RECORD_ID });

export const PLAN_ACTIONS = { save: PlanSchema, delete: DeletePlanSchema };
