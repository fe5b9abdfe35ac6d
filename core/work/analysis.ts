import type { PlannedTask } from "./types";

/** A heading of the plan outside its task list: something the plan says must be built. */
export interface PlanSection {
  title: string;
  line: number;
}

export interface PlanAnalysis {
  /** Each task and the sections it carries out (empty: nothing in the plan asks for it). */
  tasks: { task: number; key: string; name: string; tracedTo: string[] }[];
  /** Sections no task carries out. */
  untraced: string[];
  sections: PlanSection[];
  /** Every task traced and every section covered. */
  ok: boolean;
  /** The same in sentences, for the review page and the CLI. */
  findings: string[];
}

/** Headings that describe rather than ask for work: they need no task. */
const descriptive =
  /^(problem|context|background|overview|summary|notes?|(open )?questions|out of scope|non-goals?|risks?|references?|appendix|report|links?|glossary|decisions?)\b/i;
const stopwords = new Set([
  "the",
  "and",
  "for",
  "with",
  "from",
  "into",
  "that",
  "this",
  "its",
  "our",
  "are",
  "all",
  "any",
  "new",
  "use",
  "add",
  "how",
  "what",
  "when",
  "who",
  "why",
  "not",
  "but",
  "per",
  "via",
]);

/** Words that carry meaning, cut to a common stem (five letters), so "validation" meets "validate". */
function stems(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize("NFKD")
      .match(/[a-z0-9]+/g) ?? []
  )
    .filter((w) => w.length >= 3 && !stopwords.has(w))
    .map((w) => w.slice(0, 5));
}

/** The plan's headings below its title and outside the Tasks section, except descriptive ones. */
export function planSections(markdown: string): PlanSection[] {
  const sections: PlanSection[] = [];
  let inFence = false;
  let tasksLevel = 0;
  markdown.split(/\r?\n/).forEach((raw, index) => {
    if (/^\s*```/.test(raw)) inFence = !inFence;
    const h = inFence ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!h) return;
    const level = h[1]!.length;
    const title = h[2]!.trim();
    if (tasksLevel > 0 && level > tasksLevel) return;
    tasksLevel = /^tasks\b/i.test(title) ? level : 0;
    if (tasksLevel || level === 1 || descriptive.test(title) || stems(title).length === 0) return;
    sections.push({ title, line: index + 1 });
  });
  return sections;
}

/**
 * Plan ⇄ tasks consistency (Spec Kit's `analyze`): a task is traced to a section when its name and
 * description carry at least half of the section heading's words (or name it with `§Heading`); a
 * section no task carries out is untraced. A plan with no such sections traces every task to itself.
 * @example
 * analyzePlan("# X\n## Login form\n## Rate limit\n## Tasks\n1. Form — the login form", tasks).untraced // ["Rate limit"]
 */
export function analyzePlan(markdown: string, tasks: readonly PlannedTask[]): PlanAnalysis {
  const sections = planSections(markdown);
  const traced = tasks.map((t, i) => {
    const text = `${t.name} ${t.description}`;
    const words = new Set(stems(text));
    const tracedTo = sections
      .filter((s) => {
        if (text.toLowerCase().includes(`§${s.title.toLowerCase()}`)) return true;
        const heading = [...new Set(stems(s.title))];
        return heading.filter((w) => words.has(w)).length >= Math.ceil(heading.length / 2);
      })
      .map((s) => s.title);
    return { task: i + 1, key: t.key, name: t.name, tracedTo };
  });
  const covered = new Set(traced.flatMap((t) => t.tracedTo));
  const untraced = sections.filter((s) => !covered.has(s.title)).map((s) => s.title);
  const findings = [
    ...(sections.length
      ? traced
          .filter((t) => t.tracedTo.length === 0)
          .map((t) => `task ${t.task} '${t.name}' is not traced to any section of the plan`)
      : []),
    ...untraced.map((s) => `section '${s}' has no task`),
  ];
  return { tasks: traced, untraced, sections, ok: findings.length === 0, findings };
}
