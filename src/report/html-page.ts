// The shell of every HTML page the reports write (the trace viewer, the statechart
// page): one self-contained document, no network, a CSP that allows inline styles
// and only what `csp` adds (the viewer's script, by hash).
import { escapeHtml } from './escape.ts';

export interface HtmlPage {
  /** The document title (escaped here). */
  readonly title: string;
  /** The page's style sheet, inlined. */
  readonly css: string;
  /** The body's markup, as is. */
  readonly body: string;
  /** CSP directives beyond `default-src 'none'; style-src 'unsafe-inline'` (e.g. `script-src 'sha256-…'`). */
  readonly csp?: readonly string[];
}

/** A whole HTML document. */
export function htmlPage(p: HtmlPage): string {
  return [...htmlPagePieces(p)].join('');
}

/** A whole HTML document in pieces, the body's as given (a page too large for one string is written piece by piece). */
export function* htmlPagePieces(p: Omit<HtmlPage, 'body'> & { readonly body: string | Iterable<string> }): Generator<string> {
  const csp = ["default-src 'none'", "style-src 'unsafe-inline'", ...(p.csp ?? [])].join('; ');
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(p.title)}</title>
<style>${p.css}</style>
</head>
<body>
`;
  if (typeof p.body === 'string') yield p.body;
  else yield* p.body;
  yield `
</body>
</html>
`;
}
