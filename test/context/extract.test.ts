import { describe, expect, it } from "vitest";
import { extractMemories, ftsQuery, parseExtraction, parseTriple } from "../../core/context";

describe("extractMemories", () => {
  it("finds the user's name, preferences, standing instructions and things to remember", () => {
    const memories = extractMemories({
      user: "Hi! My name is Ada Lovelace. I prefer tea over coffee. Always answer in French. Remember that the demo is on Tuesday. What time is it?",
      assistant: "Bonjour Ada ! Il est midi.",
    });
    expect(memories).toEqual([
      {
        kind: "fact",
        text: "The user's name is Ada Lovelace",
        importance: 0.9,
        entities: ["Ada Lovelace"],
        triple: { subject: "user", relation: "name", object: "Ada Lovelace" },
      },
      { kind: "fact", text: "The user prefers tea over coffee", importance: 0.7, entities: [] },
      { kind: "instruction", text: "Always answer in French", importance: 0.8, entities: ["French"] },
      {
        kind: "fact",
        text: "The demo is on Tuesday",
        importance: 0.9,
        entities: ["Tuesday"],
        triple: { subject: "demo", relation: "is", object: "on Tuesday" },
      },
    ]);
  });

  it("turns first-person facts into facts about the user, with a triple for single-valued ones", () => {
    const memories = extractMemories({
      user: "I live in Lyon. My favourite colour is green. I work at Acme Corp. I'm a nurse. Never call me before 9am.",
    });
    expect(memories.map((m) => [m.kind, m.text])).toEqual([
      ["fact", "The user lives in Lyon"],
      ["fact", "The user's favourite colour is green"],
      ["fact", "The user works at Acme Corp"],
      ["fact", "The user is a nurse"],
      ["instruction", "Never call me before 9am"],
    ]);
    expect(memories[0]!.triple).toEqual({ subject: "user", relation: "lives in", object: "Lyon" });
    expect(memories[1]!.triple).toEqual({ subject: "user", relation: "favourite colour", object: "green" });
    expect(memories[2]!.entities).toEqual(["Acme Corp"]);
  });

  it("reads plain 'X is Y' statements as facts, but not questions, pronouns or the assistant's words", () => {
    const memories = extractMemories({
      user: "The office wifi password is tulip42. It is raining. Is Paris nice? This is fun.",
      assistant: "The capital of France is Paris.",
    });
    expect(memories).toEqual([
      {
        kind: "fact",
        text: "The office wifi password is tulip42",
        importance: 0.5,
        entities: [],
        triple: { subject: "office wifi password", relation: "is", object: "tulip42" },
      },
    ]);
  });

  it("finds nothing in small talk", () => {
    expect(extractMemories({ user: "thanks, that helps!", assistant: "You're welcome." })).toEqual([]);
  });
});

describe("parseTriple", () => {
  it("reads the subject and relation that make a fact single-valued", () => {
    expect(parseTriple("The user's name is Ada.")).toEqual({ subject: "user", relation: "name", object: "Ada" });
    expect(parseTriple("The user lives in Berlin")).toEqual({
      subject: "user",
      relation: "lives in",
      object: "Berlin",
    });
    expect(parseTriple("It is late")).toBeUndefined();
    expect(parseTriple("The user prefers tea")).toBeUndefined();
  });
});

describe("parseExtraction", () => {
  it("accepts a model's JSON in a code fence and fills defaults", () => {
    const result = parseExtraction(
      '```json\n{"memories":[{"kind":"fact","text":"Ada owns a cat","importance":0.6,"entities":["Ada"]},{"kind":"instruction","text":"Be brief"}]}\n```',
    );
    expect(result).toEqual({
      memories: [
        { kind: "fact", text: "Ada owns a cat", importance: 0.6, entities: ["Ada"] },
        { kind: "instruction", text: "Be brief", importance: 0.5, entities: [] },
      ],
      issues: [],
    });
  });

  it("keeps the valid entries of a bare array and reports each invalid one by path", () => {
    const result = parseExtraction([
      { kind: "fact", text: "Ada lives in Lyon", triple: { subject: "user", relation: "lives in", object: "Lyon" } },
      { kind: "rumour", text: "x" },
      { kind: "fact", text: "", importance: 2 },
    ]);
    expect(result.memories).toEqual([
      {
        kind: "fact",
        text: "Ada lives in Lyon",
        importance: 0.5,
        entities: [],
        triple: { subject: "user", relation: "lives in", object: "Lyon" },
      },
    ]);
    expect(result.issues.map((i) => i.path)).toEqual([
      [1, "kind"],
      [2, "text"],
      [2, "importance"],
    ]);
  });

  it("reports text that is not JSON, or JSON of the wrong shape, without throwing", () => {
    expect(parseExtraction("Sure! Here are the memories:").issues[0]!.message).toMatch(/^not JSON/);
    expect(parseExtraction({ facts: [] })).toEqual({
      memories: [],
      issues: [{ path: ["memories"], message: "expected an array of memories" }],
    });
    expect(parseExtraction(null).memories).toEqual([]);
  });
});

describe("ftsQuery", () => {
  it("quotes each content word so FTS5 syntax in a question cannot break the query", () => {
    expect(ftsQuery('What is "my" dog\'s NAME? (AND) -x*')).toBe('"dog" OR "name" OR "x"');
    expect(ftsQuery("what is it?")).toBe("");
  });
});
