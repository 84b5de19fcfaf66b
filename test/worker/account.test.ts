import { describe, expect, it } from "vitest";
import { api, createAccount, nullOutputJob as job } from "./helpers.ts";

describe("GET /v1/account", () => {
  it("says the balance, the credits used and the jobs by status", async () => {
    const { key: own } = await createAccount(100);
    await api(own, "POST", "/v1/jobs", job({}));
    const { body } = await api(own, "GET", "/v1/account");
    expect(body).toMatchObject({ creditBalance: 100, creditsUsed: 0 });
    expect(Object.values(body.jobsByStatus).reduce((a: number, b) => a + (b as number), 0)).toBe(1);
  });
});
