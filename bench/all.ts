// npm run bench: the paired small-job comparison (bench/paired.ts), then large inputs on a remote
// origin (bench/big-remote.ts); each writes its own section of docs/benchmarks.md.
await import("./paired.ts");
await import("./big-remote.ts");
