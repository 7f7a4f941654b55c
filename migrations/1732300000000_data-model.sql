-- Up Migration
-- The whole data model of the platform: client area, back-office and CRM.
-- Money and prices are numeric, never floats. Balances change only through
-- post_ledger(); ledger_entries and audit_events are append-only.

CREATE TYPE instrument_category AS ENUM ('forex', 'commodity', 'index', 'stock', 'crypto');
CREATE TYPE balance_mode AS ENUM ('demo', 'real');
CREATE TYPE order_side AS ENUM ('buy', 'sell');
CREATE TYPE close_reason AS ENUM ('manual', 'tp', 'sl', 'stop_out', 'zero_equity', 'admin');
CREATE TYPE money_status AS ENUM ('pending', 'approved', 'declined');
CREATE TYPE kyc_status AS ENUM ('pending', 'approved', 'declined');
CREATE TYPE kyc_doc_type AS ENUM ('national_id', 'passport', 'driver_license');
CREATE TYPE lead_group AS ENUM ('sales', 'retentions', 'archived');
CREATE TYPE lot_state AS ENUM ('amount', 'lot');
CREATE TYPE candle_interval AS ENUM ('1m', '1h', '1D');
CREATE TYPE ledger_kind AS ENUM (
  'deposit',            -- approved deposit
  'withdrawal',         -- withdrawal request (amount + fee held)
  'withdrawal_refund',  -- declined withdrawal given back
  'adjustment',         -- staff add / subtract
  'trade_pnl',          -- realised profit or loss of a closed order
  'write_off',          -- negative-balance protection: shortfall forgiven
  'demo_credit',        -- initial demo money
  'plan_subscription',  -- pricing plan bought
  'reversal'            -- correction of an earlier entry
);
CREATE TYPE gateway_kind AS ENUM (
  'flutterwave', 'coinpayments', 'paypal', 'bank', 'btc', 'usdt', 'stripe',
  'prmoney', 'wipays', 'perfectmoney', 'globiance', 'moonpay'
);
CREATE TYPE api_provider AS ENUM ('polygonAPI', 'eodAPI', 'oandaAPI', 'currencyAPI', 'voiso');

-- Refuses UPDATE, DELETE and TRUNCATE: used by append-only tables.
CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'insufficient_privilege',
          HINT = 'write a new, reversing entry instead';
END $$;

-- ---------------------------------------------------------------- plans, users

