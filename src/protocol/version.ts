// Filled in by the bundler from package.json; "dev" when run unbundled (tests compiled by tsc).
declare const HOLDFAST_VERSION: string | undefined;
export const VERSION: string = typeof HOLDFAST_VERSION === 'string' ? HOLDFAST_VERSION : 'dev';
