// The error a renderer throws, with a message, where a trace would not fit the one
// string it must become (the viewer's JSON island is parsed as one string in the browser).

/** A trace too large to render in one string (the HTML page, or a JavaScript string at all). */
export class RenderTooLargeError extends Error {
  /** Always `'RenderTooLargeError'`. */
  override name = 'RenderTooLargeError';
}
