import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A throwaway certificate authority and a server certificate it signed (for 127.0.0.1 unless other
 * subject alternative names are given), made with the openssl CLI: what a TLS-intercepting proxy
 * (Cloudflare's, in production) or an HTTPS origin presents.
 */
export function makeTestCa(altNames = ["IP:127.0.0.1"]): { dir: string; caFile: string; cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "ffjobs-test-ca-"));
  const f = (name: string) => join(dir, name);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      ...ec,
      "-keyout",
      f("ca.key"),
      "-out",
      f("ca.pem"),
      "-days",
      "2",
      "-subj",
      "/CN=ffjobs test interception CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ],
    { stdio: "ignore" },
  );
  execFileSync(
    "openssl",
    ["req", ...ec, "-keyout", f("leaf.key"), "-out", f("leaf.csr"), "-subj", `/CN=${altNames[0].replace(/^\w+:/, "")}`],
    { stdio: "ignore" },
  );
  writeFileSync(
    f("leaf.ext"),
    `subjectAltName=${altNames.join(",")}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`,
  );
  execFileSync(
    "openssl",
    [
      "x509",
      "-req",
      "-in",
      f("leaf.csr"),
      "-CA",
      f("ca.pem"),
      "-CAkey",
      f("ca.key"),
      "-CAcreateserial",
      "-out",
      f("leaf.pem"),
      "-days",
      "2",
      "-extfile",
      f("leaf.ext"),
    ],
    { stdio: "ignore" },
  );
  return {
    dir,
    caFile: f("ca.pem"),
    cert: readFileSync(f("leaf.pem"), "utf8"),
    key: readFileSync(f("leaf.key"), "utf8"),
  };
}
