// A script tool: column statistics of a CSV text, computed in the sandbox instead of by the model.
// Add it with `pantheon tools add examples/tools/csv-stats.ts` (docs/tools-as-code.md).
export const tool = {
  name: "csv.stats",
  description: "Count, sum, mean and maximum of one numeric column of a CSV text (first line: the column names)",
  input: {
    type: "object",
    properties: {
      csv: { type: "string", description: "the CSV text" },
      column: { type: "string", description: "the column's name" },
    },
    required: ["csv", "column"],
  },
  idempotent: true,
};

export default async function (input: { csv: string; column: string }) {
  const [head, ...rows] = input.csv.trim().split("\n");
  const at = head.split(",").indexOf(input.column);
  if (at < 0) throw new Error(`no column '${input.column}' (the columns: ${head})`);
  const values: number[] = rows.map((row) => Number(row.split(",")[at]));
  const sum = values.reduce((a, b) => a + b, 0);
  return { count: values.length, sum, mean: sum / values.length, max: Math.max(...values) };
}
