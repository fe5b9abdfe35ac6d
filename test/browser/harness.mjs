// Shared pieces of the browser specs: one Chromium per spec file, a fresh profile each time.
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";

export const BASE_URL = process.env.PANTHEON_BASE_URL ?? "http://127.0.0.1:8787";
export const TOKEN = process.env.PANTHEON_TOKEN ?? "dev-admin-token";
export const SHOTS = resolve(process.env.PANTHEON_SCREENSHOTS ?? "test-results/screenshots");
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

const require = createRequire(import.meta.url);

/**
 * Launches Chromium with a throwaway profile; `close()` removes it. `args` adds switches (a fake
 * camera), `permissions` grants the origin's (["camera"]).
 */
export async function launch({ viewport = PHONE, colorScheme = "light", args = [], permissions = [] } = {}) {
  const profile = await mkdtemp(join(tmpdir(), "pantheon-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // The fresh --user-data-dir is `profile`: Playwright insists on passing it itself.
      ...args,
    ],
    permissions,
    viewport,
    colorScheme,
    baseURL: BASE_URL,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Launches Chromium (as `launch`) already signed in: the token is put where the app keeps it, the
 * way a returning person arrives. Sign-in itself is a spec's subject (chat.spec.mjs uses `signIn`).
 * `reload: false` leaves the page as it was before the token was stored.
 * @example
 * const b = await launchSignedIn({ viewport: PHONE });
 * await b.page.goto(`/#/agents/${agent}/chat`);
 */
export async function launchSignedIn({ reload = true, token = TOKEN, ...options } = {}) {
  const b = await launch(options);
  await b.page.goto("/");
  await b.page.evaluate((t) => localStorage.setItem("pantheon.token", t), token);
  if (reload) await b.page.reload();
  return b;
}

/** Calls the API directly (setup that is not what the spec is about). */
export async function api(path, init = {}) {
  const res = await fetch(BASE_URL + path, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...(init.headers ?? {}) },
  });
  const text = await res.text();
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

export async function createAgent(name, extra = {}) {
  const res = await api("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name, description: "Made by a browser test", ...extra }),
  });
  if (res.status !== 201 && res.status !== 409)
    throw new Error(`creating ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const uniqueName = (prefix) => `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Signs in through the form, like a person would. */
export async function signIn(page, token = TOKEN) {
  await page.goto("/#/agents");
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export async function shoot(page, name) {
  await mkdir(SHOTS, { recursive: true });
  const size = page.viewportSize();
  await page.screenshot({ path: join(SHOTS, `${name}-${size?.width}x${size?.height}.png`), fullPage: false });
}

/** Both screen sizes of the current view (phone, then desktop), and back to the phone. */
export async function shootBoth(page, name) {
  await shoot(page, name);
  await page.setViewportSize(DESKTOP);
  await shoot(page, name);
  await page.setViewportSize(PHONE);
}

/** Runs axe-core in the page and returns the serious and critical violations. */
export async function axe(page) {
  const source = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(source);
  const result = await page.evaluate(
    async () =>
      // @ts-expect-error injected above
      await window.axe.run(document, { resultTypes: ["violations"] }),
  );
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}
