/** Job templates' bounds (docs/api.md, Job templates; Limits). */

export const TEMPLATE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Not starting with a digit, so `{{0}}`-like text is never a variable. */
export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const MAX_TEMPLATE_VARIABLES = 32;
/** A variable's value as text, and a string default's or enum member's. */
export const MAX_TEMPLATE_VALUE_CHARS = 2048;
/** Templates an account keeps (each with its versions). */
export const MAX_TEMPLATES_PER_ACCOUNT = 200;
/** Versions kept of one template: a new version past this drops the oldest (jobs keep what they ran). */
export const MAX_TEMPLATE_VERSIONS = 20;
/** A template as stored (its job and variables as JSON): what a job body needs, not the 1 MiB a request may carry. */
export const MAX_TEMPLATE_BYTES = 64 * 1024;
