import type { NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { given } from '../helpers/client';

type Json = Record<string, any>;

/** The parent's resource of its nested stack `id` (an AWS::CloudFormation::Stack). */
const nestedResource = (parent: Stack, id: string): [string, Json] => {
  const found = Object.entries(Template.fromStack(parent).findResources('AWS::CloudFormation::Stack')).find(([rid]) =>
    rid.startsWith(id),
  );
  if (!found) throw new Error(`${parent.stackName} has no nested stack ${id}`);
  return found;
};

/**
 * The nested stack `id` of `parent`, each parameter replaced by what the parent passes it: a reference
 * to the parent's resource reads `{ Ref: <its logical id> }` (or its Fn::GetAtt), as in one template.
 */
export function nestedTemplate(parent: Stack, id: string): Template {
  const params: Json = nestedResource(parent, id)[1].Properties.Parameters ?? {};
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    if (
      entries.length === 1 &&
      given(entries[0], 'the entries[0]')[0] === 'Ref' &&
      given(entries[0], 'the entries[0]')[1] in params
    )
      return params[given(entries[0], 'the entries[0]')[1]];
    return Object.fromEntries(entries.map(([k, v]) => [k, inline(v)]));
  };
  const nested = parent.node.findChild(id) as NestedStack;
  return Template.fromJSON(inline(Template.fromStack(nested).toJSON()) as Json);
}

/** What a parent's `Fn::GetAtt` of its nested stack `id`'s output stands for: the output's value there. */
export function nestedOutput(parent: Stack, id: string, getAtt: unknown): unknown {
  const [rid] = nestedResource(parent, id);
  const [target, attribute] = (getAtt as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
  if (target !== rid || !attribute.startsWith('Outputs.')) throw new Error(`${JSON.stringify(getAtt)} is not ${id}'s`);
  const outputs = Template.fromStack(parent.node.findChild(id) as NestedStack).toJSON().Outputs as Json;
  return outputs[attribute.slice('Outputs.'.length)].Value;
}
