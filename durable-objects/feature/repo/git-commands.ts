// The isomorphic-git commands and the zip writer the feature repository uses, in one module that
// repository.ts and repo-api.ts load with `import()` on their first git call (./load-git.ts), not at
// startup: isomorphic-git and what it pulls in (pako, sha.js, crc-32, ignore and their Buffer
// polyfills) were about a fifth of the worker's startup CPU (`npm run bench -- bundle`), paid by
// every isolate, although only a feature object that touches its repository needs them.
// Named exports only: the package marks itself side-effect free, so the bundle keeps just these.
export {
  clone,
  currentBranch,
  findMergeBase,
  init,
  isDescendent,
  listBranches,
  log,
  packObjects,
  push,
  readBlob,
  readCommit,
  readTree,
  resolveRef,
  writeBlob,
  writeCommit,
  writeTree,
} from "isomorphic-git";
export { strToU8, zipSync } from "fflate";
export { guardUploadPack, readCapped, remoteAnswerLimit } from "./pack-guard";
