-- An MCP tool call that created a job, by a hash of the client's session and the call's JSON-RPC id
-- (src/mcp/mcp-calls.ts): a client's notifications/cancelled for the call arrives in another request,
-- and finds here the job to cancel. `canceled` with no job records a cancellation that came first.
CREATE TABLE mcp_calls (
  account_id TEXT NOT NULL,
  call_key TEXT NOT NULL,
  job_id TEXT,
  canceled INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  PRIMARY KEY (account_id, call_key)
);
CREATE INDEX mcp_calls_created ON mcp_calls (created_at);
-- The cancellations still waiting for their jobs, counted per account against their limit.
CREATE INDEX mcp_calls_early ON mcp_calls (account_id) WHERE job_id IS NULL;
