// Demo instruments: 5 categories, realistic mid prices and typical spreads.
// [name, base, quote, mid, spread, digits, alias, chart provider]
type Row = [string, string, string, number, number, number, string | null, string];

const forex: Row[] = [
  ['EUR_USD', 'EUR', 'USD', 1.0852, 0.00012, 5, 'Euro / US Dollar', 'OANDA'],
  ['GBP_USD', 'GBP', 'USD', 1.2705, 0.00015, 5, 'Cable', 'OANDA'],
  ['USD_JPY', 'USD', 'JPY', 151.52, 0.014, 3, 'Dollar Yen', 'OANDA'],
  ['USD_CHF', 'USD', 'CHF', 0.8812, 0.00016, 5, 'Swissy', 'OANDA'],
  ['AUD_USD', 'AUD', 'USD', 0.6551, 0.00014, 5, 'Aussie', 'OANDA'],
  ['USD_CAD', 'USD', 'CAD', 1.3604, 0.00018, 5, 'Loonie', 'OANDA'],
  ['NZD_USD', 'NZD', 'USD', 0.6003, 0.00018, 5, 'Kiwi', 'OANDA'],
  ['EUR_GBP', 'EUR', 'GBP', 0.8541, 0.00015, 5, null, 'OANDA'],
  ['EUR_JPY', 'EUR', 'JPY', 164.41, 0.02, 3, null, 'OANDA'],
  ['GBP_JPY', 'GBP', 'JPY', 192.48, 0.03, 3, 'Guppy', 'OANDA'],
  ['USD_CNH', 'USD', 'CNH', 7.2412, 0.0012, 4, 'Dollar Renminbi', 'OANDA'],
  ['EUR_CHF', 'EUR', 'CHF', 0.9561, 0.0002, 5, null, 'OANDA'],
  ['AUD_JPY', 'AUD', 'JPY', 99.21, 0.02, 3, null, 'OANDA'],
  ['EUR_AUD', 'EUR', 'AUD', 1.6563, 0.0003, 5, null, 'OANDA'],
  ['EUR_CAD', 'EUR', 'CAD', 1.4761, 0.0003, 5, null, 'OANDA'],
  ['GBP_CHF', 'GBP', 'CHF', 1.1192, 0.0003, 5, null, 'OANDA'],
  ['USD_SGD', 'USD', 'SGD', 1.3452, 0.0003, 5, null, 'OANDA'],
  ['USD_HKD', 'USD', 'HKD', 7.8203, 0.0008, 4, null, 'OANDA'],
  ['USD_MXN', 'USD', 'MXN', 17.1052, 0.004, 4, 'Dollar Peso', 'OANDA'],
  ['USD_ZAR', 'USD', 'ZAR', 18.6021, 0.006, 4, 'Dollar Rand', 'OANDA'],
  ['USD_TRY', 'USD', 'TRY', 32.2105, 0.01, 4, 'Dollar Lira', 'OANDA'],
  ['USD_SEK', 'USD', 'SEK', 10.4512, 0.003, 4, null, 'OANDA'],
  ['USD_NOK', 'USD', 'NOK', 10.6021, 0.003, 4, null, 'OANDA'],
];
const commodity: Row[] = [
  ['XAU_USD', 'XAU', 'USD', 2351.25, 0.35, 2, 'Gold', 'OANDA'],
  ['XAG_USD', 'XAG', 'USD', 28.512, 0.025, 3, 'Silver', 'OANDA'],
  ['XPT_USD', 'XPT', 'USD', 982.4, 2.5, 2, 'Platinum', 'OANDA'],
  ['XPD_USD', 'XPD', 'USD', 1021.6, 4.0, 2, 'Palladium', 'OANDA'],
  ['XCU_USD', 'XCU', 'USD', 4.4521, 0.003, 4, 'Copper', 'OANDA'],
  ['WTICO_USD', 'WTICO', 'USD', 78.52, 0.03, 2, 'US Crude Oil', 'OANDA'],
  ['BCO_USD', 'BCO', 'USD', 82.81, 0.03, 2, 'Brent Crude Oil', 'OANDA'],
  ['NATGAS_USD', 'NATGAS', 'USD', 2.452, 0.006, 3, 'Natural Gas', 'OANDA'],
  ['CORN_USD', 'CORN', 'USD', 4.452, 0.01, 3, 'Corn', 'OANDA'],
  ['WHEAT_USD', 'WHEAT', 'USD', 5.902, 0.012, 3, 'Wheat', 'OANDA'],
  ['SOYBN_USD', 'SOYBN', 'USD', 11.812, 0.02, 3, 'Soybeans', 'OANDA'],
  ['SUGAR_USD', 'SUGAR', 'USD', 0.19512, 0.0003, 5, 'Sugar', 'OANDA'],
];
const index: Row[] = [
  ['SPX500_USD', 'SPX500', 'USD', 5203.4, 0.5, 1, 'S&P 500', 'OANDA'],
  ['NAS100_USD', 'NAS100', 'USD', 18204.6, 1.5, 1, 'Nasdaq 100', 'OANDA'],
  ['US30_USD', 'US30', 'USD', 39012.0, 2.5, 1, 'Dow Jones 30', 'OANDA'],
  ['US2000_USD', 'US2000', 'USD', 2051.3, 0.4, 1, 'Russell 2000', 'OANDA'],
  ['UK100_GBP', 'UK100', 'GBP', 8102.5, 1.0, 1, 'FTSE 100', 'OANDA'],
  ['DE30_EUR', 'DE30', 'EUR', 18305.2, 1.2, 1, 'DAX 40', 'OANDA'],
  ['FR40_EUR', 'FR40', 'EUR', 8001.7, 1.0, 1, 'CAC 40', 'OANDA'],
  ['EU50_EUR', 'EU50', 'EUR', 5001.4, 1.5, 1, 'Euro Stoxx 50', 'OANDA'],
  ['JP225_USD', 'JP225', 'USD', 38512.0, 8.0, 0, 'Nikkei 225', 'OANDA'],
  ['AU200_AUD', 'AU200', 'AUD', 7801.3, 1.0, 1, 'ASX 200', 'OANDA'],
  ['HK33_HKD', 'HK33', 'HKD', 17503.0, 6.0, 0, 'Hang Seng', 'OANDA'],
];
const stock: Row[] = [
  ['AAPL_USD', 'AAPL', 'USD', 190.12, 0.04, 2, 'Apple', 'NASDAQ'],
  ['MSFT_USD', 'MSFT', 'USD', 420.55, 0.06, 2, 'Microsoft', 'NASDAQ'],
  ['AMZN_USD', 'AMZN', 'USD', 185.3, 0.05, 2, 'Amazon', 'NASDAQ'],
  ['GOOGL_USD', 'GOOGL', 'USD', 170.21, 0.05, 2, 'Alphabet', 'NASDAQ'],
  ['META_USD', 'META', 'USD', 480.4, 0.1, 2, 'Meta Platforms', 'NASDAQ'],
  ['TSLA_USD', 'TSLA', 'USD', 175.66, 0.08, 2, 'Tesla', 'NASDAQ'],
  ['NVDA_USD', 'NVDA', 'USD', 900.15, 0.2, 2, 'Nvidia', 'NASDAQ'],
  ['NFLX_USD', 'NFLX', 'USD', 610.3, 0.2, 2, 'Netflix', 'NASDAQ'],
  ['INTC_USD', 'INTC', 'USD', 31.05, 0.02, 2, 'Intel', 'NASDAQ'],
  ['JPM_USD', 'JPM', 'USD', 195.4, 0.05, 2, 'JPMorgan Chase', 'NYSE'],
  ['V_USD', 'V', 'USD', 275.2, 0.06, 2, 'Visa', 'NYSE'],
  ['KO_USD', 'KO', 'USD', 61.02, 0.02, 2, 'Coca-Cola', 'NYSE'],
  ['DIS_USD', 'DIS', 'USD', 112.4, 0.04, 2, 'Walt Disney', 'NYSE'],
  ['BA_USD', 'BA', 'USD', 180.3, 0.08, 2, 'Boeing', 'NYSE'],
];
const crypto: Row[] = [
  ['BTC_USD', 'BTC', 'USD', 67012.5, 15.0, 2, 'Bitcoin', 'COINBASE'],
  ['ETH_USD', 'ETH', 'USD', 3201.4, 1.2, 2, 'Ethereum', 'COINBASE'],
  ['SOL_USD', 'SOL', 'USD', 150.21, 0.12, 2, 'Solana', 'COINBASE'],
  ['XRP_USD', 'XRP', 'USD', 0.5201, 0.0006, 4, 'Ripple', 'BINANCE'],
  ['ADA_USD', 'ADA', 'USD', 0.4502, 0.0006, 4, 'Cardano', 'BINANCE'],
  ['DOGE_USD', 'DOGE', 'USD', 0.15021, 0.0002, 5, 'Dogecoin', 'BINANCE'],
  ['LTC_USD', 'LTC', 'USD', 82.11, 0.08, 2, 'Litecoin', 'COINBASE'],
  ['DOT_USD', 'DOT', 'USD', 7.012, 0.01, 3, 'Polkadot', 'BINANCE'],
  ['BNB_USD', 'BNB', 'USD', 590.4, 0.4, 2, 'BNB', 'BINANCE'],
  ['AVAX_USD', 'AVAX', 'USD', 35.21, 0.04, 2, 'Avalanche', 'COINBASE'],
  ['LINK_USD', 'LINK', 'USD', 14.512, 0.015, 3, 'Chainlink', 'COINBASE'],
];

export const categoryLeverage = { forex: 100, commodity: 50, index: 50, stock: 10, crypto: 5 } as const;

export type Category = keyof typeof categoryLeverage;

export interface DemoInstrument {
  name: string; base: string; quote: string; alias: string | null; category: Category;
  tradingview: string; leverage: number; digits: number; bids: string; asks: string;
}

export const demoInstruments: DemoInstrument[] = (
  [['forex', forex], ['commodity', commodity], ['index', index], ['stock', stock], ['crypto', crypto]] as const
).flatMap(([category, rows]) =>
  rows.map(([name, base, quote, mid, spread, digits, alias, tradingview]) => ({
    name, base, quote, alias, category, tradingview, digits,
    leverage: categoryLeverage[category],
    bids: (mid - spread / 2).toFixed(digits + 1),
    asks: (mid + spread / 2).toFixed(digits + 1),
  })),
);
