// Code blocks of the user docs (README.md, docs/*.md), read so that a test can run
// every TypeScript/JavaScript block: examples in docs must not rot.
//
// Info-string words after the language (```ts file=counter.ts):
//   file=NAME       the block is saved as NAME next to the doc's other blocks, so a
//                   later block can import it ('./counter.ts'); a NAME ending in
//                   .test.ts is a vitest file whose tests the docs test registers.
//   no-run: REASON  the block is not run; the reason is required.
// A shell block is run only when marked (```sh run): each `npx interleave …` line runs
// the command in the doc's folder, and a trailing `# exit N` comment is the exit code
// it must end with.
// A ```text output block right after a run block lists lines its console output must
// contain, in order; `…` inside a line matches anything, a line that is only `…` is
// skipped.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const RUN_LANGS = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs', 'mts']);
const SHELL_LANGS = new Set(['sh', 'bash', 'shell']);

export interface DocBlock {
  readonly doc: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  readonly file?: string;
  /** Present when the block is marked `no-run`; '' when the reason is missing. */
  readonly noRun?: string;
  /** The `text output` block that follows, if any. */
  readonly expectOutput?: string;
}

/** The user docs a test runs: README.md and every docs/*.md, in a fixed order. */
export function userDocs(root: string): string[] {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** Every fenced block of a markdown text, with its info string parsed. */
export function blocksOf(doc: string, text: string): DocBlock[] {
  const lines = text.split('\n');
  const raw: { line: number; info: string; code: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) body.push(lines[j++]);
    raw.push({ line: i + 1, info: open[3].trim(), code: body.join('\n') });
    i = j;
  }
  const out: DocBlock[] = [];
  for (let k = 0; k < raw.length; k++) {
    const { line, info, code } = raw[k];
    const lang = (info.split(/\s+/)[0] ?? '').toLowerCase();
    if (!RUN_LANGS.has(lang) && !(SHELL_LANGS.has(lang) && /(?:^|\s)run(?:\s|$)/.test(info))) continue;
    const file = /(?:^|\s)file=(\S+)/.exec(info)?.[1];
    const noRunMatch = /(?:^|\s)no-run(?::\s*(.*))?$/.exec(info);
    const next = raw[k + 1];
    const expectOutput = next && /^text\s+output\b/.test(next.info) ? next.code : undefined;
    out.push({ doc, line, lang, code, file, noRun: noRunMatch ? (noRunMatch[1] ?? '').trim() : undefined, expectOutput });
  }
  return out;
}

export function readBlocks(root: string, doc: string): DocBlock[] {
  return blocksOf(doc, readFileSync(join(root, doc), 'utf8'));
}

export function isShell(b: DocBlock): boolean {
  return SHELL_LANGS.has(b.lang);
}

/** The `npx interleave` commands of a `sh run` block, with the exit code each must end with. */
export function shellCommands(b: DocBlock): { args: string[]; exit: number }[] {
  const out: { args: string[]; exit: number }[] = [];
  for (const line of b.code.split('\n')) {
    const m = /^\s*npx interleave\s+(.*?)\s*(?:#\s*exit\s+(\d+).*)?$/.exec(line);
    if (!m) continue;
    const args = (m[1].match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((a) => a.replace(/^(['"])(.*)\1$/, '$2'));
    out.push({ args, exit: m[2] === undefined ? 0 : Number(m[2]) });
  }
  return out;
}

/** The file name a block is saved under in its doc's folder. */
export function blockFileName(b: DocBlock): string {
  if (b.file) return b.file;
  const ext = isShell(b) ? 'sh' : b.lang === 'js' || b.lang === 'javascript' || b.lang === 'mjs' ? 'mjs' : 'ts';
  return `block-line${b.line}.${ext}`;
}

/**
 * Where the expected output is not found in the actual output, a message saying
 * which line was missing; undefined when every expected line was found in order.
 */
export function missingOutput(expected: string, actual: string): string | undefined {
  const have = actual.split('\n');
  let at = 0;
  for (const want of expected.split('\n')) {
    const w = want.trim();
    if (w === '' || w === '…' || w === '...') continue;
    const parts = w.split('…').map((p) => p.trim()).filter((p) => p.length > 0);
    let found = -1;
    for (let i = at; i < have.length && found < 0; i++) if (containsInOrder(have[i], parts)) found = i;
    if (found < 0) return `expected output line not found (in order): ${JSON.stringify(w)}`;
    at = found + 1;
  }
  return undefined;
}

function containsInOrder(line: string, parts: readonly string[]): boolean {
  let from = 0;
  for (const p of parts) {
    const i = line.indexOf(p, from);
    if (i < 0) return false;
    from = i + p.length;
  }
  return true;
}
