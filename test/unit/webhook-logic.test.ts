import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { generateWebhookSecret, secretPreview, signature, signedHeaders } from "../../src/webhooks/signing.ts";
import { DEFAULT_RETRY_DELAYS_SECONDS, maxAttempts, retryDelaySeconds } from "../../src/webhooks/retry-schedule.ts";
import { webhookUrlProblem } from "../../src/webhooks/webhook-url.ts";

describe("Standard Webhooks signing", () => {
  it("matches the specification's published test vector", async () => {
    const sig = await signature("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}');
    expect(sig).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("produces headers the reference library verifies, one signature per secret", async () => {
    const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
    const body = JSON.stringify({ type: "job.completed" });
    const headers = await signedHeaders([a, b], "evt_1", Math.floor(Date.now() / 1000), body);
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(a).verify(body, headers)).toEqual({ type: "job.completed" });
    expect(new Webhook(b).verify(body, headers)).toEqual({ type: "job.completed" });
    expect(() => new Webhook(a).verify(`${body} `, headers)).toThrow();
  });

  it("previews a secret without revealing it", () => {
    const s = generateWebhookSecret();
    expect(secretPreview(s)).toBe(`whsec_********${s.slice(-4)}`);
  });
});

describe("retry schedule", () => {
  it("follows the documented default, with at most ±10 % jitter, and stops after the last attempt", () => {
    expect(DEFAULT_RETRY_DELAYS_SECONDS).toEqual([5, 60, 300, 1800, 7200, 21600, 43200]);
    expect(maxAttempts(DEFAULT_RETRY_DELAYS_SECONDS)).toBe(8);
    expect(DEFAULT_RETRY_DELAYS_SECONDS.map((_, i) => retryDelaySeconds(i + 1, DEFAULT_RETRY_DELAYS_SECONDS, () => 0.5))).toEqual(DEFAULT_RETRY_DELAYS_SECONDS);
    expect(retryDelaySeconds(2, DEFAULT_RETRY_DELAYS_SECONDS, () => 0)).toBe(54);
    expect(retryDelaySeconds(2, DEFAULT_RETRY_DELAYS_SECONDS, () => 1)).toBe(66);
    expect(retryDelaySeconds(7, DEFAULT_RETRY_DELAYS_SECONDS, () => 1)).toBe(43200);
    expect(retryDelaySeconds(8, DEFAULT_RETRY_DELAYS_SECONDS)).toBeNull();
  });
});

describe("webhook URL policy", () => {
  it.each([
    "http://127.0.0.1/x", "http://127.1/x", "http://2130706433/x", "http://0x7f000001/x", "http://[::1]/x", "http://[::ffff:127.0.0.1]/x",
    "http://169.254.169.254/x", "http://10.0.0.1/x", "http://localhost/x", "http://api.localhost/x", "http://db.internal/x", "http://printer.local/x",
  ])("refuses %s", (url) => {
    expect(webhookUrlProblem(url, [])).toMatch(/private or local/);
  });

  it("allows public targets and operator-named private hosts; refuses credentials and other schemes", () => {
    expect(webhookUrlProblem("https://hooks.example.com/ffjobs", [])).toBeNull();
    expect(webhookUrlProblem("https://93.184.216.34/x", [])).toBeNull();
    expect(webhookUrlProblem("http://127.0.0.1:9000/x", ["127.0.0.1"])).toBeNull();
    expect(webhookUrlProblem("https://u:p@example.com/", [])).toMatch(/credentials/);
    expect(webhookUrlProblem("ftp://example.com/", [])).toMatch(/http/);
  });
});
