-- Webhooks: per-account signing secrets (with the previous one kept during a rotation), and the
-- delivery log: one row per event sent to a URL, one row per attempt.

CREATE TABLE webhook_secrets (
  account_id TEXT PRIMARY KEY REFERENCES accounts(id),
  secret TEXT NOT NULL,
  created_at TEXT NOT NULL,
  previous_secret TEXT,
  previous_expires_at TEXT
);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  job_id TEXT,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  url TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_account_order ON webhook_deliveries (account_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id);

CREATE TABLE webhook_attempts (
  id TEXT PRIMARY KEY,
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
  attempted_at TEXT NOT NULL,
  http_status INTEGER,
  error_kind TEXT,
  latency_ms INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempted_at);
