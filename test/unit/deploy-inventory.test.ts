import { mkdtempSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { discover, DeployError } from "../../scripts/deploy/inventory.ts";
import { executePlan } from "../../scripts/deploy/execute.ts";
import { dashboardOrigins, deployTargetsFromOutput } from "../../scripts/deploy/cors.ts";
import { D1_DATABASE, QUEUES, R2_BUCKET, WORKER_NAME } from "../../scripts/deploy/resources.ts";
import type { RunWrangler } from "../../scripts/deploy/run-wrangler.ts";
import type { Step } from "../../scripts/deploy/plan.ts";

const ACCOUNT = "0123456789abcdef0123456789abcdef";
const ok = (stdout: string) => ({ status: 0, stdout, stderr: "" });
const fail = (stderr: string) => ({ status: 1, stdout: "", stderr });

/** A wrangler double answering as wrangler 4.156 prints, for an account with the given resources. */
function fakeWrangler(
  has: { buckets: string[]; queues: string[]; worker: boolean },
  calls: string[][] = [],
): RunWrangler {
  return (args, opts) => {
    calls.push([...args, `account=${opts?.env?.CLOUDFLARE_ACCOUNT_ID ?? "-"}`]);
    const cmd = args.slice(0, 2).join(" ");
    if (cmd === "whoami --json") return ok(JSON.stringify({ loggedIn: true, accounts: [{ id: ACCOUNT, name: "Me" }] }));
    if (cmd === "d1 list") return ok(JSON.stringify([{ uuid: "u1", name: "unrelated" }]));
    if (cmd === "r2 bucket")
      return ok(
        `Listing buckets...\n${has.buckets.map((b) => `name:           ${b}\ncreation_date:  2026-01-01T00:00:00.000Z`).join("\n\n")}\n`,
      );
    if (cmd === "queues info")
      return has.queues.includes(args[2])
        ? ok(`Queue Name: ${args[2]}\n`)
        : fail(`✘ [ERROR] Queue "${args[2]}" does not exist. To create it, run: wrangler queues create ${args[2]}`);
    if (cmd === "secret list")
      return has.worker
        ? ok(`[{"name":"R2_ACCESS_KEY_ID","type":"secret_text"}]`)
        : fail(`✘ [ERROR] Worker "ffjobs" not found.`);
    throw new Error(`unexpected wrangler ${args.join(" ")}`);
  };
}

describe("reading what exists", () => {
  it("lists before creating: a fresh account has none of ffjobs' resources, every call names the account", () => {
    const calls: string[][] = [];
    const inv = discover(fakeWrangler({ buckets: ["photos"], queues: [], worker: false }, calls), undefined);
    expect(inv).toEqual({
      accountId: ACCOUNT,
      databases: ["unrelated"],
      buckets: ["photos"],
      queues: [],
      secrets: [],
      workerExists: false,
    });
    expect(calls.slice(1).every((c) => c.at(-1) === `account=${ACCOUNT}`)).toBe(true);
    expect(calls.map((c) => c.slice(0, -1).join(" "))).toEqual([
      "whoami --json",
      "d1 list --json",
      "r2 bucket list",
      ...QUEUES.map((q) => `queues info ${q}`),
      "secret list --format json",
    ]);
  });

  it("finds a deployed Worker's bucket, queues and secrets", () => {
    const inv = discover(fakeWrangler({ buckets: [R2_BUCKET], queues: [...QUEUES], worker: true }), ACCOUNT);
    expect(inv).toMatchObject({
      buckets: [R2_BUCKET],
      queues: [...QUEUES],
      secrets: ["R2_ACCESS_KEY_ID"],
      workerExists: true,
    });
  });

  it("stops with what to do: not logged in, several accounts, a listing that fails for another reason", () => {
    const base = fakeWrangler({ buckets: [], queues: [], worker: false });
    expect(() => discover((a, o) => (a[0] === "whoami" ? fail("not authenticated") : base(a, o)), undefined)).toThrow(
      /npx wrangler login/,
    );
    const two = JSON.stringify({
      accounts: [
        { id: ACCOUNT, name: "A" },
        { id: "f".repeat(32), name: "B" },
      ],
    });
    expect(() => discover((a, o) => (a[0] === "whoami" ? ok(two) : base(a, o)), undefined)).toThrow(
      /2 accounts; choose one with CLOUDFLARE_ACCOUNT_ID/,
    );
    expect(() => discover(base, "not-an-id")).toThrow(DeployError);
    expect(() =>
      discover((a, o) => (a[0] === "queues" ? fail("Authentication error [code: 10000]") : base(a, o)), undefined),
    ).toThrow(/queues info ffjobs-jobs failed.*Authentication error/s);
  });
});

describe("running a plan", () => {
  it("stops at a failed step but still runs the steps marked always; a secrets file is gone after its step", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-exec-"));
    const secret = join(dir, "s.json");
    const ran: string[] = [];
    const steps: Step[] = [
      { kind: "wrangler", why: "a", args: ["deploy"], files: [{ path: secret, content: "{}", secret: true }] },
      { kind: "smoke", why: "b", url: "http://x", apiKey: "k" },
      { kind: "wrangler", why: "c", args: ["not-run"] },
      { kind: "wrangler", why: "d", args: ["revoke"], always: true },
    ];
    const wrangler: RunWrangler = (args, opts) => {
      ran.push(`${args[0]}@${opts?.env?.CLOUDFLARE_ACCOUNT_ID}${existsSync(secret) ? " (secret file present)" : ""}`);
      return ok("");
    };
    const smoke = async () => {
      ran.push("smoke");
      throw new Error("smoke failed");
    };
    await expect(
      executePlan(steps, { wrangler, smoke, buildDashboard: () => {}, log: () => {}, accountId: ACCOUNT }),
    ).rejects.toThrow("smoke failed");
    expect(ran).toEqual([`deploy@${ACCOUNT} (secret file present)`, "smoke", `revoke@${ACCOUNT}`]);
    expect(existsSync(secret)).toBe(false);
  });
});

