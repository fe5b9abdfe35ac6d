/**
 * Text cut after each run of whitespace that follows a word; the pieces join back to the text.
 * One pass, no regex: a reply is model output of any shape and length.
 * @example
 * wordPieces("Hi  there!\n"); // ["Hi  ", "there!\n"]
 */
export function wordPieces(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let seenWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = text.charCodeAt(i) <= 32;
    if (!space) seenWord = true;
    else if (seenWord && (i + 1 === text.length || text.charCodeAt(i + 1) > 32)) {
      pieces.push(text.slice(start, i + 1));
      start = i + 1;
      seenWord = false;
    }
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}
