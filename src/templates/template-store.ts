import { MAX_TEMPLATE_VERSIONS, MAX_TEMPLATES_PER_ACCOUNT } from "./template-limits.ts";

/** A template's version as D1 keeps it. */
export type TemplateRow = {
  account_id: string;
  name: string;
  version: number;
  description: string | null;
  variables_json: string;
  job_json: string;
  created_at: string;
};

export type TemplateContent = { description: string | null; variablesJson: string; jobJson: string };

/*
 * Each write is one guarded statement: a name taken, an account at its limit, a template deleted
 * meanwhile all make it insert nothing, and the caller says which.
 */

/** Version 1 of a new template, as stored; null when the name is taken or the account has its MAX_TEMPLATES_PER_ACCOUNT. */
export function insertTemplate(db: D1Database, accountId: string, name: string, c: TemplateContent, now: Date) {
  return db
    .prepare(
      `INSERT OR IGNORE INTO job_templates (account_id, name, version, description, variables_json, job_json, created_at)
       SELECT ?1, ?2, 1, ?3, ?4, ?5, ?6
       WHERE NOT EXISTS (SELECT 1 FROM job_templates WHERE account_id = ?1 AND name = ?2)
         AND (SELECT COUNT(DISTINCT name) FROM job_templates WHERE account_id = ?1) < ?7
       RETURNING *`,
    )
    .bind(accountId, name, c.description, c.variablesJson, c.jobJson, now.toISOString(), MAX_TEMPLATES_PER_ACCOUNT)
    .first<TemplateRow>();
}

/** The next version of an existing template, as stored (the oldest past MAX_TEMPLATE_VERSIONS dropped); null when there is none. */
export async function insertTemplateVersion(
  db: D1Database,
  accountId: string,
  name: string,
  c: TemplateContent,
  now: Date,
) {
  const row = await db
    .prepare(
      `INSERT OR IGNORE INTO job_templates (account_id, name, version, description, variables_json, job_json, created_at)
       SELECT ?1, ?2, MAX(version) + 1, ?3, ?4, ?5, ?6 FROM job_templates WHERE account_id = ?1 AND name = ?2
       HAVING COUNT(*) > 0
       RETURNING *`,
    )
    .bind(accountId, name, c.description, c.variablesJson, c.jobJson, now.toISOString())
    .first<TemplateRow>();
  if (!row) return null;
  await db
    .prepare("DELETE FROM job_templates WHERE account_id = ?1 AND name = ?2 AND version <= ?3")
    .bind(accountId, name, row.version - MAX_TEMPLATE_VERSIONS)
    .run();
  return row;
}

/** A template's newest version, or the one asked for; null when there is none. */
export function readTemplate(db: D1Database, accountId: string, name: string, version?: number) {
  return db
    .prepare(
      `SELECT * FROM job_templates WHERE account_id = ?1 AND name = ?2 AND (?3 IS NULL OR version = ?3)
       ORDER BY version DESC LIMIT 1`,
    )
    .bind(accountId, name, version ?? null)
    .first<TemplateRow>();
}

/** The account's templates (each its newest version), by name, after `afterName`. */
export async function listTemplates(db: D1Database, accountId: string, afterName: string, limit: number) {
  const { results } = await db
    .prepare(
      `SELECT t.account_id, t.name, t.version, t.description, t.variables_json, '{}' AS job_json, t.created_at
       FROM job_templates t
       WHERE t.account_id = ?1 AND t.name > ?2
         AND t.version = (SELECT MAX(version) FROM job_templates WHERE account_id = ?1 AND name = t.name)
       ORDER BY t.name LIMIT ?3`,
    )
    .bind(accountId, afterName, limit + 1)
    .all<TemplateRow>();
  return { rows: results.slice(0, limit), more: results.length > limit };
}

/** Deletes every version; false when there was none. */
export async function deleteTemplate(db: D1Database, accountId: string, name: string): Promise<boolean> {
  const r = await db
    .prepare("DELETE FROM job_templates WHERE account_id = ?1 AND name = ?2")
    .bind(accountId, name)
    .run();
  return r.meta.changes > 0;
}
