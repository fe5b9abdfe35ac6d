import { css, html, type TemplateResult } from "lit";

/**
 * Markdown shown one source line at a time (a plan under review, a task's prompt): each line keeps
 * its number, so a comment can point at it, and gets just enough styling to read as what it is —
 * headings, list items, fences, `code` and **bold**. Text only, through Lit's escaping: no HTML from
 * the markdown ever reaches the page, and no markdown library ships to the phone.
 */
export function markdownLines(markdown: string): { kind: string; content: TemplateResult | string }[] {
  let fence = false;
  return markdown.split(/\r?\n/).map((line) => {
    if (/^\s*```/.test(line)) {
      fence = !fence;
      return { kind: "fence", content: line };
    }
    if (fence) return { kind: "code", content: line };
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) return { kind: `h h${heading[1]!.length}`, content: inline(heading[2]!) };
    if (/^\s*(?:\d+[.)]|[-*+])\s+/.test(line)) return { kind: "li", content: inline(line) };
    return { kind: line.trim() ? "p" : "blank", content: inline(line) };
  });
}

/** `code` and **bold** inside a line; everything else stays text. */
function inline(text: string): TemplateResult {
  const parts = text.split(/(`[^`]+`|\*\*[^*]+\*\*)/g);
  return html`${parts.map((part) =>
    part.startsWith("`") && part.endsWith("`") && part.length > 1
      ? html`<code>${part.slice(1, -1)}</code>`
      : part.startsWith("**") && part.endsWith("**") && part.length > 3
        ? html`<strong>${part.slice(2, -2)}</strong>`
        : part,
  )}`;
}

export const markdownStyles = css`
  .md { white-space: pre-wrap; word-break: break-word; min-height: 1.5em; }
  .md.h { font-weight: 800; }
  .md.h1 { font-size: 1.2rem; } .md.h2 { font-size: 1.08rem; } .md.h3 { font-size: 1rem; }
  .md.code, .md.fence { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
  .md.fence { color: var(--muted); }
  .md code { background: var(--surface-2); border-radius: 4px; padding: 0 .2rem; }
`;
