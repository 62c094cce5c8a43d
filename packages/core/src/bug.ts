/**
 * A state the code's own rules make impossible. Thrown instead of a bare `Error`, so that a log tells a bug
 * in this service (`Bug`) from a fault of the table, a provider or the caller (every other error).
 */
export class Bug extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Bug';
  }
}
