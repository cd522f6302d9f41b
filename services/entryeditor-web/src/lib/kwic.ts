// A KWIC (key word in context) view lines every concordance line up on its keyword: the
// left context is cut from its start and the right context from its end, so the
// characters next to the keyword are always kept and the keyword column sits in the
// middle of the table whatever the sentence.
import type { KwicLine } from '../api/types';

export const ELLIPSIS = '…';

export interface CentredLine {
  key: string;
  sentenceId: number;
  left: string;
  keyword: string;
  pos: string;
  right: string;
}

/** `text` cut to its last `width` characters (code points), an ellipsis marking the cut. */
export function keepEnd(text: string, width: number): string {
  const chars = Array.from(text);
  return chars.length <= width ? text : ELLIPSIS + chars.slice(chars.length - width).join('');
}

/** `text` cut to its first `width` characters (code points), an ellipsis marking the cut. */
export function keepStart(text: string, width: number): string {
  const chars = Array.from(text);
  return chars.length <= width ? text : chars.slice(0, width).join('') + ELLIPSIS;
}

export function centre(lines: readonly KwicLine[], width: number): CentredLine[] {
  return lines.map((line) => ({
    key: `${line.sentence_id}:${line.position}`,
    sentenceId: line.sentence_id,
    left: keepEnd(line.left, width),
    keyword: line.keyword,
    pos: line.pos,
    right: keepStart(line.right, width),
  }));
}
