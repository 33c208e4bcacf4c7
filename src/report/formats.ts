// The output formats of `interleave show`, in a module of their own so the command line
// can list them without loading the renderers.
export const FORMATS = ['text', 'mermaid', 'html', 'json'] as const;
export type Format = (typeof FORMATS)[number];
