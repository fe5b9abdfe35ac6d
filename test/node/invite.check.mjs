// People, not tokens, through a real local stack (wrangler dev) with the real CLI: `pantheon invite
// ana --scope approve` prints a one-time sign-in link and its QR code; redeeming the link's code over
// HTTP (as the PWA does, no bearer token) gives a token named ana with the approve scope, whose
// approval is recorded as ana's; a chat invite cannot approve; the link works once; `tokens list`
// says whose device a token is and `tokens delete` signs it out. Prints `N passed, N failed` last.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { qrModules } from "../../core/invites/qr.ts";
import { makeCall, makeChecks, makeCli } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-invite-"));
const { check, finish } = makeChecks();
const call = makeCall(token);

/** `pantheon <args>`, URL and token from the `env` given. */
const cli = makeCli({ project: "", cwd: persistTo, configHome: join(persistTo, "config"), input: "" });
const shown = (r) => JSON.stringify({ code: r.code, stdout: r.stdout.slice(0, 1200), stderr: r.stderr.slice(0, 800) });

/**
 * The module grid a terminal QR code (half blocks, light as block) stands for, without its quiet
 * zone: what a scanner would read off the screen.
 */
function gridOf(text) {
  const lines = text.split("\n").filter((l) => /^[█▀▄ ]+$/.test(l) && l.includes("█"));
  const rows = [];
  for (const line of lines) {
    const chars = [...line];
    rows.push(chars.map((c) => c === " " || c === "▄")); // top half dark
    rows.push(chars.map((c) => c === " " || c === "▀")); // bottom half dark
  }
  const darkRows = rows.map((r, i) => (r.some(Boolean) ? i : -1)).filter((i) => i >= 0);
  const darkCols = rows[0] ? rows[0].map((_, c) => (rows.some((r) => r[c]) ? c : -1)).filter((c) => c >= 0) : [];
  if (!darkRows.length || !darkCols.length) return [];
  const [top, bottom, left, right] = [darkRows[0], darkRows.at(-1), darkCols[0], darkCols.at(-1)];
  return rows.slice(top, bottom + 1).map((r) => r.slice(left, right + 1));
}

