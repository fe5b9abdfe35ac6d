// Stands in for `@babel/runtime-corejs3/core-js/instance/trim` in the worker bundle (wrangler.toml
// [alias]). mimetext calls it as `trim(address).call(address)` on a string, to trim a mailbox address
// (the agents SDK's `replyToEmail`); workerd's own String.prototype.trim does that, so core-js's
// polyfill and its ~40 support modules (~5 KiB gzip) stay out of the bundle.

/** core-js's `instance/trim`: the trim method to call on `it`. */
export default function trim(it: { trim: () => string }): () => string {
  return it.trim;
}
