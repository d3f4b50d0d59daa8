/** A page of a list route when the caller names no limit. */
export const DEFAULT_PAGE_LIMIT = 100;
/** The most a caller may ask for in one page. */
export const MAX_PAGE_LIMIT = 1000;
