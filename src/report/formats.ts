// The output formats of `interleave show`, in a module of their own so the command line
// can list them without loading the renderers.
/** The formats `interleave show --format` and `render` take. */
export const FORMATS = ['text', 'mermaid', 'html', 'json'] as const;
/** One of `FORMATS`. */
export type Format = (typeof FORMATS)[number];
