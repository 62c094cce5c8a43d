/** `value` rounded to `digits` decimals: the precision every reported ratio, share and average is given at. */
export const roundTo = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;
