export { makeSqliteIndex, type SqliteIndexOptions } from "./sqlite-index";
export type { SqlLike, SqlCursorLike, SqlValue } from "./sql-like";
export { defaultIvfTuning, type IvfTuning } from "./ivf";
