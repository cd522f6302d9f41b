// Where the query parser's 400 points: `line` and `column` (1-based, as the API sends
// them) in the command as typed, split into what comes before, at and after the column.
export interface Location {
  line: number;
  column: number;
  lines: string[];
  before: string;
  at: string;
  after: string;
}

export function locate(command: string, line: number, column: number): Location {
  const lines = command.split('\n');
  const source = lines[line - 1] ?? '';
  const chars = Array.from(source);
  const index = Math.max(0, Math.min(column - 1, chars.length));
  return {
    line,
    column,
    lines,
    before: chars.slice(0, index).join(''),
    // Past the end of the line: the parser wanted more; a blank marks the spot.
    at: chars[index] ?? ' ',
    after: chars.slice(index + 1).join(''),
  };
}

/** The parser's error details, when an error carries them. */
export function commandPosition(details: Record<string, unknown>): [number, number] | null {
  const { line, column } = details;
  return typeof line === 'number' && typeof column === 'number' ? [line, column] : null;
}
