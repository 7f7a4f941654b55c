-- Up Migration
-- Two-factor sign-in with an authenticator app (TOTP, docs/specs.md#security-and-two-factor-sign-in).
-- web/app/modules/auth/two-factor.server.ts is the one module that reads and writes these tables.

-- One row per user who started enrolling. secret is the base32 TOTP secret encrypted with
-- SECRETS_KEY (enc:v1:…, engine/src/contract/secrets.ts). enabled_at is set once a code from the
-- app confirmed it; until then the row is a pending enrolment (a new one replaces it).
-- last_step is the time step of the last code accepted: a code is accepted only for a later
-- step, so a code seen once cannot be used again, even inside its window.
CREATE TABLE user_two_factor (
  user_id    bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret     text NOT NULL CHECK (secret LIKE 'enc:v1:%'),
  enabled_at timestamptz,
  last_step  bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Recovery codes: shown once, stored as sha-256 only; each signs in once (used_at).
CREATE TABLE user_recovery_codes (
  id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash text NOT NULL CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  used_at   timestamptz,
  UNIQUE (user_id, code_hash)
);

-- A sign-in whose password was right, waiting for the second factor. The browser holds the
-- token (a short-lived HttpOnly cookie), the table its sha-256. No session exists until a code
-- passes; a challenge is single use, expires after a few minutes and dies after too many
-- wrong codes.
CREATE TABLE login_challenges (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  remember   boolean NOT NULL DEFAULT false,
  ip         inet,
  user_agent text,
  attempts   integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX login_challenges_user_idx ON login_challenges (user_id);
CREATE INDEX login_challenges_expires_idx ON login_challenges (expires_at);

-- Down Migration
DROP TABLE IF EXISTS login_challenges;
DROP TABLE IF EXISTS user_recovery_codes;
DROP TABLE IF EXISTS user_two_factor;
