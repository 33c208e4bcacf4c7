// The shell commands of README.md, docs/*.md, examples/README.md and CONTRIBUTING.md are not run (some
// take minutes), but they must be real: every `interleave` subcommand and flag exists,
// every `--param key=value` names a parameter of the scenario with an allowed value,
// every `npm run` script and benchmark exists, every `node <file>` exists.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { Io } from '../../src/cli/io.ts';
import { styleFor } from '../../src/report/style.ts';
import { userDocs } from '../helpers/doc-blocks.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHELL = /^(sh|bash|shell|console)$/;

/** The commands of a doc's shell blocks: comments dropped, continuations joined, `&&` split. */
function commandsOf(text: string): { line: number; cmd: string }[] {
  const out: { line: number; cmd: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]);
    if (!open) continue;
    const lang = open[1];
    let j = i + 1;
    let pending = '';
    let start = 0;
    for (; j < lines.length && !lines[j].startsWith('```'); j++) {
      if (!SHELL.test(lang)) continue;
      const raw = lines[j].replace(/(^|\s)#.*$/, '').trimEnd();
      if (!pending) start = j + 1;
      if (raw.endsWith('\\')) {
        pending += raw.slice(0, -1) + ' ';
        continue;
      }
      const full = (pending + raw).trim();
      pending = '';
      for (const part of full.split('&&')) if (part.trim()) out.push({ line: start, cmd: part.trim().replace(/^\$\s+/, '') });
    }
    i = j;
  }
  return out;
}

function captureIo(): { io: Io; text: () => string } {
  const chunks: string[] = [];
  const style = styleFor({ isTTY: false } as NodeJS.WriteStream);
  return { io: { out: (s) => void chunks.push(s), err: (s) => void chunks.push(s), style, errStyle: style, tty: false }, text: () => chunks.join('\n') };
}

const helpCache = new Map<string, string>();
async function helpOf(sub: string): Promise<string> {
  if (!helpCache.has(sub)) {
    const c = captureIo();
    await main(sub ? [sub, '--help'] : ['--help'], c.io);
    helpCache.set(sub, c.text());
  }
  return helpCache.get(sub)!;
}

interface ParamSpec { type: string; values?: string[]; min?: number; max?: number }
let families: Map<string, Record<string, ParamSpec>> | undefined;
async function familyParams(): Promise<Map<string, Record<string, ParamSpec>>> {
  if (!families) {
    const c = captureIo();
    await main(['list', '--json'], c.io);
    families = new Map((JSON.parse(c.text()) as { name: string; params: Record<string, ParamSpec> }[]).map((f) => [f.name, f.params]));
  }
  return families;
}

/** What is wrong with one `interleave …` command line, or undefined. */
async function interleaveProblem(args: string[]): Promise<string | undefined> {
  const sub = args[0] ?? '';
  const rootHelp = await helpOf('');
  if (sub && !sub.startsWith('-') && !new RegExp(`^\\s+${sub}\\b`, 'm').test(rootHelp)) return `no subcommand '${sub}'`;
  if (sub === 'bench') return benchProblem(args.slice(1));
  const help = await helpOf(sub.startsWith('-') ? '' : sub);
  for (const a of args) {
    const flag = /^(--[a-z][a-z-]*)/.exec(a)?.[1];
    if (flag && !help.includes(flag)) return `'interleave ${sub}' has no option ${flag}`;
  }
  if (sub === 'check' || sub === 'simulate' || sub === 'list') {
    const name = args[1];
    const fams = await familyParams();
    if (sub !== 'list' && name && !name.startsWith('-') && !/[./]/.test(name)) {
      const params = fams.get(name);
      if (!params) return `no scenario '${name}' (interleave list)`;
      for (let i = 0; i < args.length; i++) {
        if (args[i] !== '--param' && args[i] !== '-p') continue;
        const [k, v] = (args[i + 1] ?? '').split('=');
        const spec = params[k];
        if (!spec) return `scenario '${name}' has no parameter '${k}'`;
        if (spec.type === 'enum' && !spec.values!.includes(v)) return `'${k}=${v}': allowed ${spec.values!.join(' | ')}`;
        if (spec.type === 'int' && !(Number.isInteger(Number(v)) && Number(v) >= (spec.min ?? -Infinity) && Number(v) <= (spec.max ?? Infinity))) return `'${k}=${v}' is not an int in range`;
      }
    }
  }
  return undefined;
}

function benchProblem(names: string[]): string | undefined {
  for (const n of names) if (!n.startsWith('-') && !n.startsWith('[') && !existsSync(join(root, 'bench', `${n}.bench.ts`))) return `no benchmark bench/${n}.bench.ts`;
  return undefined;
}

async function problem(cmd: string): Promise<string | undefined> {
  const words = cmd.split(/\s+/);
  if (words[0] === 'npx' && words[1] === 'interleave') return interleaveProblem(words.slice(2));
  if (words[0] === 'interleave') return interleaveProblem(words.slice(1));
  if (words[0] === 'npm' && words[1] === 'run') {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    if (!scripts[words[2]]) return `no npm script '${words[2]}'`;
    if (words[2] === 'bench' && words[3] === '--') return benchProblem(words.slice(4));
    if (words[2] === 'interleave' && words[3] === '--') return interleaveProblem(words.slice(4));
    return undefined;
  }
  if (words[0] === 'node' && words[1] && !words[1].startsWith('-')) return existsSync(join(root, words[1])) ? undefined : `no file ${words[1]}`;
  return undefined;
}

describe('shell commands in the docs are real', () => {
  it('finds commands in the docs', () => {
    const all = [...userDocs(root), 'examples/README.md', 'CONTRIBUTING.md'].flatMap((d) => commandsOf(readFileSync(join(root, d), 'utf8')));
    expect(all.filter((c) => /^npx interleave check /.test(c.cmd)).length).toBeGreaterThan(5);
  });
  it('flags a command that does not exist', async () => {
    expect(await problem('npx interleave chekc lost-update')).toMatch(/no subcommand/);
    expect(await problem('npx interleave check lost-update --no-such-flag')).toMatch(/no option --no-such-flag/);
    expect(await problem('npx interleave check lost-update --param design=nope')).toMatch(/allowed/);
    expect(await problem('npm run bench -- nosuchbench')).toMatch(/no benchmark/);
    expect(await problem('npx interleave check lost-update --param design=compare-and-set')).toBeUndefined();
  });
  for (const doc of [...userDocs(root), 'examples/README.md', 'CONTRIBUTING.md']) {
    const cmds = commandsOf(readFileSync(join(root, doc), 'utf8'));
    if (cmds.length === 0) continue;
    it(doc, async () => {
      const wrong: string[] = [];
      for (const c of cmds) {
        const p = await problem(c.cmd);
        if (p) wrong.push(`${doc}:${c.line}: ${c.cmd}\n    ${p}`);
      }
      expect(wrong, wrong.join('\n')).toEqual([]);
    });
  }
});
