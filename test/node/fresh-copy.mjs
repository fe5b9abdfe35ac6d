// A fresh copy of the checkout, as a clone of what would be committed: what git tracks plus
// untracked files not ignored, timestamps kept (scripts/with-node22.sh reinstalls only when
// package-lock.json is newer than node_modules), node_modules linked to this checkout's to stay
// fast. For the checks that run the README's commands and `npm start` as a newcomer would, with
// their .dev.vars and .wrangler state in the copy, not in the checkout.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "./memory-harness.mjs";

/**
 * @example
 * const copy = freshCopy("pantheon-start-");
 * try { spawnSync("npm", ["start"], { cwd: copy.dir }); } finally { copy.remove(); }
 */
export function freshCopy(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  const files = listed.stdout
    .split("\0")
    .filter((f) => f && existsSync(join(root, f)) && statSync(join(root, f)).isFile());
  for (const file of files) cpSync(join(root, file), join(dir, file), { preserveTimestamps: true });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
