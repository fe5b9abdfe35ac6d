/**
 * What a push notification carries: a title, one short line, the link it opens and the tag that
 * groups notifications about one thing (a newer one replaces it; answering the thing clears it).
 * No more than that leaves the deployment: the line is cut short and passed through the agent's
 * redactor first, and the push service sees only the encrypted body.
 */
export interface PushNotice {
  title: string;
  body: string;
  /** Where a click lands, relative to the app: the exact approval or message. */
  url: string;
  tag: string;
  /** Set on a notice that clears the one of its tag on every device (an approval answered elsewhere). */
  clear?: true;
  /**
   * How many things wait for this person now (approvals, questions, blocked tasks they may act on),
   * set per person as the notice is sent: the app badge shows it, shown notifications or not.
   */
  waiting?: number;
}

/** Tags of things that wait for a person until someone acts: counted in the badge until their notice clears. */
const waitingKinds = ["approval:", "task:", "question:"];

/** Whether a notice of `tag` is about something that waits for a person (not a reply or a result). */
export function waitsForPerson(tag: string): boolean {
  return waitingKinds.some((kind) => tag.startsWith(kind));
}

/** The longest line a notice shows: a glance, never the message itself. */
export const noticeLineMax = 120;

/** One line of at most `noticeLineMax` characters, redacted, whitespace folded. */
export function noticeLine(text: string, redact: (text: string) => string): string {
  const line = redact(text).replace(/\s+/g, " ").trim();
  return line.length > noticeLineMax ? `${line.slice(0, noticeLineMax - 1)}…` : line;
}

/** A link into the PWA (its hash routes, pwa/src/router.ts); another project than `default` rides in the query. */
const link = (project: string, route: string) =>
  `/${project === "default" ? "" : `?project=${encodeURIComponent(project)}`}#/${route}`;
const agentPath = (agent: string) => `agents/${encodeURIComponent(agent)}`;

/** An approval waits for someone of the person's scope: it names the agent and the tool, and opens the approval. */
export function approvalNotice(input: { project: string; agent: string; runId: string; tool: string }): PushNotice {
  return {
    title: `${input.agent} asks to use ${input.tool}`,
    body: "An approval waits for you.",
    url: link(input.project, `${agentPath(input.agent)}/runs/${encodeURIComponent(input.runId)}`),
    tag: `approval:${input.runId}`,
  };
}

/** The approval was answered (here or on another device): every device drops its notification. */
export function approvalAnswered(input: { runId: string }): PushNotice {
  return { title: "", body: "", url: "/", tag: `approval:${input.runId}`, clear: true };
}

/** The reply to the person's message, while none of their devices had the chat open. */
export function replyNotice(
  input: { project: string; agent: string; runId: string; sessionId: string; reply: string },
  redact: (text: string) => string,
): PushNotice {
  return {
    title: `${input.agent} replied`,
    body: noticeLine(input.reply, redact),
    url: link(input.project, `${agentPath(input.agent)}/chat?session=${encodeURIComponent(input.sessionId)}`),
    tag: `reply:${input.sessionId}`,
  };
}

/**
 * A behavior whose script says `:notify` finished: its result line, opening the chat it ran in. One
 * tag per behavior, so today's result replaces yesterday's still shown.
 */
export function behaviorNotice(
  input: { project: string; agent: string; behavior: string; sessionId: string; result: string },
  redact: (text: string) => string,
): PushNotice {
  return {
    title: `${input.agent}: ${input.behavior}`,
    body: noticeLine(input.result, redact),
    url: link(input.project, `${agentPath(input.agent)}/chat?session=${encodeURIComponent(input.sessionId)}`),
    tag: `behavior:${input.agent}:${input.behavior}`,
  };
}

const featurePath = (feature: string) => `features/${encodeURIComponent(feature)}`;

/** A feature's task is blocked on a question for a person: it opens the task (where it is answered). */
export function taskBlockedNotice(input: { project: string; feature: string; task: number; key: string }): PushNotice {
  return {
    title: `${input.feature}: task ${input.task} (${input.key}) is blocked`,
    body: "It waits for your answer.",
    url: link(input.project, `${featurePath(input.feature)}/tasks/${input.task}`),
    tag: `task:${input.feature}:${input.task}`,
  };
}

/** The task's question was answered (or the task went on): every device drops its notification. */
export function taskUnblocked(input: { feature: string; task: number }): PushNotice {
  return { title: "", body: "", url: "/", tag: `task:${input.feature}:${input.task}`, clear: true };
}

/** The planner asks a person a question before it writes the plan (clarify): it opens the inbox, where it is answered. */
export function planQuestionNotice(input: { project: string; feature: string; question: string }): PushNotice {
  return {
    title: `${input.feature}: the planner asks you`,
    body: "A question waits for your answer.",
    url: link(input.project, "approvals"),
    tag: `question:${input.feature}:${input.question}`,
  };
}

/** The planner's question was answered: every device drops its notification. */
export function planQuestionAnswered(input: { feature: string; question: string }): PushNotice {
  return { title: "", body: "", url: "/", tag: `question:${input.feature}:${input.question}`, clear: true };
}

/**
 * An agent's MCP server asks a question while its tool runs (elicitation): it opens the inbox, where
 * a person who may approve answers it. The server's own words stay out of the notice.
 */
export function mcpQuestionNotice(input: {
  project: string;
  agent: string;
  server: string;
  question: string;
}): PushNotice {
  return {
    title: `${input.agent}: the MCP server ${input.server} asks you`,
    body: "A question waits for your answer.",
    url: link(input.project, "approvals"),
    tag: `question:mcp:${input.agent}:${input.question}`,
  };
}

/** The MCP server's question waits no more (answered, declined, expired or its call ended): every device drops it. */
export function mcpQuestionSettled(input: { agent: string; question: string }): PushNotice {
  return { title: "", body: "", url: "/", tag: `question:mcp:${input.agent}:${input.question}`, clear: true };
}

/** Run-all stopped for a person (a blocked, failed or partial task, or a task that could not start). */
export function runAllStoppedNotice(input: { project: string; feature: string; task: number | null }): PushNotice {
  return {
    title: `${input.feature}: run-all stopped`,
    body: input.task === null ? "It needs a person." : `It stopped at task ${input.task} and needs a person.`,
    url: link(input.project, featurePath(input.feature)),
    tag: `feature:${input.feature}`,
  };
}

/** Every task of the feature is done. */
export function featureDoneNotice(input: { project: string; feature: string }): PushNotice {
  return {
    title: `${input.feature} is done`,
    body: "Every task is done.",
    url: link(input.project, featurePath(input.feature)),
    tag: `feature:${input.feature}`,
  };
}

/**
 * RFC 8030's Topic header (at most 32 characters of the base64url alphabet): the same for one tag,
 * so a push service replaces a notice still waiting for the device by the newer one of its tag.
 */
export async function pushTopic(tag: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(tag)));
  return [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Whether a run's principal name is a person's (a device an invite signed in): only a person has
 * devices to notify. The admin secret runs as `admin`, a plain token as `token:<name>`, and a door
 * adds ` via <door>`; person names hold none of these (workers/auth.ts), so a turn of an operator's
 * script or a load test queues nothing.
 * @example
 * isPersonName("ana"); // true
 * isPersonName("token:ci"); // false
 */
export function isPersonName(name: string | undefined): name is string {
  return !!name && name !== "admin" && !name.includes(":") && !name.includes(" via ");
}
