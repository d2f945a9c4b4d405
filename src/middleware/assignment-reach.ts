/**
 * How far back a secret assignment's name can start before its value, in a file of its own so
 * that `StreamRedactor` can read it without loading the secret detectors.
 */

/**
 * Longest look-back a stream must keep for these detectors: the name and operator before a value.
 *
 * @example
 * ASSIGNMENT_REACH // 64
 */
export const ASSIGNMENT_REACH = 64;