let server;
try {
  server = await startDevServer({ port: await freePort(), token, persistTo });
  const env = { PANTHEON_URL: server.url, PANTHEON_TOKEN: token };
  const run = (...args) => cli(args, { env });
  const redeem = (code, device) =>
    fetch(`${server.url}/api/invites/redeem`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code, ...(device ? { device } : {}) }),
    }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => null) }));

  // --- the invite: a link and its QR code ------------------------------------------------------
  const invited = await run("invite", "ana", "--scope", "approve");
  const link = new RegExp(`(${server.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/#/join/([A-Za-z0-9_-]{43}))`).exec(
    invited.stdout,
  );
  check(
    "pantheon invite ana --scope approve prints a one-time sign-in link to this server",
    invited.code === 0 && link !== null && invited.stdout.includes("Invited ana (scope approve)"),
    shown(invited),
  );
  const [url, code] = [link?.[1] ?? "", link?.[2] ?? ""];
  const grid = gridOf(invited.stdout);
  const expected = qrModules(url);
  check(
    "it prints the link's QR code as text blocks: the grid on screen is the QR code of that exact link",
    grid.length === expected.length &&
      grid.length >= 21 &&
      grid.every((row, y) => row.length === expected.length && row.every((dark, x) => dark === expected[y][x])),
    `grid ${grid.length}×${grid[0]?.length ?? 0}, expected ${expected.length}: ${shown(invited)}`,
  );
  const listed = await run("invite", "list");
  check(
    "pantheon invite list shows the invite waiting, without its code",
    listed.code === 0 && /ana\s+approve/.test(listed.stdout) && !listed.stdout.includes(code),
    shown(listed),
  );

  // --- the phone opens the link: its own token, named ana, scope approve -----------------------
  const signed = await redeem(code, "Ana's phone");
  check(
    "redeeming the link's code over HTTP (no bearer token) gives a token named ana with the approve scope",
    signed.status === 201 &&
      /^pt_/.test(signed.body?.token ?? "") &&
      signed.body?.name === "ana" &&
      signed.body?.person === "ana" &&
      signed.body?.scope === "approve",
    JSON.stringify(signed),
  );
  const again = await redeem(code);
  check(
    "the link works once: a second redeem answers 410 saying it was used",
    again.status === 410 && /already used/.test(again.body?.error?.message ?? ""),
    JSON.stringify(again),
  );

  await call(server.url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({
      name: "gated",
      description: "Asks before it reads the clock",
      runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] },
    }),
  });
  const asAna = makeCall(signed.body?.token ?? "none");
  const sent = await asAna(server.url, "/api/agents/gated/messages", {
    method: "POST",
    body: JSON.stringify({ content: "/tool clock.now {}" }),
  });
  check(
    "ana's message is recorded under her name",
    sent.status === 200 && sent.body?.status === "waiting_approval" && sent.body?.userMessage?.name === "ana",
    JSON.stringify(sent),
  );
  const decided = await asAna(server.url, `/api/agents/gated/runs/${sent.body?.runId}/approval`, {
    method: "POST",
    body: JSON.stringify({ decision: "approve" }),
  });
  const run1 = await call(server.url, `/api/agents/gated/runs/${sent.body?.runId}`);
  const approval = run1.body?.trace?.find((s) => s.name === "approval")?.data;
  check(
    "ana's token decides an approval (approve scope) and the run records ana, not a token",
    decided.status === 200 && approval?.approved === true && approval?.by === "ana",
    JSON.stringify({ decided, approval }),
  );

  // --- a chat invite cannot approve (the same request ana just made) ----------------------------
  const chatInvite = JSON.parse((await run("invite", "bea", "--json")).stdout || "{}");
  const bea = await redeem(chatInvite.code);
  const waiting = await call(server.url, "/api/agents/gated/messages", {
    method: "POST",
    body: JSON.stringify({ content: "/tool clock.now {}" }),
  });
  const refused = await makeCall(bea.body?.token ?? "none")(
    server.url,
    `/api/agents/gated/runs/${waiting.body?.runId}/approval`,
    { method: "POST", body: JSON.stringify({ decision: "approve" }) },
  );
  check(
    "an invite without --scope is chat: that person's approval is refused (403 naming the scope)",
    chatInvite.scope === "chat" &&
      bea.status === 201 &&
      refused.status === 403 &&
      /'approve' scope/.test(refused.body?.error?.message ?? ""),
    JSON.stringify({ chatInvite: chatInvite.scope, refused }),
  );

  // --- whose device, and signing it out ---------------------------------------------------------
  const tokens = await run("tokens", "list");
  check(
    "pantheon tokens list says whose device each token is",
    tokens.code === 0 &&
      /ana\s+approve\s+ana \(Ana's phone\)/.test(tokens.stdout) &&
      tokens.stdout.includes(signed.body?.id ?? "?"),
    shown(tokens),
  );
  const revoked = await run("tokens", "delete", signed.body?.id ?? "none");
  const after = await asAna(server.url, "/api/agents");
  check(
    "pantheon tokens delete signs that device out (its token answers 401)",
    revoked.code === 0 && after.status === 401,
    JSON.stringify({ revoked: shown(revoked), after: after.status }),
  );

  // --- the address the phone opens, and mistakes ------------------------------------------------
  const public_ = await run("invite", "cy", "--origin", "https://pantheon.example.com/ignored", "--expires", "2h");
  check(
    "--origin puts the phone's address in the link; --expires sets how long it works",
    public_.code === 0 && /https:\/\/pantheon\.example\.com\/#\/join\/[A-Za-z0-9_-]{43}/.test(public_.stdout),
    shown(public_),
  );
  const mistakes = await Promise.all([
    run("invite"),
    run("invite", "ana", "--scope", "root"),
    run("invite", "ana", "--expires", "soon"),
  ]);
  check(
    "usage mistakes exit 2 saying what is allowed (no name, a wrong scope, a wrong duration)",
    mistakes.every((m) => m.code === 2) &&
      mistakes[1].stderr.includes("--scope is one of chat, approve, admin") &&
      mistakes[2].stderr.includes("30m, 24h or 7d"),
    mistakes.map(shown).join(" "),
  );
  const reserved = await run("invite", "admin");
  check(
    "a name the server refuses exits 1 naming the field",
    reserved.code === 1 && /name: 'admin' is the deployment's admin token/.test(reserved.stderr),
    shown(reserved),
  );
} catch (error) {
  check("the invite check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}

finish();
