import { describe, expect, it } from "vitest";
import { webhookUrlProblem } from "../../src/webhooks/webhook-url.ts";

describe("webhook URL policy", () => {
  it.each([
    "http://127.0.0.1/x",
    "http://127.1/x",
    "http://2130706433/x",
    "http://0x7f000001/x",
    "http://[::1]/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://169.254.169.254/x",
    "http://10.0.0.1/x",
    "http://localhost/x",
    "http://api.localhost/x",
    "http://db.internal/x",
    "http://printer.local/x",
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
