// Stands in for `mime-types` in the worker bundle (wrangler.toml [alias]). Only mimetext imports it,
// for the agents SDK's `replyToEmail`, and calls it only to check an attachment's content type
// (`addAttachment`); a reply is a text message (`addMessage`, which checks its type against its own
// list), so it never runs. Leaving it out takes mime-db's table (~130 KiB minified, ~20 KiB gzip) out
// of the bundle. A reply with an attachment would fail here, by name.

/** mime-types' `contentType(typeOrExtension)`: may not be used. */
export function contentType(_type: string): never {
  throw new Error(
    "mime-types is not in the worker bundle (wrangler.toml [alias]): mimetext's attachments need it back",
  );
}
