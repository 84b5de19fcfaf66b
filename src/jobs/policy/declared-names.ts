import type { DeclaredNames } from "./argument-policy.ts";

/**
 * Which names a command may read (`-i`, ffprobe's input) and write (output positions). Scratch files
 * are both. In a multi-step job a step may also read the outputs earlier steps wrote (if none did,
 * ffmpeg says the file does not exist). The API and the runner check with the same names.
 */
export function declaredNames(
  inputs: string[],
  outputs: string[],
  scratch: string[],
  multiStep: boolean,
  directories: string[] = [],
): DeclaredNames {
  return {
    directories: new Set(directories),
    inputs: new Set([...inputs, ...scratch, ...(multiStep ? outputs : [])]),
    outputs: new Set([...outputs, ...scratch]),
    scratch: new Set(scratch),
  };
}
