import { PantheonError } from "../errors";

/** A script refused when it is saved: 400 naming the line and what was wrong. */
export function scriptInvalid(message: string, line?: number): PantheonError {
  return new PantheonError("script_invalid", line === undefined ? message : `line ${line}: ${message}`, {
    details: line === undefined ? {} : { line },
  });
}
