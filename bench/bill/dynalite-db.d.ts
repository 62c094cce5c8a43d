/** dynalite's item-size function (dynalite/db), the size DynamoDB bills an item's capacity by. */
declare module 'dynalite/db' {
  export function itemSize(item: Record<string, unknown>): number;
}
