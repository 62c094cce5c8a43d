/**
 * The builders in this folder create their resources in the stack's own scope, under the ids they had
 * when the stack was one file: a logical ID comes from the construct path, and a new one would make
 * CloudFormation replace the resource (the table and the queues with their data). Keep them.
 */

/** A function's or worker's name in construct ids: `serp-landscape` → `SerpLandscape`. */
export const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());
