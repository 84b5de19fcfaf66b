import { isDirectoryFilePath } from "../../storage/directory-files.ts";
import { MAX_DIRECTORY_FILES_LIMIT, OUTPUT_METADATA_MAX_BYTES } from "./row-budget.ts";
import { boundedJson } from "./stored-bytes.ts";

export type OutputRow = {
  id: string;
  job_id: string;
  asset_id: string;
  label: string;
  content_type: string;
  kind: "file" | "directory";
  metadata_json: string | null;
  /** Directory outputs: JSON [{ path, size }] of the stored files; null for files. */
  files_json: string | null;
  main_file: string | null;
  /** A stored file's SHA-256 (hex), as its runner read it; null for directories and older outputs. */
  sha256: string | null;
  created_at: string;
  file_name: string;
  /** The stored file's bytes (a directory's: its files' total), from its asset. */
  size: number;
  object_key: string;
  expires_at: string | null;
};

export type StoredOutput = {
  label: string;
  fileName: string;
  contentType: string;
  objectKey: string;
  size: number;
  metadata: unknown;
  /** Directory outputs: the files stored under the output's prefix, and the one its URL opens. */
  directory?: { files: { path: string; size: number }[]; mainFile: string };
  sha256?: string;
};

/**
 * The statements that record a job's stored outputs as assets of its account, for the same batch as
 * the job's terminal update (after it): they insert only while the job is completed, and re-recording
 * the same label is a no-op, so outputs exist exactly when the job says it completed.
 */
export function recordOutputsStatements(
  db: D1Database,
  job: { id: string; accountId: string },
  outputs: StoredOutput[],
  now: string,
  expiresAt: string,
): D1PreparedStatement[] {
  return outputs.flatMap((o) => {
    const assetId = crypto.randomUUID();
    return [
      db
        .prepare(
          `INSERT INTO assets (id, account_id, origin, job_id, file_name, content_type, size, status, object_key, created_at, expires_at)
           SELECT ?1, ?2, 'output', ?3, ?4, ?5, ?6, 'ready', ?7, ?8, ?10
           WHERE NOT EXISTS (SELECT 1 FROM job_outputs WHERE job_id = ?3 AND label = ?9)
             AND EXISTS (SELECT 1 FROM jobs WHERE id = ?3 AND status = 'completed')`,
        )
        .bind(assetId, job.accountId, job.id, o.fileName, o.contentType, o.size, o.objectKey, now, o.label, expiresAt),
      db
        .prepare(
          `INSERT OR IGNORE INTO job_outputs (id, job_id, asset_id, label, content_type, kind, metadata_json, created_at, files_json, main_file, sha256)
           SELECT ?1, ?2, ?3, ?4, ?5, ?8, ?6, ?7, ?9, ?10, ?11 WHERE EXISTS (SELECT 1 FROM assets WHERE id = ?3)`,
        )
        .bind(
          crypto.randomUUID(),
          job.id,
          assetId,
          o.label,
          o.contentType,
          boundedJson(o.metadata, OUTPUT_METADATA_MAX_BYTES),
          now,
          o.directory ? "directory" : "file",
          o.directory ? JSON.stringify(storedFiles(o.directory.files)) : null,
          o.directory?.mainFile ?? null,
          o.directory || !o.sha256 || !/^[0-9a-f]{64}$/.test(o.sha256) ? null : o.sha256,
        ),
    ];
  });
}

/**
 * A directory's files as its row keeps them (src/jobs/store/row-budget.ts): plain names only, at most
 * MAX_DIRECTORY_FILES_LIMIT of them, as the runner was told (a report of more is not believed).
 */
function storedFiles(files: { path: string; size: number }[]): { path: string; size: number }[] {
  return files
    .filter((f) => isDirectoryFilePath(f.path))
    .slice(0, MAX_DIRECTORY_FILES_LIMIT)
    .map((f) => ({ path: f.path, size: f.size }));
}

export async function listOutputs(db: D1Database, jobIds: string[]): Promise<OutputRow[]> {
  if (jobIds.length === 0) return [];
  return (await listOutputsStatement(db, jobIds).all<OutputRow>()).results;
}

/** `listOutputs` as a statement, to join a batch (one round trip with the job's row). `jobIds` not empty. */
export function listOutputsStatement(db: D1Database, jobIds: string[]): D1PreparedStatement {
  const marks = jobIds.map((_, i) => `?${i + 1}`).join(", ");
  return db
    .prepare(
      `SELECT o.*, a.file_name, a.size, a.object_key, a.expires_at FROM job_outputs o JOIN assets a ON a.id = o.asset_id
       WHERE o.job_id IN (${marks}) AND a.expired_at IS NULL ORDER BY o.created_at, o.label`,
    )
    .bind(...jobIds);
}
