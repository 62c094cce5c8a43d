/*
 * An UpdateItem's expression, built a clause at a time instead of by hand: every attribute goes by a
 * name placeholder (`#attr`, so a reserved word such as `status` needs no care) and every value by a
 * value placeholder (`:attr`), each once. What it builds is what DynamoDB takes as `UpdateExpression`,
 * `ExpressionAttributeNames` and `ExpressionAttributeValues`; a condition may name the same attributes
 * through `name()`.
 */

/** An attribute name as a placeholder may spell it (`suppressed_since#x` → `suppressed_since_x`). */
const placeholder = (attribute: string): string => attribute.replace(/[^A-Za-z0-9_]/g, '_');

export class Update {
  private readonly sets: string[] = [];
  private readonly removes: string[] = [];
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};

  /** The placeholder of an attribute's name, for this update's clauses or its condition. */
  name(attribute: string): string {
    const key = `#${placeholder(attribute)}`;
    this.names[key] = attribute;
    return key;
  }

  /** The placeholder of a value, for this update's clauses or its condition. */
  value(key: string, value: unknown): string {
    const at = `:${placeholder(key)}`;
    if (at in this.values && this.values[at] !== value) throw new Error(`${at} is given two values`);
    this.values[at] = value;
    return at;
  }

  /** `attribute = value`. */
  set(attribute: string, value: unknown): this {
    this.sets.push(`${this.name(attribute)} = ${this.value(attribute, value)}`);
    return this;
  }

  /** `attribute = if_not_exists(from, value)`: keeps what `from` has (the attribute itself by default), else `value`. */
  setIfAbsent(attribute: string, value: unknown, options: { from?: string; valueKey?: string } = {}): this {
    const from = this.name(options.from ?? attribute);
    this.sets.push(
      `${this.name(attribute)} = if_not_exists(${from}, ${this.value(options.valueKey ?? attribute, value)})`,
    );
    return this;
  }

  /** `attribute = value`, or, for null, the attribute removed. */
  setOrRemove(attribute: string, value: unknown): this {
    return value === null ? this.remove(attribute) : this.set(attribute, value);
  }

  remove(...attributes: string[]): this {
    for (const attribute of attributes) this.removes.push(this.name(attribute));
    return this;
  }

  /** What UpdateItem takes: its expression, and the placeholders' names and values (both left out when none). */
  input(): {
    UpdateExpression: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  } {
    if (this.sets.length === 0 && this.removes.length === 0) throw new Error('an update that changes nothing');
    const clauses = [
      ...(this.sets.length > 0 ? [`SET ${this.sets.join(', ')}`] : []),
      ...(this.removes.length > 0 ? [`REMOVE ${this.removes.join(', ')}`] : []),
    ];
    return {
      UpdateExpression: clauses.join(' '),
      ...(Object.keys(this.names).length > 0 ? { ExpressionAttributeNames: { ...this.names } } : {}),
      ...(Object.keys(this.values).length > 0 ? { ExpressionAttributeValues: { ...this.values } } : {}),
    };
  }
}
