import { Bug } from '@cm/core';

/*
 * An UpdateItem's expression, built a clause at a time instead of by hand: every attribute goes by a
 * name placeholder (`#attr`, so a reserved word such as `status` needs no care) and every value by a
 * value placeholder (`:attr`), each once. What it builds is what DynamoDB takes as `UpdateExpression`,
 * `ConditionExpression`, `ExpressionAttributeNames` and `ExpressionAttributeValues`; a condition names
 * its attributes and values through `name()` and `value()` (or the helpers that write a whole test).
 */

/** An attribute, or a path into a map: `['leases', owner]` is the map `leases`'s entry `owner`, each part named apart. */
export type Attribute = string | readonly string[];

/** A name placeholder's length at most: a name as long as an owner's id is cut (and told from its twin by a suffix). */
const NAME_PLACEHOLDER_CHARS = 32;

/** An attribute name as a placeholder may spell it (`suppressed_since#x` → `suppressed_since_x`). */
const placeholder = (attribute: string): string => attribute.replace(/[^A-Za-z0-9_]/g, '_') || '_';

/** The value placeholder's key an attribute's own value takes by default. */
const valueKeyOf = (attribute: Attribute): string =>
  placeholder(typeof attribute === 'string' ? attribute : attribute.join('_'));

export class Update {
  private readonly sets: string[] = [];
  private readonly removes: string[] = [];
  private readonly adds: string[] = [];
  private readonly deletes: string[] = [];
  private readonly conditions: string[] = [];
  private readonly names: Record<string, string> = {};
  /** Attribute name → its placeholder, so two names that spell one placeholder get two. */
  private readonly placeholders = new Map<string, string>();
  private readonly values: Record<string, unknown> = {};

  /** The placeholder of an attribute's name (of each part of a path, joined by `.`), for a clause or a condition. */
  name(attribute: Attribute): string {
    // Most are one attribute: its placeholder, with no list to build.
    if (typeof attribute === 'string') return this.namePart(attribute);
    return attribute.map((part) => this.namePart(part)).join('.');
  }

  /** The placeholder of a value, for this update's clauses or its condition. */
  value(key: string, value: unknown): string {
    const at = `:${placeholder(key)}`;
    if (at in this.values && this.values[at] !== value) throw new Bug(`${at} is given two values`);
    this.values[at] = value;
    return at;
  }

  /** `attribute = value` (the value's placeholder named after `valueKey`, else the attribute). */
  set(attribute: Attribute, value: unknown, options: { valueKey?: string } = {}): this {
    this.sets.push(`${this.name(attribute)} = ${this.value(options.valueKey ?? valueKeyOf(attribute), value)}`);
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

  remove(...attributes: Attribute[]): this {
    for (const attribute of attributes) this.removes.push(this.name(attribute));
    return this;
  }

  /** `ADD attribute value`: a number added to a number (from 0 when absent), or a set's members to a set. */
  add(attribute: Attribute, value: number | Set<string | number>, options: { valueKey?: string } = {}): this {
    this.adds.push(`${this.name(attribute)} ${this.value(options.valueKey ?? valueKeyOf(attribute), value)}`);
    return this;
  }

  /** `DELETE attribute members`: the members taken out of a set (a set left empty is gone). */
  deleteFromSet(attribute: Attribute, members: Set<string | number>, options: { valueKey?: string } = {}): this {
    this.deletes.push(`${this.name(attribute)} ${this.value(options.valueKey ?? valueKeyOf(attribute), members)}`);
    return this;
  }

  /** A condition the write makes (several: all of them), written over this update's placeholders. */
  when(condition: string): this {
    this.conditions.push(condition);
    return this;
  }

  /** `attribute_exists(attribute)`, for a condition. */
  exists(attribute: Attribute): string {
    return `attribute_exists(${this.name(attribute)})`;
  }

  /** `attribute_not_exists(attribute)`, for a condition. */
  absent(attribute: Attribute): string {
    return `attribute_not_exists(${this.name(attribute)})`;
  }

  /** `attribute IN (…)`: the attribute is one of `values` (each its own placeholder, `:key_0`, `:key_1`, …). */
  oneOf(attribute: Attribute, values: readonly unknown[], valueKey = valueKeyOf(attribute)): string {
    if (values.length === 0) throw new Bug(`${valueKey} is tested against no values`);
    const list = values.map((value, i) => this.value(`${valueKey}_${i}`, value));
    return `${this.name(attribute)} IN (${list.join(', ')})`;
  }

  /** `contains(attribute, value)`: a set or list holds the value, or a string the substring. */
  contains(attribute: Attribute, value: unknown, valueKey = valueKeyOf(attribute)): string {
    return `contains(${this.name(attribute)}, ${this.value(valueKey, value)})`;
  }

  /**
   * What UpdateItem takes: its expression, its condition (left out when none: `when` joins several with
   * AND, each in parentheses), and the placeholders' names and values (values left out when none).
   */
  input(): {
    UpdateExpression: string;
    ConditionExpression?: string;
    ExpressionAttributeNames: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  } {
    const clauses = [
      ['SET', this.sets],
      ['REMOVE', this.removes],
      ['ADD', this.adds],
      ['DELETE', this.deletes],
    ] as const;
    const written = clauses.filter(([, parts]) => parts.length > 0);
    if (written.length === 0) throw new Bug('an update that changes nothing');
    const condition =
      this.conditions.length === 1 ? this.conditions[0] : this.conditions.map((c) => `(${c})`).join(' AND ');
    return {
      UpdateExpression: written.map(([verb, parts]) => `${verb} ${parts.join(', ')}`).join(' '),
      ...(condition ? { ConditionExpression: condition } : {}),
      // Every clause names an attribute: there are names.
      ExpressionAttributeNames: { ...this.names },
      ...(Object.keys(this.values).length > 0 ? { ExpressionAttributeValues: { ...this.values } } : {}),
    };
  }

  private namePart(attribute: string): string {
    const known = this.placeholders.get(attribute);
    if (known !== undefined) return known;
    const base = `#${placeholder(attribute).slice(0, NAME_PLACEHOLDER_CHARS)}`;
    let key = base;
    for (let n = 2; key in this.names; n++) key = `${base}_${n}`;
    this.names[key] = attribute;
    this.placeholders.set(attribute, key);
    return key;
  }
}