describe("the Worker's origin for the bucket's CORS rule", () => {
  it("comes from wrangler's output file (workers.dev) plus --origin", () => {
    const ndjson = [
      JSON.stringify({ type: "wrangler-session", version: 1 }),
      JSON.stringify({
        type: "deploy",
        targets: ["https://ffjobs.me.workers.dev", "example.com/* (zone name: example.com)"],
      }),
    ].join("\n");
    expect(dashboardOrigins(deployTargetsFromOutput(ndjson), ["https://app.example.com/dashboard/"])).toEqual([
      "https://ffjobs.me.workers.dev",
      "https://app.example.com",
    ]);
  });
});

describe("wrangler.toml", () => {
  const toml = readFileSync(resolve(import.meta.dirname, "../../wrangler.toml"), "utf8");
  it("names the resources the deploy creates, and holds no account-specific id", () => {
    expect(toml).toMatch(new RegExp(`^name = "${WORKER_NAME}"$`, "m"));
    expect(toml).toMatch(new RegExp(`binding = "${D1_DATABASE.binding}"\\ndatabase_name = "${D1_DATABASE.name}"`));
    expect(toml).not.toMatch(/^database_id/m);
    expect(toml).toMatch(new RegExp(`bucket_name = "${R2_BUCKET}"`));
    const queues = new Set([...toml.matchAll(/^(?:queue|dead_letter_queue) = "([^"]+)"$/gm)].map((m) => m[1]));
    expect([...queues].sort()).toEqual([...QUEUES].sort());
  });

  it("lets a running job finish on a rollout, and keeps logs", () => {
    const grace = Number(toml.match(/^rollout_active_grace_period = (\d+)$/m)?.[1]);
    const jobLimit = Number(toml.match(/^JOB_TIMEOUT_SECONDS = "(\d+)"$/m)?.[1]);
    expect(grace).toBeGreaterThan(jobLimit);
    expect(toml).toMatch(/\[observability\]\nenabled = true/);
    expect(toml).toMatch(/^observability = \{ logs = \{ enabled = true \} \}$/m);
  });
});
