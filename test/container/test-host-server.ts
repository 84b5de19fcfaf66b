// Runs inside the container suite's network namespace (test-hosts.ts): serves the media fixtures
// over http (80) and https (443, a certificate for every test host name from the suite's own CA),
// and prints each request as a JSON line, so the suite can tell which host was reached. A PUT is taken
// as a destination upload would be (the bytes counted, an ETag answered), so outputs can be sent here.
import http from "node:http";
import https from "node:https";
import { readFileSync } from "node:fs";
import { staticHandler } from "../support/static-server.ts";

const [dir, certFile, keyFile] = process.argv.slice(2);
const handler = staticHandler(dir, (req) => {
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  console.log(JSON.stringify({ scheme, host: req.headers.host ?? "", method: req.method, url: req.url }));
});
const withUploads: http.RequestListener = (req, res) => {
  if (req.method !== "PUT") return handler(req, res);
  let bytes = 0;
  req.on("data", (c: Buffer) => (bytes += c.length));
  req.on("end", () => {
    const scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
    console.log(JSON.stringify({ scheme, host: req.headers.host ?? "", method: "PUT", url: req.url, bytes }));
    res.writeHead(200, { etag: `"${bytes}"` }).end();
  });
};
const plain = http.createServer(withUploads);
const secure = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, withUploads);
let listening = 0;
const ready = () => ++listening === 2 && console.log("ready");
plain.listen(80, "0.0.0.0", ready);
secure.listen(443, "0.0.0.0", ready);
