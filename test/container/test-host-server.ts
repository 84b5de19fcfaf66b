// Runs inside the container suite's network namespace (test-hosts.ts): serves the media fixtures
// over http (80) and https (443, a certificate for every test host name from the suite's own CA),
// and prints each request as a JSON line, so the suite can tell which host was reached.
import http from "node:http";
import https from "node:https";
import { readFileSync } from "node:fs";
import { staticHandler } from "../support/static-server.ts";

const [dir, certFile, keyFile] = process.argv.slice(2);
const handler = staticHandler(dir, (req) => {
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  console.log(JSON.stringify({ scheme, host: req.headers.host ?? "", method: req.method, url: req.url }));
});
const plain = http.createServer(handler);
const secure = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, handler);
let listening = 0;
const ready = () => ++listening === 2 && console.log("ready");
plain.listen(80, "0.0.0.0", ready);
secure.listen(443, "0.0.0.0", ready);
