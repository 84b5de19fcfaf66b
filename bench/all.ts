// npm run bench: the paired small-job comparison (bench/paired.ts), then large inputs on a remote
// origin (bench/big-remote.ts), then a split encode against bare ffmpeg on one core (bench/split-encode.ts);
// then what a quality report costs (bench/quality-cost.ts); each writes its own section of docs/benchmarks.md.
await import("./paired.ts");
await import("./big-remote.ts");
await import("./split-encode.ts");
await import("./quality-cost.ts");
