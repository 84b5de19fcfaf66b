// Asking for the R2 token in a terminal, the secret without echo.
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import type { Ask } from "./credentials.ts";

export function terminalAsk(): Ask | undefined {
  if (!process.stdin.isTTY) return undefined;
  return (question, hidden) =>
    new Promise((resolve) => {
      let muted = false;
      // Echo goes through this stream: once the question is printed, a hidden answer prints nothing.
      const output = new Writable({
        write: (chunk, _enc, done) => (muted ? done() : process.stderr.write(chunk, () => done())),
      });
      const rl = createInterface({ input: process.stdin, output, terminal: true });
      rl.question(question, (answer) => {
        rl.close();
        if (hidden) process.stderr.write("\n");
        resolve(answer);
      });
      muted = hidden;
    });
}
