/**
 * The isomorphic-git commands (./git-commands.ts), loaded on a feature repository's first git call
 * instead of at the worker's startup; the module system keeps the one copy.
 * @example
 * const { readBlob } = await loadGit();
 */
export const loadGit = () => import("./git-commands");
