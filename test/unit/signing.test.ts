import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { generateWebhookSecret, secretPreview, signature, signedHeaders } from "../../src/webhooks/signing.ts";

describe("Standard Webhooks signing", () => {
  it("matches the specification's published test vector", async () => {
    const sig = await signature(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330,
      '{"test": 2432232314}',
    );
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
