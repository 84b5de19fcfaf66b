import { z } from "zod";
import { getSecrets, signingSecrets } from "../../webhooks/secret-store.ts";
import { signedHeaders } from "../../webhooks/signing.ts";
import { checksOfRow } from "../checks/stored-checks.ts";
import { deliveredOutputsOf } from "../store/delivered-outputs.ts";
import type { JobRow } from "../store/job-row.ts";
import type { OutputRow } from "../store/output-store.ts";

/**
 * A finished job's receipt: what it published (each file's SHA-256 and size) and what was proven about
 * it (each output's check results), as JSON text signed the way the account's webhooks are (Standard
 * Webhooks, with its webhook secret), so a system downstream can verify what it was handed without
 * calling back: `new Webhook(secret).verify(receipt.payload, receipt.headers)` (docs/api.md, Receipts).
 */
export const receiptSchema = z.object({
  payload: z.string().describe("The signed JSON text (a `job.receipt`): verify it as it is, then parse it."),
  headers: z
    .object({ "webhook-id": z.string(), "webhook-timestamp": z.string(), "webhook-signature": z.string() })
    .describe("Standard Webhooks headers over `payload`, timestamped when the job finished: the same at every read."),
});
export type Receipt = z.infer<typeof receiptSchema>;

/** What a receipt's payload says (its JSON text): the same text at every read of the finished job. */
export function receiptPayload(row: JobRow, outputs: OutputRow[]) {
  const checks = checksOfRow(row);
  return {
    type: "job.receipt",
    job: {
      id: row.id,
      status: row.status,
      errorCode: row.error_code,
      finishedAt: row.finished_at,
      runtimeSeconds: row.runtime_seconds,
      creditsCharged: row.credits_charged,
    },
    outputs: outputs
      .filter((o) => o.job_id === row.id)
      .map((o) => ({
        label: o.label,
        fileName: o.file_name,
        contentType: o.content_type,
        kind: o.kind,
        size: o.size,
        sha256: o.sha256,
        checks: checks[o.label] ?? [],
      })),
    deliveredOutputs: deliveredOutputsOf(row.delivered_json).map((d) => ({
      label: d.label,
      url: d.url,
      size: d.size,
      sha256: d.sha256,
      checks: checks[d.label] ?? [],
    })),
    // A job failed by its checks publishes nothing: what was measured is here.
    checks,
  };
}

/**
 * Signed as of the job's end, not of the read: the same receipt at every read (one to keep and compare),
 * and not a fresh message a webhook endpoint of the account would take as just sent (a Standard Webhooks
 * receiver refuses one over 5 minutes old). So `verify()` takes it only within 5 minutes of the job's
 * end; later it is checked by its signature alone (docs/api.md; the client's `verifyReceipt`).
 */
export async function jobReceipt(db: D1Database, row: JobRow, outputs: OutputRow[], now: Date): Promise<Receipt> {
  const payload = JSON.stringify(receiptPayload(row, outputs));
  const secrets = signingSecrets(await getSecrets(db, row.account_id, now));
  const signedAt = Math.floor(Date.parse(row.finished_at ?? row.updated_at) / 1000);
  const headers = await signedHeaders(secrets, `rcpt_${row.id}`, signedAt, payload);
  return { payload, headers: headers as Receipt["headers"] };
}
