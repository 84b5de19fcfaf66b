import { describe, expect, it } from "vitest";
import type { Resolution } from "../../src/net/destination-check.ts";
import { EGRESS_REFUSED_HEADER, type EgressScope } from "../../src/runner/egress-scope.ts";
import { serveJobEgress, type JobEgressDeps } from "../../src/runner/job-egress.ts";

/**
 * The Worker's side of a container's egress (src/runner/job-egress.ts): where a client URL's real
 * destination is checked. The resolver and the network are injected; what reaches `fetch` is what
 * would leave the Worker.
 */
const DNS: Record<string, string[]> = {
  "media.example.com": ["93.184.216.34", "2606:2800:220:1::1"],
  "cdn.example.com": ["93.184.216.35"],
  "sneaky.example.com": ["93.184.216.36", "127.0.0.1"],
  "metadata.example.com": ["169.254.169.254"],
};

function harness(routes: Record<string, (req: Request) => Response>) {
  const fetched: string[] = [];
  const deps: JobEgressDeps = {
    fetch: async (req) => {
      fetched.push(`${req.method} ${req.url}`);
      const route = routes[req.url];
      return route ? route(req) : new Response("not found", { status: 404 });
    },
    resolve: async (host): Promise<Resolution> =>
      DNS[host] ? { addresses: DNS[host] } : { error: "nxdomain", detail: "NXDOMAIN" },
    allowedPrivateHosts: [],
    internal: (_req, url) =>
      url.hostname === "runner-notify.ffjobs.internal" ? Promise.resolve(new Response(null, { status: 204 })) : null,
  };
  return { deps, fetched };
}

const redirect = (to: string) => () => new Response(null, { status: 302, headers: { location: to } });
const media = () => new Response("media bytes", { status: 200 });
const scopeFor = (...urls: string[]): EgressScope => ({
  allow: [
    ...urls.map((url) => ({ method: "GET" as const, url, external: true as const })),
    { method: "POST", url: "http://runner-notify.ffjobs.internal/jobs/j1" },
  ],
  namedHosts: [...new Set(urls.map((u) => new URL(u).hostname))],
});

async function reasonOf(res: Response): Promise<string> {
  expect(res.status).toBe(403);
  expect(res.headers.get(EGRESS_REFUSED_HEADER)).toBe("refused");
  return res.text();
}

