// TLS interception as cloudflare/proxy-everything tls.go does it (`-tls-intercept`, which workerd
// always passes): an ephemeral ECDSA P-256 CA made at start (served at `GET /ca`; workerd writes
// it into the app container at /etc/cloudflare/certs/cloudflare-containers-ca.crt), and a leaf per
// SNI name, minted on first use and cached (the cache is cleared past 512 names): CN and DNS SAN =
// the SNI, valid from an hour ago for 24 hours, digitalSignature + keyEncipherment, serverAuth,
// served with the CA in the chain. Go's crypto/x509 is not at hand here, so openssl mints them.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import tls from "node:tls";
import { Duplex } from "node:stream";
import type net from "node:net";

const MAX_CACHED_LEAVES = 512;
const CA_SUBJECT = "/CN=Cloudflare TLS proxy-everything Intercept CA (ffjobs lab double)";

export type Interceptor = { caPem: string; terminate: (app: net.Socket, peeked: Buffer) => tls.TLSSocket };

function openssl(args: string[]): void {
  execFileSync("openssl", args, { stdio: ["ignore", "ignore", "inherit"] });
}

/** Upstream `createCA`: 30 days, keyCertSign + cRLSign, basicConstraints CA. */
function createCa(dir: string): { cert: string; key: string } {
  mkdirSync(dir, { recursive: true });
  const cert = join(dir, "ca.crt");
  const key = join(dir, "ca.key");
  openssl([
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "30",
    "-keyout",
    key,
    "-out",
    cert,
    "-subj",
    CA_SUBJECT,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  return { cert, key };
}

/** Upstream `mintCert`; a name that could not be put in a certificate gets no leaf (handshake fails). */
function mintLeaf(dir: string, ca: { cert: string; key: string }, sni: string): tls.SecureContext {
  if (!/^[a-z0-9.-]{1,253}$/i.test(sni)) throw new Error(`no leaf for SNI ${JSON.stringify(sni)}`);
  const base = join(dir, `leaf-${sni}`);
  writeFileSync(
    `${base}.ext`,
    `subjectAltName=DNS:${sni}\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
  );
  openssl([
    "req",
    "-new",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    `${base}.key`,
    "-out",
    `${base}.csr`,
    "-subj",
    `/CN=${sni}`,
  ]);
  openssl([
    "x509",
    "-req",
    "-in",
    `${base}.csr`,
    "-CA",
    ca.cert,
    "-CAkey",
    ca.key,
    "-set_serial",
    `0x${randomBytes(16).toString("hex")}`,
    "-days",
    "1",
    "-extfile",
    `${base}.ext`,
    "-out",
    `${base}.crt`,
  ]);
  return tls.createSecureContext({
    key: readFileSync(`${base}.key`),
    cert: readFileSync(`${base}.crt`, "utf8") + readFileSync(ca.cert, "utf8"),
  });
}

/** A stream that yields the bytes already read from `socket`, then the rest of it. */
function replaying(socket: net.Socket, peeked: Buffer): Duplex {
  const duplex = new Duplex({
    read: () => void socket.resume(),
    write: (chunk, _enc, done) => void socket.write(chunk, done),
    final: (done) => {
      socket.end();
      done();
    },
    destroy: (err, done) => {
      socket.destroy();
      done(err);
    },
  });
  duplex.push(peeked);
  socket.on("data", (chunk) => {
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.on("end", () => duplex.push(null));
  socket.on("error", (err) => duplex.destroy(err));
  return duplex;
}

export function startInterceptor(dir: string): Interceptor {
  const ca = createCa(dir);
  const leaves = new Map<string, tls.SecureContext>();
  const contextFor = (sni: string) => {
    let ctx = leaves.get(sni);
    if (!ctx) {
      if (leaves.size > MAX_CACHED_LEAVES) leaves.clear();
      ctx = mintLeaf(dir, ca, sni);
      leaves.set(sni, ctx);
    }
    return ctx;
  };
  return {
    caPem: readFileSync(ca.cert, "utf8"),
    terminate(app, peeked) {
      return new tls.TLSSocket(replaying(app, peeked), {
        isServer: true,
        SNICallback: (name, cb) => {
          try {
            cb(null, contextFor(name));
          } catch (err) {
            cb(err as Error);
          }
        },
      });
    },
  };
}
