-- The usage ledger (storage/usage.go): one row per model call, written when
-- the call ends, successful or not. Nothing refers to a document or thread
-- by foreign key: what was spent stays spent when they are deleted.
CREATE TABLE usage_calls (
  id            INTEGER PRIMARY KEY,
  at            TEXT NOT NULL,    -- when the call ended (UTC, timeLayout)
  day           TEXT NOT NULL,    -- the period day it counts in, YYYY-MM-DD (UTC)
  edge          TEXT NOT NULL,    -- agent, auto_create, ui, cli, mcp, system
  thread_id     TEXT NOT NULL DEFAULT '',
  run_id        TEXT NOT NULL DEFAULT '',
  document_id   TEXT NOT NULL DEFAULT '',
  provider      TEXT NOT NULL,
  model         TEXT NOT NULL,
  kind          TEXT NOT NULL,    -- chat, embed
  input_tokens  INTEGER NOT NULL CHECK (input_tokens >= 0),
  output_tokens INTEGER NOT NULL CHECK (output_tokens >= 0),
  cached_tokens INTEGER NOT NULL CHECK (cached_tokens >= 0),
  estimated     INTEGER NOT NULL DEFAULT 0, -- the server reported no counts
  clamped       INTEGER NOT NULL DEFAULT 0, -- the server's counts were impossible
  duration_ms   INTEGER NOT NULL CHECK (duration_ms >= 0),
  outcome       TEXT NOT NULL,    -- ok, or the error's code
  cost_usd      REAL              -- NULL: the price is unknown
);
CREATE INDEX usage_calls_at ON usage_calls (at);

-- The summaries' and the limits' source: usage_calls rolled up as each row
-- is written, per day, model and edge (usage_days), and per auto-create run
-- and day (usage_runs), so that a year of a busy ledger sums over some
-- thousand rows, not a million.
CREATE TABLE usage_days (
  day            TEXT NOT NULL,
  provider       TEXT NOT NULL,
  model          TEXT NOT NULL,
  edge           TEXT NOT NULL,
  calls          INTEGER NOT NULL,
  input_tokens   INTEGER NOT NULL,
  output_tokens  INTEGER NOT NULL,
  cached_tokens  INTEGER NOT NULL,
  cost_usd       REAL NOT NULL,    -- of the priced calls
  unpriced_calls INTEGER NOT NULL, -- calls whose price is unknown
  duration_ms    INTEGER NOT NULL,
  PRIMARY KEY (day, provider, model, edge)
) WITHOUT ROWID;
CREATE TABLE usage_runs (
  run_id         TEXT NOT NULL,
  day            TEXT NOT NULL,
  calls          INTEGER NOT NULL,
  input_tokens   INTEGER NOT NULL,
  output_tokens  INTEGER NOT NULL,
  cached_tokens  INTEGER NOT NULL,
  cost_usd       REAL NOT NULL,
  unpriced_calls INTEGER NOT NULL,
  duration_ms    INTEGER NOT NULL,
  PRIMARY KEY (run_id, day)
) WITHOUT ROWID;
-- The runs active since a day, without reading the older ones.
CREATE INDEX usage_runs_day ON usage_runs (day, run_id);

-- What the limits check: each day's and month's spending, hosted and local
-- apart, kept as each call is recorded, so that the check before a call
-- reads four rows.
CREATE TABLE usage_periods (
  period   TEXT NOT NULL,    -- a day, 2026-11-28, or a month, 2026-11
  local    INTEGER NOT NULL, -- 1: local models' (Ollama), 0: hosted ones'
  tokens   INTEGER NOT NULL, -- input plus output
  cost_usd REAL NOT NULL,    -- of the priced calls
  PRIMARY KEY (period, local)
) WITHOUT ROWID;

-- Calls under way: what each may spend at most, held against the limits
-- until the call ends. A reservation of a process that died expires.
CREATE TABLE usage_reservations (
  id         INTEGER PRIMARY KEY,
  day        TEXT NOT NULL,
  counted    INTEGER NOT NULL, -- counts against the limits' scope
  tokens     INTEGER NOT NULL,
  cost_usd   REAL NOT NULL,
  expires_at TEXT NOT NULL
);

-- The latest time any usage was recorded at: a clock that moves backwards
-- does not take the periods back with it.
CREATE TABLE usage_clock (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  latest TEXT NOT NULL
);
