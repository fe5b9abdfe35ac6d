import "./components/app";
import { makeApi } from "./api";
import type { PantheonApp } from "./components/app";
import { makeController } from "./controller";
import { describeDevice } from "./controller-people";
import { connectLive } from "./live";
import { makeOutbox } from "./outbox";
import { toHash } from "./router";
import { disablePush } from "./push";
import { takeShared } from "./share";
import type { AppState } from "./state";

/**
 * Wires the page to the controller: the only file that touches window events. Components
 * emit DOM events; this turns each into one controller action.
 */
function start(): void {
  const outbox = makeOutbox({ indexedDB, now: Date.now });
  const controller = makeController({
    storage: localStorage,
    outbox,
    connectLive,
    location,
    online: navigator.onLine,
    visible: () => document.visibilityState === "visible",
    navigate: (hash) => {
      if (location.hash !== hash) location.hash = hash;
    },
    replace: (hash) => {
      // replaceState fires no hashchange: follow the new route by hand.
      history.replaceState(null, "", hash);
      void controller.route(hash);
    },
    device: describeDevice(navigator.userAgent),
    requestBackgroundSync: () => {
      void navigator.serviceWorker?.ready
        .then((reg) =>
          (reg as ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }).sync?.register(
            "pantheon-outbox",
          ),
        )
        .catch(() => {
          // No Background Sync (Firefox, Safari): the page's `online` listener sends instead.
        });
    },
  });

  const app = document.querySelector("pantheon-app") as PantheonApp;
  const render = (state: AppState) => {
    app.state = state;
    applyTheme(state.theme);
  };
  controller.subscribe(render);
  render(controller.getState());

  // biome-ignore lint/suspicious/noExplicitAny: each custom event carries its own detail
  type Detail = Record<string, any>;
  const on = (name: string, handler: (detail: Detail) => void) =>
    app.addEventListener(name, (e) => handler((e as CustomEvent<Detail>).detail ?? {}));
  const s = () => controller.getState();

  on("sign-in", (d) => void controller.signIn(d.token, d.project));
  // Signing out turns this device's notifications off too (the badge clears, the server stops
  // pushing to it), with the token it had: the page does not wait on the network to sign out.
  on("sign-out", () => {
    const token = localStorage.getItem("pantheon.token");
    const project = controller.getState().project;
    void disablePush(makeApi({ getToken: () => token, getProject: () => project })).catch(() => {});
    controller.signOut();
  });
  on("join", (d) => void controller.people.join(d.code, d.project));
  on("invite", (d) => void controller.people.invite(d as never));
  on("invite-dismiss", () => controller.people.dismissCreated());
  on("revoke-token", (d) => void controller.people.revoke(d.id));
  on("withdraw-invite", (d) => void controller.people.withdraw(d.id));
  on("theme", (d) => controller.setTheme(d.theme));
  on("reload", () => void controller.reload());
  on("create-agent", (d) => void controller.createAgent(d as never));
  on("send", (d) => void controller.chat.send(d.content, d.pictures ?? []));
  // Something shared into the app goes to the agent chosen: its chat opens with it in the composer.
  on("share-to", (d) => {
    void (async () => {
      const shared = await takeShared();
      const route = { view: "chat" as const, agent: String(d.agent) };
      controller.navigate(route);
      await controller.route(toHash(route));
      if (shared) controller.chat.prefill(shared.content, shared.pictures);
    })();
  });
  on("retry", () => void controller.chat.retry());
  on("dismiss", () => controller.chat.dismiss());
  on("decide", (d) => void controller.decide(d as never, d.decision));
  on("answer", (d) => void controller.answer(d as never, d.answer));
  on(
    "mcp-answer",
    (d) =>
      void controller.answerMcp(
        d as never,
        d.action === "accept" ? { action: "accept", content: d.content as never } : { action: "decline" },
      ),
  );
  on("plan-comment", (d) => void controller.work.comment(d.feature, d.version, d.line, d.body));
  on("plan-approve", (d) => void controller.work.approve(d.feature, d.version, d.confirmed === true));
  on("plan-approve-cancel", () => controller.work.cancelApprove());
  on("plan-compare", (d) =>
    controller.navigate({
      view: "plan",
      feature: d.feature,
      ...(d.version ? { version: d.version } : {}),
      ...(d.compare ? { compare: d.compare } : {}),
    }),
  );
  on("task-resolve", (d) => void controller.work.resolve(d.feature, d.task, d.files));
  on("board-start", (d) => void controller.work.start(d.feature, d.task, true));
  on("run-all", (d) => void controller.work.runAll(d.feature));
  on("feature-pause", (d) => void controller.work.setPaused(d.feature, d.paused === true));
  on("feature-import", async (d) => {
    const made = await controller.work.importFeature(d as never);
    if (made) controller.navigate({ view: "feature", feature: made });
  });
  on("feature-push", (d) => void controller.work.push(d.feature));
  on("feature-pr", (d) => void controller.work.pullRequest(d.feature));
  on("feature-download", (d) => void controller.work.download(d.feature, d.format ?? "bundle"));
  on("commits-ref", (d) =>
    controller.navigate({ view: "commits", feature: d.feature, ...(d.ref ? { ref: d.ref } : {}) }),
  );
  on("plan-version", (d) => {
    const plan = s().work.plan;
    const latest = plan.status === "ready" ? Math.max(...plan.data.versions.map((v) => v.version)) : 0;
    controller.navigate({
      view: "plan",
      feature: d.feature,
      ...(d.version && d.version !== latest ? { version: d.version } : {}),
    });
  });
  on("task-answer", (d) => void controller.work.answer(d.feature, d.task, d.answer));
  on("task-action", (d) => void controller.work[d.action as "start" | "commit" | "discard"](d.feature, d.task));
  on("pause-schedule", (d) => void controller.setSchedulePaused(d.agent, d.behavior, d.paused));
  on("invoke-tool", (d) => void controller.invokeTool(d.agent, d.tool, d.args));
  on("context-query", (d) =>
    controller.navigate({ view: "context", agent: d.agent, q: d.q, ...(d.max ? { max: d.max } : {}) }),
  );
  on("select-session", (d) => {
    const agent = s().chat.agent;
    if (agent) controller.navigate({ view: "chat", agent, session: d.id || undefined });
  });
  on("new-session", async () => {
    const agent = s().chat.agent;
    const id = await controller.chat.newSession();
    if (agent && id) controller.navigate({ view: "chat", agent, session: id });
  });

  addEventListener("hashchange", () => void controller.route(location.hash));
  addEventListener("online", () => controller.setOnline(true));
  addEventListener("offline", () => controller.setOnline(false));
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && navigator.onLine) controller.chat.nudge();
  });
  // A notice's link into another project than `default` carries it in the query (core/push/notice.ts):
  // switch to it first when this device may, then drop the query so a reload does not ask again.
  const linked = new URLSearchParams(location.search).get("project");
  void (async () => {
    if (linked) {
      await controller.openProject(linked);
      // The project's MCP callback lands on #/agents (it knows no agent): back to the tools page the
      // admin pressed Authorise on (pantheon-mcp-servers kept it for this tab).
      const back = sessionStorage.getItem("pantheon.mcpReturn");
      sessionStorage.removeItem("pantheon.mcpReturn");
      const hash = back?.startsWith(`${linked} #/agents/`) && location.hash === "#/agents" ? back.split(" ")[1] : null;
      history.replaceState(null, "", `${location.pathname}${hash ?? location.hash}`);
    }
    await controller.route(location.hash);
  })();
  if (navigator.onLine && s().signedIn) void controller.chat.flushOutbox();

  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.addEventListener(
      "message",
      (e: MessageEvent<{ type?: string; id?: string; agent?: string }>) => {
        if (e.data?.type === "outbox-sent" && e.data.id && e.data.agent) controller.chat.sent(e.data.id, e.data.agent);
      },
    );
    addEventListener("load", () => void navigator.serviceWorker.register("/sw.js").catch(() => {}));
  }
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => applyTheme(s().theme));
}

function applyTheme(theme: AppState["theme"]): void {
  const root = document.documentElement;
  if (theme === "system") delete root.dataset.theme;
  else root.dataset.theme = theme;
  const dark = theme === "dark" || (theme === "system" && matchMedia("(prefers-color-scheme: dark)").matches);
  document.querySelector('meta[name="theme-color"]')?.setAttribute("content", dark ? "#0f1117" : "#4338ca");
}

start();
