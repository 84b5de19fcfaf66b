// The docker CLI wrangler runs (WRANGLER_DOCKER_BIN), for the offline lab. Debian's docker.io has
// no buildx and Docker Hub is out of reach, so: `build` drops buildx's --load/--provenance and uses
// the legacy builder; `pull` of an image that is already present succeeds without the network.
// Everything else goes to the real docker unchanged.
import { spawnSync } from "node:child_process";

const DOCKER = process.env.FFJOBS_LAB_REAL_DOCKER || "/usr/bin/docker";
const BUILDX_ONLY_FLAGS = new Set(["--load", "--provenance=false"]);

function run(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  return spawnSync(DOCKER, args, { stdio: "inherit", env }).status ?? 1;
}

const args = process.argv.slice(2);
if (args[0] === "build") {
  process.exit(
    run(
      args.filter((a) => !BUILDX_ONLY_FLAGS.has(a)),
      { ...process.env, DOCKER_BUILDKIT: "0" },
    ),
  );
}
if (args[0] === "pull") {
  const image = args.slice(1).find((a, i, all) => !a.startsWith("-") && all[i - 1] !== "--platform");
  if (image && spawnSync(DOCKER, ["image", "inspect", image], { stdio: "ignore" }).status === 0) process.exit(0);
}
process.exit(run(args));
