// Grants per grantee on a real local stack (wrangler dev): the owner's script (the DSL, pushed with
// the real `pantheon script push`) grants its `vault` source by default (to its connections) and
// its `plans` source to one named agent. A connected agent reads the vault, a stranger listing it
// gets nothing and finds the refusal in its own run's trace; the named agent reads the plans the
// connected one may not. Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks, makeCli, makeProjectCall } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-grants-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 800);

/** `pantheon <args>` as an operator runs it (the real CLI in a child process). */
const cli = makeCli({
  url: () => server.url,
  token,
  project: "",
  cwd: persistTo,
  configHome: join(persistTo, "config"),
});

let server;
try {
  server = await startDevServer({ port: await freePort(), token, persistTo });
  const projectCall = makeProjectCall(server.url);
  const call = (path, init) => projectCall(token, undefined, path, init);
  const json = (value) => ({ method: "PUT", body: JSON.stringify(value) });
  const say = (agent, content) =>
    call(`/api/agents/${agent}/messages`, { method: "POST", body: JSON.stringify({ content }) });
  /** The trace of the agent's newest finished run (its record is written just after the reply). */
  const lastTrace = async (agent) => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const last = (await call(`/api/agents/${agent}/runs?limit=1`)).body?.runs?.[0];
      if (last?.finishedAt) return (await call(`/api/agents/${agent}/runs/${last.id}`)).body.trace;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return [];
  };

  // Agents first, so the owner's script may connect to `friend`; `named` and `stranger` stay unconnected.
  for (const name of ["friend", "named", "stranger"])
    await call(`/api/agents/${name}/script`, json({ name, description: "A reader", talents: [] }));
  const ownerScript = join(persistTo, "owner.pnth");
  await writeFile(
    ownerScript,
    `(actor "owner" (description "Keeps the vault")
  (context (source "vault" :label "Vault" :description "How to open the vault") (source "plans" :label "Plans"))
  (connections "friend")
  (grants "vault" (grant "plans" :to ["named"])))
`,
  );
  const pushed = await cli(["script", "push", "owner", ownerScript]);
  check(
    "pantheon script push takes the owner's script with labelled sources and a named grant",
    pushed.code === 0,
    shown(pushed),
  );
  for (const [source, text] of [
    ["vault", "The vault combination is 31-47-09."],
    ["plans", "The launch plan moves to the harbour at dawn."],
  ]) {
    const added = await call(`/api/agents/owner/sources/${source}/documents`, {
      method: "POST",
      body: JSON.stringify({ title: source, text }),
    });
    check(`the owner's ${source} document is stored`, added.status === 201, shown(added.body));
  }
  for (const name of ["friend", "named", "stranger"])
    await call(
      `/api/agents/${name}/script`,
      json({ name, description: "A reader", talents: [], contextSources: ["owner/vault", "owner/plans"] }),
    );

  const friendTurn = await say("friend", "What is the vault combination?");
  const friendTrace = await lastTrace("friend");
  check(
    "friend, connected to the owner, gets the vault in its context (positive control)",
    friendTurn.status === 200 && friendTurn.text.includes("31-47-09"),
    shown(friendTurn.body),
  );
  check(
    "friend's run names the plans grant it is not on",
    friendTrace.some(
      (s) =>
        s.name === "source_refused" &&
        s.data.source === "owner/plans" &&
        s.data.reason.includes("not named by the grant"),
    ),
    shown(friendTrace),
  );

  const strangerTurn = await say("stranger", "What is the vault combination?");
  const strangerTrace = await lastTrace("stranger");
  check(
    "stranger, not connected, gets nothing of the vault",
    strangerTurn.status === 200 && !strangerTurn.text.includes("31-47-09"),
    shown(strangerTurn.body),
  );
  check(
    "stranger's run traces the refusal: the source and why",
    strangerTrace.some(
      (s) =>
        s.name === "source_refused" &&
        s.data.source === "owner/vault" &&
        s.data.reason.includes("agent 'stranger' is not connected with 'owner'"),
    ),
    shown(strangerTrace),
  );

  const namedTurn = await say("named", "Where does the launch plan move?");
  check(
    "named, the plans grant's grantee, reads the plans though not connected",
    namedTurn.status === 200 && namedTurn.text.includes("harbour"),
    shown(namedTurn.body),
  );
  const friendPlans = await say("friend", "Where does the launch plan move?");
  check(
    "friend may not read the plans",
    friendPlans.status === 200 && !friendPlans.text.includes("harbour"),
    shown(friendPlans.body),
  );

  await say("named", "/tool context.sources {}");
  const listed = JSON.stringify(await lastTrace("named"));
  check(
    "context.sources shows named the plans with their label, and not the vault",
    listed.includes('\\"source\\":\\"owner/plans\\",\\"label\\":\\"Plans\\"') &&
      !listed.includes('owner/vault\\",\\"label'),
    listed.slice(0, 800),
  );
} catch (error) {
  check("the check ran to its end", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}
finish();
