/**
 * Removes what a terminal or a markdown viewer would act on instead of showing: ANSI escape sequences
 * (colours, cursor moves, OSC 8 links and window titles), other C0 and C1 control characters except
 * newline and tab (a CR that does not end a line rewrites the line it is on), DEL, and the bidirectional
 * overrides and isolates that display text in another order than it is read (CVE-2021-42574,
 * "Trojan Source"). Applied to every human-facing output: error text from logs is untrusted.
 */
export function stripControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}

// ESC [ … final byte (CSI); ESC ] … BEL or ESC \ (OSC); ESC P/X/^/_ … ESC \ (DCS, SOS, PM, APC); ESC + one byte.
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[\s\S]?|\u009b[0-?]*[ -/]*[@-~]/g;
// C0 but TAB and LF, CR not before LF, DEL, C1, and bidi marks, embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
