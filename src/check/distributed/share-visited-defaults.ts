// Shared-visited mode's defaults, apart from the mode itself: the package's entry points
// export them, and loading claims.ts would load the claims log and exchange mode's run
// directory with them.

/** Shared-visited mode's defaults (see `ShareVisitedOptions`). */
export const SHARE_VISITED_DEFAULTS = {
  /** `ShareVisitedOptions.batch`. */
  batch: 4096,
  /** `ShareVisitedOptions.pollMs`. */
  pollMs: 20,
} as const;