CREATE TABLE pricing_plans (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name               text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  description        text NOT NULL DEFAULT '',
  price              numeric(20, 2) NOT NULL DEFAULT 0 CHECK (price >= 0),
  price_currency     char(3) NOT NULL DEFAULT 'USD',
  forex_leverage     integer CHECK (forex_leverage > 0),
  commodity_leverage integer CHECK (commodity_leverage > 0),
  index_leverage     integer CHECK (index_leverage > 0),
  stock_leverage     integer CHECK (stock_leverage > 0),
  crypto_leverage    integer CHECK (crypto_leverage > 0),
  -- stop-out thresholds in percent of a position's margin; null means the default 50
  forex_stopout      numeric(5, 2) CHECK (forex_stopout BETWEEN 0 AND 100),
  commodity_stopout  numeric(5, 2) CHECK (commodity_stopout BETWEEN 0 AND 100),
  index_stopout      numeric(5, 2) CHECK (index_stopout BETWEEN 0 AND 100),
  stock_stopout      numeric(5, 2) CHECK (stock_stopout BETWEEN 0 AND 100),
  crypto_stopout     numeric(5, 2) CHECK (crypto_stopout BETWEEN 0 AND 100),
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX pricing_plans_name_key ON pricing_plans (lower(name));
CREATE INDEX pricing_plans_price_idx ON pricing_plans (price);

CREATE TABLE promo_codes (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  code       text NOT NULL UNIQUE CHECK (code ~ '^[A-Z0-9]{4,32}$'),
  owner_id   bigint,           -- staff or affiliate who generated it (FK below)
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email             text NOT NULL CHECK (email = lower(email) AND position('@' IN email) > 1),
  password_hash     text NOT NULL,
  full_name         text NOT NULL CHECK (length(full_name) BETWEEN 1 AND 200),
  -- 1 admin, 2 manager, 3 customer, 4 affiliate, 5 sales agent, 6 retention agent
  role_id           smallint NOT NULL CHECK (role_id BETWEEN 1 AND 6),
  is_active         boolean NOT NULL DEFAULT true,
  is_email_verified boolean NOT NULL DEFAULT false,
  online            boolean NOT NULL DEFAULT false,
  last_seen_at      timestamptz,
  manager_id        bigint REFERENCES users (id) ON DELETE SET NULL,
  pricing_plan_id   bigint REFERENCES pricing_plans (id) ON DELETE SET NULL,
  promo_code_id     bigint REFERENCES promo_codes (id) ON DELETE SET NULL,
  active_balance_id bigint,    -- FK below, once balances exist
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  deleted_at        timestamptz  -- users are soft-deleted: their ledger stays
);
CREATE UNIQUE INDEX users_email_key ON users (email) WHERE deleted_at IS NULL;
CREATE INDEX users_role_id_idx ON users (role_id, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX users_inactive_idx ON users (role_id, id DESC) WHERE deleted_at IS NULL AND NOT is_active;
CREATE INDEX users_full_name_idx ON users (lower(full_name) text_pattern_ops);
CREATE INDEX users_email_pattern_idx ON users (email text_pattern_ops);
CREATE INDEX users_manager_id_idx ON users (manager_id);
CREATE INDEX users_pricing_plan_id_idx ON users (pricing_plan_id);
CREATE INDEX users_created_at_idx ON users (created_at);
ALTER TABLE promo_codes ADD FOREIGN KEY (owner_id) REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX promo_codes_owner_id_idx ON promo_codes (owner_id);

CREATE TABLE profiles (
  user_id     bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  phone       text NOT NULL DEFAULT '',
  birth_date  date,
  country     text NOT NULL DEFAULT '',
  city        text NOT NULL DEFAULT '',
  address     text NOT NULL DEFAULT '',
  postal_code text NOT NULL DEFAULT '',
  avatar_path text
);
CREATE INDEX profiles_phone_idx ON profiles (phone text_pattern_ops);
CREATE INDEX profiles_country_idx ON profiles (country);

-- Staff IP whitelist: no rows means whitelisting is off for that user.
CREATE TABLE user_ip_whitelist (
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  ip_address inet NOT NULL,
  PRIMARY KEY (user_id, ip_address)
);

-- ---------------------------------------------------------------- money

CREATE TABLE balances (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES users (id),
  mode       balance_mode NOT NULL,
  currency   char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  balance    numeric(24, 8) NOT NULL DEFAULT 0 CHECK (balance >= 0),
  margin     numeric(24, 8) NOT NULL DEFAULT 0 CHECK (margin >= 0),  -- used margin
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, mode, currency),
  UNIQUE (id, user_id)  -- target of orders' (balance_id, user_id) key
) WITH (fillfactor = 50);  -- room on each page so the many margin/balance updates stay HOT
ALTER TABLE users ADD FOREIGN KEY (active_balance_id) REFERENCES balances (id) ON DELETE SET NULL;

CREATE TABLE ledger_entries (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  balance_id    bigint NOT NULL REFERENCES balances (id),
  kind          ledger_kind NOT NULL,
  amount        numeric(24, 8) NOT NULL CHECK (amount <> 0),
  balance_after numeric(24, 8) NOT NULL,
  ref_kind      text NOT NULL,   -- what caused it: deposit, order, withdrawal, adjustment, ...
  ref_id        text NOT NULL,
  actor_id      bigint REFERENCES users (id),
  memo          text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  -- a deposit, order close or adjustment is posted at most once
  UNIQUE (ref_kind, ref_id, kind)
);
CREATE INDEX ledger_entries_balance_idx ON ledger_entries (balance_id, id DESC);
CREATE INDEX ledger_entries_created_at_brin ON ledger_entries USING brin (created_at);
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- A balance is born at zero and its amount moves only inside post_ledger().
CREATE FUNCTION guard_balance_amount() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' AND NEW.balance <> 0 THEN
    RAISE EXCEPTION 'a balance starts at 0; credit it through post_ledger()' USING ERRCODE = 'BAL02';
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.balance IS DISTINCT FROM OLD.balance
     AND coalesce(current_setting('broker.ledger_posting', true), '') <> 'on' THEN
    RAISE EXCEPTION 'balance % may change only through post_ledger()', OLD.id USING ERRCODE = 'BAL02';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER balances_guard_amount BEFORE INSERT OR UPDATE ON balances
  FOR EACH ROW EXECUTE FUNCTION guard_balance_amount();

-- The single way to change a balance. Locks the balance row, is idempotent on
-- (ref_kind, ref_id, kind) (the same reference with another balance or amount is
-- refused, SQLSTATE BAL05), refuses to go below zero (SQLSTATE BAL01) unless
-- p_write_off_shortfall, in which case the shortfall is written off with a
-- second entry so the balance ends at exactly 0. NOTIFYs balance_changed.
CREATE FUNCTION post_ledger(
  p_balance_id bigint,
  p_amount numeric,
  p_kind ledger_kind,
  p_ref_kind text,
  p_ref_id text,
  p_actor_id bigint DEFAULT NULL,
  p_memo text DEFAULT NULL,
  p_write_off_shortfall boolean DEFAULT false
) RETURNS TABLE (entry_id bigint, balance_after numeric, applied boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_balance balances%ROWTYPE;
  v_existing ledger_entries%ROWTYPE;
  v_after numeric(24, 8);
  v_shortfall numeric := 0;
  v_id bigint;
BEGIN
  IF p_amount IS NULL OR p_amount = 0 THEN
    RAISE EXCEPTION 'amount must be a non-zero number' USING ERRCODE = 'BAL03';
  END IF;

  SELECT * INTO v_balance FROM balances WHERE id = p_balance_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'balance % not found', p_balance_id USING ERRCODE = 'BAL04';
  END IF;

  -- Checked after the lock, so a concurrent duplicate sees the first one's row.
  SELECT * INTO v_existing FROM ledger_entries
   WHERE ref_kind = p_ref_kind AND ref_id = p_ref_id AND kind = p_kind;
  IF FOUND THEN
    IF v_existing.balance_id <> p_balance_id OR v_existing.amount <> p_amount THEN
      RAISE EXCEPTION 'reference %/% (%) was already posted with other terms', p_ref_kind, p_ref_id, p_kind
        USING ERRCODE = 'BAL05';
    END IF;
    RETURN QUERY SELECT v_existing.id, v_existing.balance_after, false;
    RETURN;
  END IF;

  v_after := v_balance.balance + p_amount;
  IF v_after < 0 THEN
    IF NOT p_write_off_shortfall THEN
      RAISE EXCEPTION 'insufficient funds: balance % is %, change is %', p_balance_id, v_balance.balance, p_amount
        USING ERRCODE = 'BAL01';
    END IF;
    v_shortfall := -v_after;
  END IF;

  INSERT INTO ledger_entries (balance_id, kind, amount, balance_after, ref_kind, ref_id, actor_id, memo)
  VALUES (p_balance_id, p_kind, p_amount, v_after, p_ref_kind, p_ref_id, p_actor_id, p_memo)
  RETURNING id INTO v_id;

  IF v_shortfall > 0 THEN
    INSERT INTO ledger_entries (balance_id, kind, amount, balance_after, ref_kind, ref_id, actor_id, memo)
    VALUES (p_balance_id, 'write_off', v_shortfall, 0, p_ref_kind, p_ref_id, p_actor_id,
            'negative balance protection');
    v_after := 0;
  END IF;

  PERFORM set_config('broker.ledger_posting', 'on', true);
  UPDATE balances SET balance = v_after, updated_at = now() WHERE id = p_balance_id;
  PERFORM set_config('broker.ledger_posting', '', true);

  PERFORM pg_notify('balance_changed', json_build_object(
    'balanceId', p_balance_id, 'userId', v_balance.user_id, 'balance', v_after::text)::text);

  RETURN QUERY SELECT v_id, v_after, true;
END $$;

CREATE TABLE withdraw_fee_settings (
  id             smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  fee_percentage numeric(7, 4) NOT NULL DEFAULT 0 CHECK (fee_percentage BETWEEN 0 AND 100),
  fee_fixed      numeric(20, 2) NOT NULL DEFAULT 0 CHECK (fee_fixed >= 0),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
INSERT INTO withdraw_fee_settings (id) VALUES (1);

-- Secret keys (key1..key5 per kind, see docs/specs.md#settings-and-providers) are stored encrypted by the app.
CREATE TABLE payment_gateways (
  name       gateway_kind PRIMARY KEY,
  title      text NOT NULL,
  is_manual  boolean NOT NULL DEFAULT false,  -- Manual Gateways page (bank, btc, usdt)
  key1       text,
  key2       text,
  key3       text,
  key4       text,
  key5       text,
  fee        numeric(7, 4) NOT NULL DEFAULT 0 CHECK (fee BETWEEN 0 AND 100),  -- percent
  is_active  boolean NOT NULL DEFAULT false,
  file_path  text,      -- QR code image for btc / usdt
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE external_payments (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  logo_path    text NOT NULL,
  name         text NOT NULL CHECK (length(name) > 0),
  link         text NOT NULL CHECK (link ~ '^https?://'),
  custom_label text,
  custom_value text,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE deposits (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id        bigint NOT NULL REFERENCES users (id),
  balance_id     bigint NOT NULL REFERENCES balances (id),
  gateway        text NOT NULL,          -- a gateway kind or an external payment
  amount         numeric(20, 2) NOT NULL CHECK (amount > 0),
  fee            numeric(20, 2) NOT NULL DEFAULT 0 CHECK (fee >= 0),
  total          numeric(20, 2) NOT NULL CHECK (total = amount + fee),
  status         money_status NOT NULL DEFAULT 'pending',
  description    text NOT NULL DEFAULT '',
  -- bank: bankName, accountName, accountNumber, swiftCode, bankCountry, proofPath
  details        jsonb NOT NULL DEFAULT '{}',
  reference      text,                   -- the provider's payment id
  decline_reason text,
  decided_by     bigint REFERENCES users (id),
  decided_at     timestamptz,
  balance_after  numeric(24, 8),
  created_at     timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'pending') = (decided_at IS NULL))
);
CREATE UNIQUE INDEX deposits_reference_key ON deposits (gateway, reference) WHERE reference IS NOT NULL;
CREATE INDEX deposits_user_idx ON deposits (user_id, id DESC);
CREATE INDEX deposits_status_idx ON deposits (status, id DESC);
CREATE INDEX deposits_created_at_idx ON deposits (created_at);
CREATE INDEX deposits_balance_idx ON deposits (balance_id);

CREATE TABLE withdrawals (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id        bigint NOT NULL REFERENCES users (id),
  balance_id     bigint NOT NULL REFERENCES balances (id),
  gateway        text NOT NULL DEFAULT 'bank',
  amount         numeric(20, 2) NOT NULL CHECK (amount > 0),
  fee            numeric(20, 2) NOT NULL DEFAULT 0 CHECK (fee >= 0),
  total          numeric(20, 2) NOT NULL CHECK (total = amount + fee),
  status         money_status NOT NULL DEFAULT 'pending',
  description    text NOT NULL DEFAULT '',
  -- bank: bankName, accountName, accountNumber, swiftCode, bankCountry
  details        jsonb NOT NULL DEFAULT '{}',
  decline_reason text,
  decided_by     bigint REFERENCES users (id),
  decided_at     timestamptz,
  balance_after  numeric(24, 8),
  created_at     timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'pending') = (decided_at IS NULL))
);
CREATE INDEX withdrawals_user_idx ON withdrawals (user_id, id DESC);
CREATE INDEX withdrawals_status_idx ON withdrawals (status, id DESC);
CREATE INDEX withdrawals_created_at_idx ON withdrawals (created_at);
CREATE INDEX withdrawals_balance_idx ON withdrawals (balance_id);

-- ---------------------------------------------------------------- instruments and trading

CREATE TABLE instruments (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name        text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9._-]+$'),  -- EUR_USD
  base        text NOT NULL CHECK (length(base) > 0),
  quote       text NOT NULL CHECK (length(quote) > 0),
  alias       text,
  category    instrument_category NOT NULL,
  tradable    boolean NOT NULL DEFAULT true,
  tradingview text NOT NULL DEFAULT 'OANDA',       -- chart provider prefix
  leverage    integer NOT NULL DEFAULT 0 CHECK (leverage >= 0),
  swap        numeric(9, 4) NOT NULL DEFAULT 0,     -- percent
  -- last known quote, persisted so the book can start warm
  bids        numeric(24, 10) CHECK (bids > 0),
  asks        numeric(24, 10) CHECK (asks > 0),
  digits      smallint NOT NULL DEFAULT 5 CHECK (digits BETWEEN 0 AND 10),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (bids IS NULL OR asks IS NULL OR asks >= bids)
);
CREATE INDEX instruments_category_idx ON instruments (category, id DESC);

CREATE TABLE favorites (
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  instrument_id bigint NOT NULL REFERENCES instruments (id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, instrument_id)
);

CREATE TABLE spreads (
  category instrument_category PRIMARY KEY,
  value    numeric(20, 8) NOT NULL DEFAULT 0 CHECK (value >= 0)
);

CREATE TABLE lot_settings (
  category instrument_category PRIMARY KEY,
  state    lot_state NOT NULL DEFAULT 'amount'
);

CREATE TABLE lot_selector (
  id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  label    text NOT NULL CHECK (length(label) > 0),
  value    numeric(20, 8) NOT NULL CHECK (value > 0),
  position integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX lot_selector_value_key ON lot_selector (value);

CREATE TABLE orders (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id         bigint NOT NULL,
  balance_id      bigint NOT NULL,
  instrument_id   bigint NOT NULL REFERENCES instruments (id),
  type            order_side NOT NULL,
  kind            instrument_category NOT NULL,   -- category at open time
  trade_amount    numeric(24, 8) NOT NULL CHECK (trade_amount > 0),
  lots            numeric(20, 8) CHECK (lots > 0),
  open_rate       numeric(24, 10) NOT NULL CHECK (open_rate > 0),
  close_rate      numeric(24, 10) CHECK (close_rate > 0),
  exchange_rate   numeric(24, 10) NOT NULL DEFAULT 1 CHECK (exchange_rate > 0),  -- quote -> balance currency
  spread          numeric(24, 8) NOT NULL DEFAULT 0 CHECK (spread >= 0),          -- spread cost
  profit          numeric(24, 10) CHECK (profit > 0),   -- take-profit rate
  loss            numeric(24, 10) CHECK (loss > 0),     -- stop-loss rate
  pro_loss        numeric(24, 8),                       -- realised P/L, set at close
  margin_used     numeric(24, 8) NOT NULL CHECK (margin_used >= 0),
  leverage        integer NOT NULL CHECK (leverage > 0),
  close_time      timestamptz,
  close_reason    close_reason,
  closed_by       bigint REFERENCES users (id),
  idempotency_key text,
  created_at      timestamptz NOT NULL DEFAULT now(),   -- open time
  updated_at      timestamptz NOT NULL DEFAULT now(),
  deleted_at      timestamptz,
  CHECK ((close_time IS NULL) = (close_reason IS NULL)),
  CHECK (close_time IS NULL OR (close_rate IS NOT NULL AND pro_loss IS NOT NULL)),
  -- one key checks both the balance and that it is the order's user's
  FOREIGN KEY (balance_id, user_id) REFERENCES balances (id, user_id)
);
CREATE UNIQUE INDEX orders_idempotency_key ON orders (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
-- Orders are the hottest table: every index here is paid on each open and close, so there are
-- only those the lists need. A user's trades come through their balances; the closed list is
-- the primary key read backwards (most orders are closed); time ranges use a BRIN index, which
-- costs next to nothing to keep on an append-mostly table.
CREATE INDEX orders_balance_idx ON orders (balance_id, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX orders_open_idx ON orders (id DESC) WHERE close_time IS NULL AND deleted_at IS NULL;
CREATE INDEX orders_statement_idx ON orders (balance_id, close_time DESC) WHERE close_time IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX orders_created_at_brin ON orders USING brin (created_at);

CREATE TABLE candles (
  instrument_id bigint NOT NULL REFERENCES instruments (id) ON DELETE CASCADE,
  interval      candle_interval NOT NULL,
  ts            timestamptz NOT NULL,   -- bucket start
  open          numeric(24, 10) NOT NULL,
  high          numeric(24, 10) NOT NULL,
  low           numeric(24, 10) NOT NULL,
  close         numeric(24, 10) NOT NULL,
  ticks         integer NOT NULL DEFAULT 0,
  PRIMARY KEY (instrument_id, interval, ts),
  CHECK (low <= open AND low <= close AND high >= open AND high >= close)
);

-- ---------------------------------------------------------------- site, languages, providers

CREATE TABLE languages (
  code       text PRIMARY KEY CHECK (code ~ '^[a-z]{2}(-[A-Za-z]{2,4})?$'),
  name       text NOT NULL CHECK (length(name) > 0),
  position   integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE translations (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  language_code text NOT NULL REFERENCES languages (code) ON DELETE CASCADE ON UPDATE CASCADE,
  key           text NOT NULL CHECK (length(key) BETWEEN 1 AND 500),
  value         text NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (language_code, key)
);
CREATE INDEX translations_list_idx ON translations (language_code, id DESC);

-- One row per settings key, its value validated by that key's zod schema in the app.
-- Secret fields inside the value are encrypted by the app before they are stored.
CREATE TABLE site_settings (
  key        text PRIMARY KEY,
  value      jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by bigint REFERENCES users (id)
);

-- Market-data and telephony providers (docs/specs.md#settings-and-providers); secrets encrypted by the app.
CREATE TABLE api_settings (
  key        api_provider PRIMARY KEY,
  value1     text,
  value2     text,
  value3     text,
  value4     text,
  value5     text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by bigint REFERENCES users (id)
);

-- ---------------------------------------------------------------- KYC, notifications, tracking

CREATE TABLE kyc_documents (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type           kyc_doc_type NOT NULL DEFAULT 'national_id',
  front_path     text,
  back_path      text,
  address_path   text,
  status         kyc_status NOT NULL DEFAULT 'pending',
  decline_reason text,
  decided_by     bigint REFERENCES users (id),
  decided_at     timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX kyc_documents_user_idx ON kyc_documents (user_id, id DESC);
CREATE INDEX kyc_documents_status_idx ON kyc_documents (status, id DESC);
CREATE INDEX kyc_documents_created_at_idx ON kyc_documents (created_at);

CREATE TABLE notifications (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  title       text NOT NULL,
  description text NOT NULL DEFAULT '',
  url         text,
  read_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notifications_user_idx ON notifications (user_id, id DESC);

CREATE TABLE tracking_events (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url        text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tracking_events_user_idx ON tracking_events (user_id, id DESC);

-- ---------------------------------------------------------------- CRM

CREATE TABLE sales_statuses (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  status     text NOT NULL CHECK (length(status) BETWEEN 1 AND 60),
  is_default boolean NOT NULL DEFAULT false,
  color      text NOT NULL DEFAULT '#64748b' CHECK (color ~ '^#[0-9a-fA-F]{6}$'),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX sales_statuses_status_key ON sales_statuses (lower(status));
CREATE UNIQUE INDEX sales_statuses_one_default ON sales_statuses (is_default) WHERE is_default;

CREATE TABLE leads (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  first_name     text NOT NULL DEFAULT '',
  last_name      text NOT NULL DEFAULT '',
  email          text NOT NULL DEFAULT '' CHECK (email = lower(email)),
  phone          text NOT NULL DEFAULT '',
  country        text NOT NULL DEFAULT '',
  city           text NOT NULL DEFAULT '',
  funnel_link    text,
  reference      text,                   -- affiliate reference
  lead_source_id text,
  lead_status    text NOT NULL DEFAULT 'New',
  "group"        lead_group NOT NULL DEFAULT 'sales',
  manager_id     bigint REFERENCES users (id) ON DELETE SET NULL,
  agent_id       bigint REFERENCES users (id) ON DELETE SET NULL,
  ret_id         bigint REFERENCES users (id) ON DELETE SET NULL,  -- retention agent
  affiliate_id   bigint REFERENCES users (id) ON DELETE SET NULL,  -- affiliator
  user_id        bigint REFERENCES users (id) ON DELETE SET NULL,  -- linked customer (a client)
  is_live        boolean NOT NULL DEFAULT false,  -- came in by API / webhook, not typed in
  created_at     timestamptz NOT NULL DEFAULT now(),  -- registered at
  deposited_at   timestamptz,
  ftd_at         timestamptz,
  last_access    timestamptz,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
-- the lists filter by group, status, agent, retention agent, affiliate, client-ness and
-- registration date, and sort by any column
CREATE INDEX leads_group_idx ON leads ("group", id DESC);
CREATE INDEX leads_group_status_idx ON leads ("group", lead_status, id DESC);
CREATE INDEX leads_group_created_idx ON leads ("group", created_at);
CREATE INDEX leads_clients_idx ON leads (id DESC) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX leads_user_id_key ON leads (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX leads_agent_idx ON leads (agent_id, id DESC);
CREATE INDEX leads_ret_idx ON leads (ret_id, id DESC);
CREATE INDEX leads_manager_idx ON leads (manager_id, id DESC);
CREATE INDEX leads_affiliate_idx ON leads (affiliate_id, id DESC);
CREATE INDEX leads_live_idx ON leads (is_live, id DESC);
CREATE INDEX leads_created_at_idx ON leads (created_at);
CREATE INDEX leads_email_idx ON leads (email text_pattern_ops);
CREATE INDEX leads_phone_idx ON leads (phone text_pattern_ops);
CREATE INDEX leads_first_name_idx ON leads (lower(first_name) text_pattern_ops);
CREATE INDEX leads_last_name_idx ON leads (lower(last_name) text_pattern_ops);
CREATE INDEX leads_country_idx ON leads (country);
CREATE INDEX leads_city_idx ON leads (city);
CREATE INDEX leads_status_idx ON leads (lead_status);
CREATE INDEX leads_deposited_at_idx ON leads (deposited_at);
CREATE INDEX leads_ftd_at_idx ON leads (ftd_at);
CREATE INDEX leads_last_access_idx ON leads (last_access);
CREATE INDEX leads_reference_idx ON leads (reference);
CREATE INDEX leads_source_idx ON leads (lead_source_id);
CREATE INDEX leads_funnel_idx ON leads (funnel_link);

CREATE TABLE notes (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  lead_id    bigint NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
  user_id    bigint REFERENCES users (id) ON DELETE SET NULL,  -- author
  content    text NOT NULL CHECK (length(content) BETWEEN 1 AND 5000),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notes_lead_idx ON notes (lead_id, id);

CREATE TABLE teams (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  code       text NOT NULL UNIQUE,
  manager_id bigint NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX teams_manager_idx ON teams (manager_id);

CREATE TABLE team_members (
  team_id bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user_idx ON team_members (user_id);

-- Stored hashed for lookup, and encrypted so the affiliate's page can show it back.
CREATE TABLE affiliate_api_keys (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_hash      text NOT NULL UNIQUE,
  key_encrypted text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  revoked_at    timestamptz
);
CREATE UNIQUE INDEX affiliate_api_keys_one_live ON affiliate_api_keys (user_id) WHERE revoked_at IS NULL;

-- ---------------------------------------------------------------- auth

CREATE TABLE sessions (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_hash      text NOT NULL UNIQUE,   -- sha-256 of the cookie's token
  user_id         bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  impersonator_id bigint REFERENCES users (id) ON DELETE CASCADE,  -- login-as: the staff member
  parent_id       bigint REFERENCES sessions (id) ON DELETE CASCADE, -- login-as: the staff session
  remember        boolean NOT NULL DEFAULT false,
  ip              inet,
  user_agent      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  last_seen_at    timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  revoked_at      timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE revoked_at IS NULL;
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

CREATE TABLE password_reset_tokens (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_reset_tokens_user_idx ON password_reset_tokens (user_id);

CREATE TABLE email_verification_tokens (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_verification_tokens_user_idx ON email_verification_tokens (user_id);

-- Shared by every web process: fixed windows per key (ip or email and action).
CREATE TABLE rate_limits (
  key        text PRIMARY KEY,
  hits       integer NOT NULL,
  reset_at   timestamptz NOT NULL
);
CREATE INDEX rate_limits_reset_idx ON rate_limits (reset_at);

-- Mail written here when no SMTP_URL is set (and always kept as a record).
CREATE TABLE email_outbox (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  to_address text NOT NULL,
  subject    text NOT NULL,
  text_body  text NOT NULL,
  html_body  text,
  sent_at    timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_outbox_to_idx ON email_outbox (to_address, id DESC);

-- ---------------------------------------------------------------- audit

CREATE TABLE audit_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  actor_id    bigint REFERENCES users (id),
  action      text NOT NULL,        -- deposit.approve, order.edit, balance.adjust, auth.login_as, ...
  target_kind text NOT NULL,
  target_id   text,
  before      jsonb,
  after       jsonb,
  ip          inet,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_target_idx ON audit_events (target_kind, target_id, id DESC);
CREATE INDEX audit_events_actor_idx ON audit_events (actor_id, id DESC);
CREATE INDEX audit_events_created_at_idx ON audit_events (created_at);
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Down Migration
-- For development resets only: a real deployment never drops its ledger or audit trail.
DROP TABLE IF EXISTS audit_events, email_outbox, rate_limits, email_verification_tokens, password_reset_tokens,
  sessions, affiliate_api_keys, team_members, teams, notes, leads, sales_statuses, tracking_events, notifications,
  kyc_documents, api_settings, site_settings, translations, languages, candles, orders, lot_selector, lot_settings,
  spreads, favorites, instruments, withdrawals, deposits, external_payments, payment_gateways, withdraw_fee_settings,
  ledger_entries, balances, user_ip_whitelist, profiles, users, promo_codes, pricing_plans CASCADE;
DROP FUNCTION IF EXISTS post_ledger, guard_balance_amount, refuse_change;
DROP TYPE IF EXISTS api_provider, gateway_kind, ledger_kind, candle_interval, lot_state, lead_group, kyc_doc_type,
  kyc_status, money_status, close_reason, order_side, balance_mode, instrument_category;
