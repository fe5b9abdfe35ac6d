// The `pantheon` CLI's operator commands against a real local stack (wrangler dev), each through
// the real binary in a child process: agents export and import, projects, tokens with scopes,
// doctor, login (the config file and its mode), logout, and the refusals (unknown agent, wrong
// token, unreachable server: exits 1 and 3). An agent's own commands are cli.check.mjs; the stack
// and the CLI runner both use are in cli-stack.mjs. Prints `N passed, N failed` as the last line.
//
// The project and interop routes (`project …`, `agents export|import`) are the shared contract's;
// where this server answers 404 "no route" for them, those checks print `skip` with the reason
// instead of failing, so they turn on by themselves once the routes exist.
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "../../scripts/dev-server.mjs";
import { parsed, runCliChecks, shown } from "./cli-stack.mjs";

await runCliChecks(
  "CLI admin check",
  async ({ check, checkOrSkip, cli, run, api, call, server, token, persistTo, configHome }) => {
    // What the checks act on: scout (exported, listed with a fresh token and after login) and helper
    // (deleted last), made through the API; cli.check.mjs checks making them with the CLI.
    for (const agent of [
      { name: "scout", description: "Finds things", systemPrompt: "You are Scout. The launch code word is pineapple." },
      { name: "helper", description: "Helps" },
    ]) {
      const made = await call(server.url, "/api/agents", { method: "POST", body: JSON.stringify(agent) });
      if (made.status !== 201)
        throw new Error(`creating ${agent.name} answered ${made.status}: ${JSON.stringify(made.body)}`);
    }

    // --- agents export / import (contract) -------------------------------------------------------
    const agentExport = await run("agents", "export", "scout", "--format", "anthropic");
    checkOrSkip(
      "agents export --format anthropic prints a Messages configuration",
      agentExport,
      agentExport.code === 0 && typeof parsed(agentExport)?.system === "string",
    );
    const openAiConfig = join(persistTo, "openai-agent.json");
    await writeFile(
      openAiConfig,
      JSON.stringify({ instructions: "You answer in haiku.", model: "gpt-4o-mini", tools: [] }),
    );
    const agentImport = await run("agents", "import", openAiConfig, "--format", "openai", "--name", "poet");
    checkOrSkip(
      "agents import --format openai makes an agent",
      agentImport,
      agentImport.code === 0 && agentImport.stdout.includes("poet"),
    );

    // --- projects (contract) ---------------------------------------------------------------------
    const projectCreate = await run("project", "create", "acme", "--title", "Acme");
    checkOrSkip(
      "project create makes a project",
      projectCreate,
      projectCreate.code === 0 && projectCreate.stdout.includes("Created project acme"),
    );
    const projectList = await run("project", "list", "--json");
    checkOrSkip(
      "project list shows it with its agent count",
      projectList,
      parsed(projectList)?.projects?.some((p) => p.slug === "acme" && p.agents === 0),
    );
    const projectFile = join(persistTo, "agents.json");
    await writeFile(
      projectFile,
      JSON.stringify({
        agents: {
          main: { name: "Main Agent", description: "Routes work", tools: [], connections: ["airtable"] },
          airtable: { name: "Airtable", description: "Airtable access", tools: ["airtable.py"], connections: [] },
        },
      }),
    );
    const projectImport = await run("project", "import", projectFile, "--project", "acme");
    checkOrSkip(
      "project import creates every agent and warns about tools Pantheon does not provide",
      projectImport,
      projectImport.code === 0 &&
        projectImport.stdout.includes("2 created") &&
        projectImport.stderr.includes("airtable.py"),
    );
    const reimport = await run("project", "import", projectFile, "--project", "acme");
    checkOrSkip(
      "a second project import changes nothing and says so",
      reimport,
      reimport.code === 0 && reimport.stdout.includes("Nothing changed"),
    );
    const badProject = join(persistTo, "bad-agents.json");
    await writeFile(badProject, JSON.stringify({ agents: { main: { name: 5 } } }));
    const refusedImport = await run("project", "import", badProject, "--project", "acme");
    checkOrSkip(
      "a bad project file is refused whole (exit 1) with the path of each problem",
      refusedImport,
      refusedImport.code === 1 && /agents\.main/.test(refusedImport.stderr),
    );
    const projectExport = await run("project", "export", "--project", "acme");
    checkOrSkip(
      "project export prints the project file",
      projectExport,
      projectExport.code === 0 && Boolean(parsed(projectExport)?.agents?.main),
    );
    const undeleted = await run("project", "delete", "acme");
    check(
      "project delete without --yes is a usage error (exit 2)",
      undeleted.code === 2 && undeleted.stderr.includes("--yes"),
      shown(undeleted),
    );
    const projectDelete = await run("project", "delete", "acme", "--yes");
    checkOrSkip(
      "project delete --yes deletes it",
      projectDelete,
      projectDelete.code === 0 && projectDelete.stdout.includes("Deleted project acme"),
    );

    // --- tokens with scopes ------------------------------------------------------------------------
    const token2 = await run("tokens", "create", "ci");
    const issued = /\n\s+(pt_\S+)/.exec(token2.stdout)?.[1];
    const withIssued = issued
      ? await cli(["agents", "list"], { env: { PANTHEON_URL: server.url, PANTHEON_TOKEN: issued } })
      : { code: -1, stdout: "", stderr: "" };
    check(
      "tokens create prints a token that works",
      token2.code === 0 && withIssued.code === 0 && withIssued.stdout.includes("scout"),
      `${shown(token2)} ${shown(withIssued)}`,
    );
    const chatOnly = issued
      ? await cli(["agents", "create", "intruder"], { env: { PANTHEON_URL: server.url, PANTHEON_TOKEN: issued } })
      : { code: -1, stdout: "", stderr: "" };
    check(
      "a chat-scoped token (the default) cannot create agents: exit 1 naming the scope needed",
      chatOnly.code === 1 && chatOnly.stderr.includes("'admin' scope"),
      shown(chatOnly),
    );
    const adminToken = await run("tokens", "create", "ops", "--scope", "admin");
    const listedScopes = await run("tokens", "list");
    check(
      "tokens create --scope admin makes an admin token; tokens list shows each scope",
      adminToken.stdout.includes("scope admin") &&
        /ci\s+chat/.test(listedScopes.stdout) &&
        /ops\s+admin/.test(listedScopes.stdout),
      `${shown(adminToken)} ${shown(listedScopes)}`,
    );
    const badScope = await run("tokens", "create", "x", "--scope", "root");
    check(
      "an unknown scope is a usage error naming the scopes (exit 2)",
      badScope.code === 2 && badScope.stderr.includes("chat, approve, admin"),
      shown(badScope),
    );
    const opsId = (await api("/api/tokens")).tokens?.find((t) => t.name === "ops")?.id;
    const deleted = await run("tokens", "delete", opsId ?? "missing");
    check(
      "tokens delete removes a token",
      deleted.code === 0 && !(await api("/api/tokens")).tokens?.some((t) => t.name === "ops"),
      shown(deleted),
    );

    // --- doctor ------------------------------------------------------------------------------------
    const doctor = await run("doctor", "--json");
    check(
      "doctor --json prints the report; its exit code follows ok",
      typeof parsed(doctor)?.ok === "boolean" && doctor.code === (parsed(doctor)?.ok ? 0 : 1),
      shown(doctor),
    );

    // --- login: the config file, its mode, and commands without flags --------------------------------
    const loggedIn = await cli(["login", "--url", server.url, "--token", token]);
    const configFile = join(configHome, "pantheon", "config.json");
    const mode = await stat(configFile)
      .then((s) => s.mode & 0o777)
      .catch(() => -1);
    const saved = JSON.parse(await readFile(configFile, "utf8").catch(() => "{}"));
    check(
      "login checks the token, saves URL and token to $XDG_CONFIG_HOME/pantheon/config.json with mode 0600",
      loggedIn.code === 0 && mode === 0o600 && saved.url === server.url && saved.token === token,
      `${shown(loggedIn)} mode=${mode.toString(8)}`,
    );
    const afterLogin = await cli(["agents", "list"]);
    check(
      "after login, commands need no --url or --token",
      afterLogin.code === 0 && afterLogin.stdout.includes("scout"),
      shown(afterLogin),
    );
    const otherServer = await cli(["agents", "list"], {
      env: { PANTHEON_URL: `http://127.0.0.1:${await freePort()}` },
    });
    check(
      "the saved token is never sent to another server (and an unreachable server exits 3)",
      otherServer.code === 3,
      shown(otherServer),
    );
    const wrongLogin = await cli(["login", "--url", server.url, "--token", "wrong"]);
    const keptToken = JSON.parse(await readFile(configFile, "utf8").catch(() => "{}")).token;
    check(
      "login with a wrong token is refused (exit 1) and the saved login stays",
      wrongLogin.code === 1 && wrongLogin.stderr.includes("token was refused") && keptToken === token,
      shown(wrongLogin),
    );
    const pipedLogin = await cli(["login", "--url", server.url], { input: `${token}\n` });
    check(
      "login reads a piped token from stdin",
      pipedLogin.code === 0 && pipedLogin.stdout.includes("Logged in"),
      shown(pipedLogin),
    );
    const logout = await cli(["logout"]);
    const afterLogout = await cli(["agents", "list"], { env: { PANTHEON_URL: server.url } });
    check(
      "logout forgets the login; the server then refuses (exit 1, no token)",
      logout.code === 0 && afterLogout.code === 1 && afterLogout.stderr.includes("No token found"),
      `${shown(logout)} ${shown(afterLogout)}`,
    );

    // --- refusals and reachability ---------------------------------------------------------------
    const missing = await run("history", "nobody");
    check(
      "an unknown agent exits 1 with the API's message",
      missing.code === 1 && /nobody/.test(missing.stderr),
      shown(missing),
    );
    const refused = await cli(["agents", "list"], { env: { PANTHEON_URL: server.url, PANTHEON_TOKEN: "wrong" } });
    check(
      "a wrong token exits 1 and says the token was refused",
      refused.code === 1 && refused.stderr.includes("token was refused"),
      shown(refused),
    );
    const closed = await freePort();
    const unreachable = await cli(["agents", "list"], {
      env: { PANTHEON_URL: `http://127.0.0.1:${closed}`, PANTHEON_TOKEN: token },
    });
    check(
      "an unreachable URL exits 3 saying so and how to start the server",
      unreachable.code === 3 &&
        unreachable.stderr.includes(`not reachable at http://127.0.0.1:${closed}`) &&
        unreachable.stderr.includes("npm start"),
      shown(unreachable),
    );

    const deletedAgent = await run("agents", "delete", "helper");
    check(
      "agents delete deletes the agent",
      deletedAgent.code === 0 && !(await api("/api/agents")).agents?.some((a) => a.name === "helper"),
      shown(deletedAgent),
    );
  },
);
