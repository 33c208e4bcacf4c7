// The package version, read once from package.json (shown by --version and written into traces).
import { readFileSync } from 'node:fs';

export const VERSION: string = (() => {
  try {
    return String(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
  } catch {
    return '0.0.0';
  }
})();