describe("a job's egress at the Worker", () => {
  it("fetches a named input whose name resolves to public addresses only", async () => {
    const { deps, fetched } = harness({ "https://media.example.com/clip.mp4": media });
    const res = await serveJobEgress(
      new Request("https://media.example.com/clip.mp4", { headers: { range: "bytes=0-9" } }),
      scopeFor("https://media.example.com/clip.mp4"),
      deps,
    );
    expect(await res.text()).toBe("media bytes");
    expect(fetched).toEqual(["GET https://media.example.com/clip.mp4"]);
  });

  it("refuses, reaching nothing, a name that resolves to any private address, a name that does not resolve, and a private IP literal", async () => {
    const cases: [string, RegExp][] = [
      [
        "http://sneaky.example.com/a.mp4",
        /sneaky\.example\.com resolves to 127\.0\.0\.1, which is not a public address/,
      ],
      ["http://metadata.example.com/latest", /resolves to 169\.254\.169\.254/],
      ["http://nowhere.example.com/a.mp4", /nowhere\.example\.com does not resolve/],
      ["http://10.1.2.3/a.mp4", /10\.1\.2\.3 is not a public address/],
      ["http://[::1]/a.mp4", /::1 is not a public address/],
    ];
    for (const [url, reason] of cases) {
      const { deps, fetched } = harness({});
      expect(await reasonOf(await serveJobEgress(new Request(url), scopeFor(url), deps))).toMatch(reason);
      expect(fetched).toEqual([]);
    }
  });

  it("fails closed when the resolver cannot answer", async () => {
    const { deps, fetched } = harness({});
    deps.resolve = async () => ({ error: "failed", detail: "resolver answered HTTP 502" });
    expect(
      await reasonOf(
        await serveJobEgress(new Request("http://media.example.com/a"), scopeFor("http://media.example.com/a"), deps),
      ),
    ).toMatch(/could not be checked \(resolver answered HTTP 502\)/);
    expect(fetched).toEqual([]);
  });

  it("follows a redirect to another host the job's inputs name, checking it again; the container sees only the final answer", async () => {
    const { deps, fetched } = harness({
      "http://media.example.com/a.mp4": redirect("https://cdn.example.com/a.mp4?sig=1"),
      "https://cdn.example.com/a.mp4?sig=1": media,
    });
    const scope = scopeFor("http://media.example.com/a.mp4", "https://cdn.example.com/other.mp4");
    const res = await serveJobEgress(new Request("http://media.example.com/a.mp4"), scope, deps);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("media bytes");
    expect(fetched).toEqual(["GET http://media.example.com/a.mp4", "GET https://cdn.example.com/a.mp4?sig=1"]);
  });

  it("refuses, without reaching it, a redirect to a host no input names, and one to a named host that resolves privately", async () => {
    const { deps, fetched } = harness({
      "http://media.example.com/a.mp4": redirect("http://elsewhere.example.net/a.mp4"),
    });
    const res = await serveJobEgress(
      new Request("http://media.example.com/a.mp4"),
      scopeFor("http://media.example.com/a.mp4"),
      deps,
    );
    expect(await reasonOf(res)).toMatch(
      /elsewhere\.example\.net: media\.example\.com redirected there, and no input of the job names that host/,
    );
    expect(fetched).toEqual(["GET http://media.example.com/a.mp4"]);

    const second = harness({ "http://media.example.com/a.mp4": redirect("http://sneaky.example.com/a.mp4") });
    const scope = scopeFor("http://media.example.com/a.mp4", "http://sneaky.example.com/b.mp4");
    expect(
      await reasonOf(await serveJobEgress(new Request("http://media.example.com/a.mp4"), scope, second.deps)),
    ).toMatch(/resolves to 127\.0\.0\.1/);
    expect(second.fetched).toEqual(["GET http://media.example.com/a.mp4"]);
  });

  it("sends an upload to the user's destination with its body once the name resolves publicly, refuses a private one, and never follows its redirect", async () => {
    const got: string[] = [];
    const { deps, fetched } = harness({
      "https://media.example.com/bucket/out.mp4?X-Amz-Signature=s": (req) => {
        req.text().then((t) => got.push(t));
        return new Response(null, { status: 200, headers: { etag: '"e1"' } });
      },
      "https://cdn.example.com/bucket/moved.mp4?sig=1": redirect("https://media.example.com/elsewhere.mp4"),
    });
    const scope: EgressScope = {
      allow: [
        { method: "PUT", url: "https://media.example.com/bucket/out.mp4?X-Amz-Signature=s", external: true },
        { method: "PUT", url: "http://sneaky.example.com/bucket/out.mp4", external: true },
        { method: "PUT", url: "https://cdn.example.com/bucket/moved.mp4?sig=1", external: true },
      ],
    };
    const put = (url: string) => serveJobEgress(new Request(url, { method: "PUT", body: "output bytes" }), scope, deps);
    const sent = await put("https://media.example.com/bucket/out.mp4?X-Amz-Signature=s");
    expect(sent.headers.get("etag")).toBe('"e1"');
    await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual(["output bytes"]);
    expect(await reasonOf(await put("http://sneaky.example.com/bucket/out.mp4"))).toMatch(/resolves to 127\.0\.0\.1/);
    // The body went once; a redirect goes back to the runner, which reports it as the destination's answer.
    expect((await put("https://cdn.example.com/bucket/moved.mp4?sig=1")).status).toBe(302);
    expect(fetched).toEqual([
      "PUT https://media.example.com/bucket/out.mp4?X-Amz-Signature=s",
      "PUT https://cdn.example.com/bucket/moved.mp4?sig=1",
    ]);
  });

  it("stops a redirect loop", async () => {
    const { deps, fetched } = harness({ "http://media.example.com/a": redirect("/a") });
    expect(
      await reasonOf(
        await serveJobEgress(new Request("http://media.example.com/a"), scopeFor("http://media.example.com/a"), deps),
      ),
    ).toMatch(/more than 5 redirects/);
    expect(fetched.length).toBe(6);
  });

  it("refuses what the job did not scope, and answers its own made-up hosts without leaving the Worker", async () => {
    const { deps, fetched } = harness({});
    expect(
      await reasonOf(
        await serveJobEgress(
          new Request("http://media.example.com/other.mp4"),
          scopeFor("http://media.example.com/a.mp4"),
          deps,
        ),
      ),
    ).toMatch(/GET media\.example\.com is not one of this job's inputs or outputs/);
    expect(
      (
        await serveJobEgress(
          new Request("http://runner-notify.ffjobs.internal/jobs/j1", { method: "POST" }),
          scopeFor("http://media.example.com/a.mp4"),
          deps,
        )
      ).status,
    ).toBe(204);
    expect(fetched).toEqual([]);
  });

  it("lets an operator's ALLOWED_PRIVATE_HOSTS through", async () => {
    const { deps, fetched } = harness({ "http://10.1.2.3/a.mp4": media });
    deps.allowedPrivateHosts = ["10.1.2.3"];
    expect(
      (await serveJobEgress(new Request("http://10.1.2.3/a.mp4"), scopeFor("http://10.1.2.3/a.mp4"), deps)).status,
    ).toBe(200);
    expect(fetched).toEqual(["GET http://10.1.2.3/a.mp4"]);
  });
});
