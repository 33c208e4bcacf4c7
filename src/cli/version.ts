// The package version shown by --version (the one traces record), without loading the checker.
export { TOOL_VERSION as VERSION } from '../check/trace/package-info.ts';
