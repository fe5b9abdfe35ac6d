// A git smart-HTTP server on loopback for tests: the real `git http-backend` behind a node:http CGI
// wrapper, asking for `token` as the HTTP basic password, plus forge pull-request API stand-ins
// (GitHub under /api, GitHub Enterprise, Gitea and GitLab: see `forges`). Used by the workerd tests (vitest.config.ts starts it: GIT_REMOTE_URL)
// and the Node check test/node/feature-repo.check.mjs.
import { execFile, spawn } from "node:child_process";
import { access, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** `git <args>` in `cwd` with a fixed identity: { code, stdout, stderr }. */
export function gitCli(args, cwd, env = process.env) {
  return new Promise((resolve) => {
    execFile(
      "git",
      args,
      {
        cwd,
        env: {
          ...env,
          GIT_TERMINAL_PROMPT: "0",
          GIT_AUTHOR_NAME: "Alice",
          GIT_AUTHOR_EMAIL: "alice@example.com",
          GIT_COMMITTER_NAME: "Alice",
          GIT_COMMITTER_EMAIL: "alice@example.com",
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The forge API stand-ins: GitHub at /api (and GitHub Enterprise at /ghe/api/v3), Gitea at
 * /gitea/api/v1 (GitHub's shape, `token` auth), GitLab at /gitlab/api/v4 (merge requests). Each
 * answers with a URL naming the path it was asked on, so a test in workerd sees where it went.
 */
const forges = [
  {
    path: /^(\/ghe\/api\/v3|\/api)\/repos\/[^/]+\/[^/]+\/pulls$/,
    scheme: "Bearer",
    answer: (p) => ({ number: 7, html_url: `https://github.example${p}/7` }),
  },
  {
    path: /^\/gitea\/api\/v1\/repos\/[^/]+\/[^/]+\/pulls$/,
    scheme: "token",
    answer: (p) => ({ number: 8, html_url: `https://gitea.example${p}/8` }),
  },
  {
    path: /^\/gitlab\/api\/v4\/projects\/[^/]+\/merge_requests$/,
    scheme: "Bearer",
    answer: (p) => ({ iid: 9, web_url: `https://gitlab.example${p}/9` }),
  },
];

/**
 * Starts the server. `repo(name, files)` makes a bare repository `<name>.git` (e.g. "acme/app") with
 * one commit of `files` on main and answers that commit's sha; `seen` records every request.
 */
export async function startGitServer({ token }) {
  const work = await mkdtemp(join(tmpdir(), "pantheon-git-server-"));
  const root = join(work, "remotes");
  const seen = { git: [], pulls: [] };
  const server = createServer(async (req, res) => {
    // A client that hangs up early (the worker refusing a pack over its limit, or a refused token)
    // is what some checks provoke: a write to its closed socket is no error of the double's, and an
    // unhandled EPIPE there ended the whole check process (seen on a loaded machine).
    req.socket.on("error", () => {});
    res.on("error", () => {});
    const url = new URL(req.url, "http://x");
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const auth = req.headers.authorization ?? "";
    const forge = forges.find((f) => f.path.test(url.pathname));
    if (forge) {
      seen.pulls.push({ path: url.pathname, auth, body: JSON.parse(body.toString() || "{}") });
      const ok = auth === `${forge.scheme} ${token}`;
      res.writeHead(ok ? 201 : 401, { "content-type": "application/json" });
      res.end(JSON.stringify(ok ? forge.answer(url.pathname) : { message: "Bad credentials" }));
      return;
    }
    const password = auth.startsWith("Basic ")
      ? Buffer.from(auth.slice(6), "base64").toString().split(":").slice(1).join(":")
      : "";
    seen.git.push({
      method: req.method,
      path: url.pathname,
      service: url.searchParams.get("service"),
      authorized: password === token,
    });
    if (password !== token) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="git"' });
      res.end("token needed\n");
      return;
    }
    // /zeros/<n>mb.git: made on its first request (a file of n MB of zeros, committed with real git).
    const zeros = /^\/zeros\/(\d+)mb\.git\//.exec(url.pathname);
    if (zeros) await zerosRepo(`zeros/${zeros[1]}mb`, Number(zeros[1]) * 1024 * 1024);
    const cgi = spawn("git", ["http-backend"], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        REMOTE_USER: "pantheon",
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method,
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        CONTENT_LENGTH: String(body.length),
        HTTP_CONTENT_ENCODING: req.headers["content-encoding"] ?? "",
        GIT_PROTOCOL: req.headers["git-protocol"] ?? "",
      },
    });
    cgi.stdin.on("error", () => {}); // git may exit before reading a body it refuses
    cgi.stdin.end(body);
    const out = [];
    for await (const chunk of cgi.stdout) out.push(chunk);
    const raw = Buffer.concat(out);
    const crlf = raw.indexOf("\r\n\r\n");
    const split = crlf >= 0 ? crlf : raw.indexOf("\n\n");
    const headers = {};
    let status = 200;
    for (const line of raw.subarray(0, split).toString().split(/\r?\n/)) {
      const [name, ...rest] = line.split(":");
      if (name.toLowerCase() === "status") status = Number(rest.join(":").trim().split(" ")[0]);
      else if (name) headers[name] = rest.join(":").trim();
    }
    res.writeHead(status, headers);
    res.end(raw.subarray(split + (crlf >= 0 ? 4 : 2)));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  // The test runner's process may end with it still listening.
  server.unref();
  const url = `http://127.0.0.1:${server.address().port}`;

  async function repo(name, files) {
    const bare = join(root, `${name}.git`);
    const seed = join(work, `seed-${name.replace(/\W/g, "-")}`);
    await gitCli(["init", "--bare", "-b", "main", bare], work);
    await gitCli(["config", "http.receivepack", "true"], bare);
    await gitCli(["init", "-b", "main", seed], work);
    for (const [path, content] of Object.entries(files)) await writeFile(join(seed, path), content);
    await gitCli(["add", "."], seed);
    await gitCli(["commit", "-m", "Start the app"], seed);
    await gitCli(["push", bare, "main"], seed);
    return (await gitCli(["rev-parse", "main"], seed)).stdout.trim();
  }

  const making = new Map();
  /**
   * A bare repository `<name>.git` whose one commit holds `zeros.bin`, `bytes` of zeros (made with
   * `dd`: a few hundred KB packed, `bytes` unpacked), and `app.txt`; made once, answers its sha.
   */
  function zerosRepo(name, bytes) {
    if (!making.has(name))
      making.set(
        name,
        (async () => {
          const bare = join(root, `${name}.git`);
          if (
            await access(bare).then(
              () => true,
              () => false,
            )
          )
            return "";
          const seed = join(work, `seed-${name.replace(/\W/g, "-")}`);
          await gitCli(["init", "-b", "main", seed], work);
          await writeFile(join(seed, "app.txt"), "hello\n");
          await new Promise((resolve, reject) =>
            execFile(
              "dd",
              ["if=/dev/zero", `of=${join(seed, "zeros.bin")}`, "bs=1048576", `count=${Math.ceil(bytes / 1048576)}`],
              (error) => (error ? reject(error) : resolve()),
            ),
          );
          await gitCli(["add", "."], seed);
          await gitCli(["commit", "-m", "Add zeros"], seed);
          await gitCli(["init", "--bare", "-b", "main", bare], work);
          await gitCli(["push", bare, "main"], seed);
          await rm(seed, { recursive: true, force: true });
          return (await gitCli(["rev-parse", "main"], bare)).stdout.trim();
        })(),
      );
    return making.get(name);
  }

  return { url, root, work, seen, repo, zerosRepo, close: () => new Promise((resolve) => server.close(resolve)) };
}
